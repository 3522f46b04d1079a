"""Which runs the home screen shows, and in what order: filter, sort, group.

Pure: takes runs and the screen's choices, returns the ordered rows (runs and
group headers). The screen diffs the keys it gets against what it shows to
decide between updating cells in place and rebuilding the table.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from wftop.core.model import NEEDS_YOU, Run
from wftop.tui.format import ATTENTION_ORDER
from wftop.tui.query import Hay, Term, hay, id_shaped, matches, parse

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
)
LOCAL = ""
"""The host filter's name for this machine (no host name is empty)."""
ATTENTION = frozenset(NEEDS_YOU)


@dataclass(frozen=True)
class GroupRow:
    """A group header: its title, how many runs, and whether it is folded."""

    title: str
    count: int
    collapsed: bool = False

    @property
    def key(self) -> str:
        return f"group:{self.title}"


@dataclass
class RunListView:
    """The choices a person made on the runs screen."""

    text: str = ""
    status: str | None = None
    project: str | None = None
    host: str | None = None
    """Only this host's runs (``LOCAL``: this machine's); None: every host's."""
    sort: str = "activity"
    group: str = "none"
    collapsed: set[str] = field(default_factory=set)
    _hay: dict[str, tuple[Run, Hay]] = field(default_factory=dict, repr=False)
    """What ``/`` searches, per ident, kept while the run object is the same."""
    _activity: dict[str, tuple[Run, tuple[object, ...]]] = field(default_factory=dict, repr=False)
    """Each run's key in the activity order, per ident, kept while the run object is the same."""
    _base: tuple[list[Run], list[Run]] = field(default_factory=lambda: ([], []), repr=False)
    """The runs last given and the same runs in the activity order."""
    _chosen: tuple[list[Run], tuple[object, ...], list[Run], int] | None = field(
        default=None, repr=False
    )
    """Of the last ``_base`` order and filters: the runs that pass, in that order, and the
    tokens their re-runs spent."""
    _terms: tuple[str, tuple[Term, ...]] = ("", ())
    """The filter text and its terms, parsed once per text."""

    def haystack(self, run: Run) -> Hay:
        ident = run.ident
        kept = self._hay.get(ident)
        if kept is not None and kept[0] is run:
            return kept[1]
        found = hay(run)
        self._hay[ident] = (run, found)
        return found

    @staticmethod
    def make_hays(runs: Iterable[Run]) -> dict[str, tuple[Run, Hay]]:
        """What a text filter matches each run against (`wftop.tui.query.hay`): made in a
        worker when the filter box opens, as 20,000 runs' call labels take 100 ms and more."""
        return {run.ident: (run, hay(run)) for run in runs}

    def without_hays(self, runs: Iterable[Run]) -> list[Run]:
        """The runs whose hay is not held yet (new, or replaced since theirs was made)."""
        held = self._hay.get
        return [run for run in runs if (held(run.ident) or (None,))[0] is not run]

    def add_hays(self, made: dict[str, tuple[Run, Hay]]) -> None:
        """Keep hays made elsewhere (`make_hays`); a run replaced since has its own made."""
        self._hay.update(made)

    def terms(self) -> tuple[Term, ...]:
        if self._terms[0] != self.text:
            self._terms = (self.text, parse(self.text))
        return self._terms[1]

    def allowed(self) -> frozenset[str] | None:
        """Shown statuses (`Run.shown_status`) the status filter lets through (None: all)."""
        if self.status is None:
            return None
        if self.status == "attention":
            return ATTENTION
        return frozenset({self.status})

    def matches(self, run: Run, allowed: frozenset[str] | None = None) -> bool:
        if allowed is None and self.status is not None:
            allowed = self.allowed()
        if allowed is not None and run.shown_status not in allowed:
            return False
        if self.project is not None and run.project_short != self.project:
            return False
        if self.host is not None and (run.host or LOCAL) != self.host:
            return False
        if self.text:
            return matches(self.terms(), self.haystack(run))
        return True

    def by_activity(self, runs: Iterable[Run]) -> list[Run]:
        """``runs`` newest activity first; made again only when a run object changed."""
        given = list(runs)
        last_given, last_order = self._base
        if len(given) == len(last_given) and all(map(operator.is_, given, last_given)):
            return last_order
        kept, keys = self._activity, {}

        def place(run: Run) -> tuple[object, ...]:
            ident = run.ident
            held = kept.get(ident)
            key = held[1] if held is not None and held[0] is run else activity_key(run)
            keys[ident] = (run, key)
            return key

        order = sorted(given, key=place)
        self._activity, self._base = keys, (given, order)
        return order

    def chosen(self, runs: Iterable[Run]) -> list[Run]:
        """The runs the filters let through, newest activity first (kept while neither the
        runs nor the filters change: a new order only sorts them again)."""
        base = self.by_activity(runs)
        filters = (self.text, self.status, self.project, self.host)
        kept = self._chosen
        if kept is not None and kept[0] is base and kept[1] == filters:
            return kept[2]
        allowed = self.allowed()
        if allowed is None and self.project is None and self.host is None and not self.text:
            chosen = base
        elif self.project is None and self.host is None and not self.text:
            chosen = [run for run in base if run.shown_status in allowed]  # type: ignore[operator]
        elif allowed is None and self.project is None and self.host is None and self.plain():
            chosen = self._with_words(base, [value for _field, value in self.terms()])
        else:
            chosen = [run for run in base if self.matches(run, allowed)]
        spent = sum(run.rerun_tokens or 0 for run in chosen)
        self._chosen = (base, filters, chosen, spent)
        return chosen

    def plain(self) -> bool:
        """The filter is free words only, none shaped like an id (`id_shaped`): a run passes
        when each is in its `Hay.words`, as `matches` would say."""
        return all(not field and not id_shaped(value) for field, value in self.terms())

    def _with_words(self, base: list[Run], words: list[str]) -> list[Run]:
        """`chosen` for a `plain` filter: the same runs as `matches` lets through, in one
        pass without its calls per run and term (20,000 runs, typed a key at a time)."""
        haystack = self.haystack
        chosen = []
        for run in base:
            text = haystack(run).words
            if all(word in text for word in words):
                chosen.append(run)
        return chosen

    def rerun_tokens(self, runs: Iterable[Run]) -> int:
        """Tokens spent on re-runs over the runs `chosen` gives."""
        self.chosen(runs)
        assert self._chosen is not None
        return self._chosen[3]

    def group_of(self, run: Run) -> str:
        return run.shown_status if self.group == "status" else run.project_short

    def rows(self, runs: Iterable[Run]) -> list[Run | GroupRow]:
        chosen = self.chosen(runs)
        # Stable: runs of one status, name or project stay newest first, as `order_key` says.
        shown = chosen if self.sort == "activity" else sorted(chosen, key=FIRST_KEYS[self.sort])
        if self.group == "none":
            return list(shown)
        groups: dict[str, list[Run]] = {}
        for run in shown:
            groups.setdefault(self.group_of(run), []).append(run)
        if self.group == "status":
            order = sorted(groups, key=lambda name: ATTENTION_ORDER.get(name, 9))
        else:
            order = sorted(groups, key=str.lower)
        rows: list[Run | GroupRow] = []
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


def activity_key(run: Run) -> tuple[object, ...]:
    """Newest activity first, then by the run's identity."""
    folder = run.folder
    return (-(run.last_activity or 0.0), folder.run_id, folder.session_id, folder.root)


FIRST_KEYS: dict[str, Callable[[Run], int | str]] = {
    "status": lambda run: ATTENTION_ORDER.get(run.shown_status, 9),
    "name": lambda run: (run.name or "~").lower(),
    "project": lambda run: run.project_short.lower(),
}
"""What each order other than activity sorts by first (status: attention first)."""


def order_key(run: Run, sort: str) -> tuple[object, ...]:
    """A run's sort key under one of `SORTS`: newest activity first, then by the run's
    identity; status (attention first), name or project before that. `RunListView` sorts
    the activity order again by the first key alone, which gives the same order."""
    first = FIRST_KEYS.get(sort)
    return activity_key(run) if first is None else (first(run), *activity_key(run))


def row_key(row: Run | GroupRow) -> str:
    if isinstance(row, GroupRow):
        return row.key
    return row.ident


T = TypeVar("T")


def cycle(options: tuple[T, ...], current: T) -> T:
    """The option after ``current`` (the first when ``current`` is not one of them)."""
    at = options.index(current) if current in options else -1
    return options[(at + 1) % len(options)]
