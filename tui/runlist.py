"""Which runs the home screen shows, and in what order: filter, sort, group (the orders
themselves: `wftop.tui.runorder`).

Pure: takes runs (their rows) and the screen's choices, returns the ordered rows (runs and
group headers). The screen diffs the keys it gets against what it shows to decide between
updating cells in place and rebuilding the table.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import compress
from typing import TypeVar

from wftop.core.compared import compared, record
from wftop.core.row import RunRow
from wftop.core.status import NEEDS_YOU
from wftop.tui.format import ATTENTION_ORDER
from wftop.tui.haystack import Texts
from wftop.tui.query import Hay, Term, hay, implies, matches, parse
from wftop.tui.runorder import FIRST_KEYS, Order

SORTS = ("activity", "status", "name", "project")
GROUPS = ("none", "status", "project")
STATUS_FILTERS: tuple[str | None, ...] = (
    None,
    "attention",
    "running",
    "stalled",
    "dead",
    "partial",
    "completed",
    "failed",
    "killed",
    "superseded",
    "unreadable",
)
LOCAL = ""
"""The host filter's name for this machine (no host name is empty)."""
ATTENTION = frozenset(NEEDS_YOU)
Filters = tuple[str, str | None, str | None, str | None]
"""The text, status, project and host filters."""
NO_FILTERS: Filters = ("", None, None, None)
SHOWN_STATUS = operator.attrgetter("shown_status")
MISSED_MOST = 256
"""Changes kept to replay on the filter's texts being made off the loop; past them (a job
that failed, or never came back) the texts are not waited for, and asked for again."""
KEPT_MOST = 8
"""Choices of the filters kept while the runs stay the same (`RunListView.chosen`)."""


@record
class GroupRow:
    """A group header: its title, how many runs, and whether it is folded."""

    title: str
    count: int
    collapsed: bool = False

    @property
    def key(self) -> str:
        return f"group:{self.title}"


@compared
@dataclass(eq=False, repr=False)
class RunListView:
    """The choices a person made on the runs screen, and the runs in their order.

    The runs are held newest activity first (`wftop.tui.runorder.activity_key`), with the
    ones the filters let through beside them. `load` orders every run once; `shift` moves
    the runs of one change of the store into place (a bisection each), so that a run
    appending lines costs a list of 20,000 runs what its own row costs, not a sort of them
    all.
    """

    text: str = ""
    status: str | None = None
    project: str | None = None
    host: str | None = None
    """Only this host's runs (``LOCAL``: this machine's); None: every host's."""
    sort: str = "activity"
    group: str = "none"
    collapsed: set[str] = field(default_factory=set)
    _hay: dict[str, tuple[RunRow, Hay]] = field(default_factory=dict, repr=False)
    """What a term is matched against (`matches`), per ident, kept while the row is the same:
    the runs a change brings, and every run for a filter with ``field:`` terms."""
    _texts: Texts | None = field(default=None, repr=False)
    """What a filter of free words searches (`plain`), in the order of every run (moved
    with it); None until made (off the loop: `texts_wanted`, or when the box opens) and
    once the runs are ordered anew."""
    _missed: list[tuple[list[int], list[RunRow], list[int]]] | None = field(
        default=None, repr=False
    )
    """While texts are made off the loop (`texts_wanted`): how the order moved since."""
    _loads: int = field(default=0, repr=False)
    """Times `load` ordered the runs anew (texts made of an order before are not theirs)."""
    _chosen_texts: Texts | None = field(default=None, repr=False)
    """The same, of the runs `_chosen` holds (None when they were not chosen by free words
    or status alone, or from texts not made yet, or its runs moved since: a letter typed
    then is tried on every run's)."""
    _order: Order = field(default_factory=lambda: Order(), repr=False)
    """Every run, newest activity first."""
    _given: list[RunRow] = field(default_factory=list, repr=False)
    """The runs `load` was last given (`rows` of the same runs orders nothing again)."""
    _chosen: tuple[Filters, Order] | None = field(default=None, repr=False)
    """The filters, and the runs they let through (in the same order), while neither the
    filters nor the runs change but by `shift`."""
    _kept: dict[Filters, tuple[Order, Texts | None]] = field(default_factory=dict, repr=False)
    """The last filters chosen (`KEPT_MOST`, the latest last) with the runs each let through
    and their texts, while the runs stay the same: a filter typed again, or ``esc`` back to
    every run, is not tried on the runs again, nor its sums made again."""
    _terms: tuple[str, tuple[Term, ...]] = ("", ())
    """The filter text and its terms, parsed once per text."""
    passes: int = field(default=0, repr=False)
    """Runs the filters were tried on so far (tests count them)."""

    def haystack(self, run: RunRow) -> Hay:
        ident = run.ident
        kept = self._hay.get(ident)
        if kept is not None and kept[0] is run:
            return kept[1]
        found = hay(run)
        self._hay[ident] = (run, found)
        return found

    def ready(self) -> None:
        """Make what a filter of free words searches (`Texts`: 15-22 ms for 20,000 runs),
        if not made yet (nor taken from `texts_wanted`): when the box opens."""
        if self._texts is None:
            self._texts, self._missed = Texts.of(self._order.runs), None
            self._every_texts()

    @property
    def searchable(self) -> bool:
        """The filter's texts are made: ``/`` makes none."""
        return self._texts is not None

    @property
    def texts_due(self) -> bool:
        """The filter's texts are neither made nor being made."""
        return self._texts is None and self._missed is None

    def texts_wanted(self) -> tuple[int, tuple[RunRow, ...]] | None:
        """The runs to make the filter's texts of off the loop (``Texts.of(runs)``), with
        the order they are of, for `texts_made`; None when `texts_due` is not so."""
        if not self.texts_due:
            return None
        self._missed = []
        return self._loads, tuple(self._order.runs)

    def texts_made(self, loads: int, texts: Texts) -> None:
        """Take the texts made of the runs `texts_wanted` gave, moved as the order moved
        since; dropped when the runs were ordered anew meanwhile, or texts made here."""
        if loads != self._loads:
            return
        missed, self._missed = self._missed, None
        if missed is None or self._texts is not None:
            return
        for taken, fresh, placed in missed:
            texts.move(taken, fresh, placed)
        self._texts = texts
        self._every_texts()

    def _every_texts(self) -> None:
        """Every run chosen (no filter) before the texts were made: they are its texts."""
        chosen = self._chosen
        if (
            chosen is not None
            and chosen[0] == NO_FILTERS
            and self._chosen_texts is None
            and len(chosen[1].runs) == len(self._order.runs)
        ):
            self._chosen_texts = self._texts

    def terms(self) -> tuple[Term, ...]:
        if self._terms[0] != self.text:
            self._terms = (self.text, parse(self.text))
        return self._terms[1]

    def allowed(self) -> frozenset[str] | None:
        """Shown statuses (`RunRow.shown_status`) the status filter lets through (None: all)."""
        if self.status is None:
            return None
        if self.status == "attention":
            return ATTENTION
        return frozenset({self.status})

    def matches(self, run: RunRow, allowed: frozenset[str] | None = None) -> bool:
        if allowed is None and self.status is not None:
            allowed = self.allowed()
        if allowed is not None and run.shown_status not in allowed:
            return False
        if self.project is not None and run.project_name != self.project:
            return False
        if self.host is not None and (run.host or LOCAL) != self.host:
            return False
        if self.text:
            return matches(self.terms(), self.haystack(run))
        return True

    # -- the order ---------------------------------------------------------------------------

    def load(self, runs: Iterable[RunRow]) -> None:
        """Order every run (newest activity first), the filters' choice made again."""
        given = list(runs)
        self._given = given
        self._order = Order.of(given)
        self._chosen = None
        self._texts = self._chosen_texts = self._missed = None
        self._kept = {}
        self._loads += 1

    def shift(
        self, added: Iterable[RunRow], changed: Iterable[RunRow], removed: Iterable[str]
    ) -> None:
        """Move one change of the runs into place: each run a bisection, not a sort."""
        added, changed, removed = list(added), list(changed), list(removed)
        fresh = [*added, *changed]
        gone = [*removed, *(run.ident for run in fresh)]
        if self._chosen is not None:
            self._chosen[1].keyed()  # the keys of its runs as they are before the move
        taken = self._order.drop(gone)
        placed = self._order.put(fresh)
        self._given = []
        if self._texts is not None:
            self._texts.move(taken, fresh, placed)
        elif self._missed is not None:
            if len(self._missed) < MISSED_MOST:
                self._missed.append((taken, fresh, placed))
            else:
                self._missed = None  # texts made of the order before are dropped: due again
        self._chosen_texts = None  # a letter typed next is tried on every run's texts
        chosen = self._chosen
        self._kept = {}  # the runs the others let through moved
        if chosen is not None:
            _filters, passing = chosen
            self._kept[_filters] = (passing, None)
            passing.drop(gone)
            allowed = self.allowed()
            key_of = self._order.key_of
            passing.put((run for run in fresh if self.matches(run, allowed)), key_of.__getitem__)

    @property
    def held(self) -> int:
        """Runs in the order."""
        return len(self._order.runs)

    def by_activity(self, runs: Iterable[RunRow] | None = None) -> list[RunRow]:
        """The runs newest activity first (``runs``: these runs, ordered again only when
        they are not the runs `load` was last given)."""
        if runs is not None:
            given = list(runs)
            last = self._given
            if not (len(given) == len(last) and all(map(operator.is_, given, last))):
                self.load(given)
        return self._order.runs

    def chosen(self, runs: Iterable[RunRow] | None = None) -> list[RunRow]:
        """The runs the filters let through, newest activity first (kept while neither the
        runs nor the filters change; `shift` keeps them current)."""
        base = self.by_activity(runs)
        filters: Filters = (self.text, self.status, self.project, self.host)
        kept = self._chosen
        if kept is not None and kept[0] == filters:
            return kept[1].runs
        again = self._kept.pop(filters, None)
        if again is not None:
            self._kept[filters] = again  # the latest last
            self._chosen, self._chosen_texts = (filters, again[0]), again[1]
            return again[0].runs
        texts, among = self._texts, self._order
        if (
            kept is not None
            and kept[0] != NO_FILTERS  # every run passed: nothing to narrow
            and kept[0][1:] == filters[1:]
            and self._narrows(kept[0][0])
            and (self._chosen_texts is not None or not self.plain())
        ):
            # A letter typed at the end of the text: only the runs it let through may pass
            # (what they search kept with them: `_chosen_texts`).
            base, texts, among = kept[1].runs, self._chosen_texts, kept[1]
        allowed = self.allowed()
        chosen_texts = None
        if allowed is None and self.project is None and self.host is None and not self.text:
            chosen, chosen_texts = list(base), texts
        elif self.project is None and self.host is None and not self.text:
            assert allowed is not None
            if texts is None:
                chosen = list(compress(base, map(allowed.__contains__, map(SHOWN_STATUS, base))))
            else:  # the statuses read off their list: no row is looked at
                passes = list(map(allowed.__contains__, texts.statuses))
                chosen, chosen_texts = list(compress(base, passes)), texts.taken(passes)
        elif allowed is None and self.project is None and self.host is None and self.plain():
            if texts is None:
                texts = Texts.of(base)
                if base is self._order.runs:
                    self._texts, self._missed = texts, None
            chosen = list(base)
            for word in [value for _field, value in self.terms()]:
                chosen, texts = texts.passing(chosen, word)
            chosen_texts = texts
        else:
            chosen = [run for run in base if self.matches(run, allowed)]
        self.passes += len(base)
        passing = Order.ordered(chosen, self._order, among, chosen_texts)
        self._chosen = (filters, passing)
        self._chosen_texts = chosen_texts
        self._kept[filters] = (passing, chosen_texts)
        if len(self._kept) > KEPT_MOST:
            del self._kept[next(iter(self._kept))]
        return passing.runs

    def shown_texts(self) -> Texts | None:
        """The `Texts` of the runs `rows` gave last, in its order (None: not at hand, or the
        rows are sorted or grouped otherwise than `chosen` orders them)."""
        if self.sort != "activity" or self.group != "none":
            return None
        return self._chosen_texts

    def _narrows(self, text: str) -> bool:
        """Every run the filter text now lets through, ``text`` lets through too (each of
        its terms is implied by one of the terms now: `implies`)."""
        now = self.terms()
        return all(any(implies(term, by) for by in now) for term in parse(text))

    def plain(self) -> bool:
        """The filter is free words only (no ``field:``): a run passes when each is in its
        `Hay.words` (or, shaped like an id, in its run or session id), as `matches` says."""
        return all(not field for field, _value in self.terms())

    def rerun_tokens(self, runs: Iterable[RunRow] | None = None) -> int:
        """Tokens spent on re-runs over the runs `chosen` gives."""
        self.chosen(runs)
        assert self._chosen is not None
        return self._chosen[1].spent

    def cost_total(self) -> str:
        """What the runs `chosen` gives spent (`rows_cost_total`), kept while they stay."""
        self.chosen()
        assert self._chosen is not None
        return self._chosen[1].cost()

    def group_of(self, run: RunRow) -> str:
        return run.shown_status if self.group == "status" else run.project_name

    def rows(self, runs: Iterable[RunRow] | None = None) -> list[RunRow | GroupRow]:
        chosen = self.chosen(runs)
        # Stable: runs of one status, name or project stay newest first, as `order_key` says.
        shown = chosen if self.sort == "activity" else sorted(chosen, key=FIRST_KEYS[self.sort])
        if self.group == "none":
            return list(shown)
        groups: dict[str, list[RunRow]] = {}
        for run in shown:
            groups.setdefault(self.group_of(run), []).append(run)
        if self.group == "status":
            order = sorted(groups, key=lambda name: ATTENTION_ORDER.get(name, 9))
        else:
            order = sorted(groups, key=str.lower)
        rows: list[RunRow | GroupRow] = []
        for name in order:
            collapsed = name in self.collapsed
            rows.append(GroupRow(name, len(groups[name]), collapsed))
            if not collapsed:
                rows.extend(groups[name])
        return rows

    def describe(self) -> str:
        """``filter "a3" · status dead · sort status · group project`` (empty when default)."""
        parts = []
        if self.text:
            parts.append(f'filter "{self.text}"')
        if self.status:
            parts.append(f"status {self.status}")
        if self.project:
            parts.append(f"project {self.project}")
        if self.host is not None:
            parts.append("this machine" if self.host == LOCAL else f"host {self.host}")
        if self.sort != "activity":
            parts.append(f"sort {self.sort}")
        if self.group != "none":
            parts.append(f"group {self.group}")
        return " · ".join(parts)


def row_key(row: RunRow | GroupRow) -> str:
    if isinstance(row, GroupRow):
        return row.key
    return row.ident


T = TypeVar("T")


def cycle(options: tuple[T, ...], current: T) -> T:
    """The option after ``current`` (the first when ``current`` is not one of them)."""
    at = options.index(current) if current in options else -1
    return options[(at + 1) % len(options)]
