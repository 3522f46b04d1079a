"""Which runs the home screen shows, and in what order: filter, sort, group.

Pure: takes runs and the screen's choices, returns the ordered rows (runs and
group headers). The screen diffs the keys it gets against what it shows to
decide between updating cells in place and rebuilding the table.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from wftop.core.model import NEEDS_YOU, Run
from wftop.tui.format import ATTENTION_ORDER
from wftop.tui.query import Hay, Term, hay, matches, parse

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
    _order: dict[str, tuple[Run, list[tuple[object, ...] | None]]] = field(
        default_factory=dict, repr=False
    )
    """Each run's sort key under each sort mode once asked for (`order_key`, in the order of
    `SORTS`), kept likewise: going back to an order does not make its keys again."""
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

    def _keys_of(self, run: Run, mode: int) -> tuple[object, ...]:
        """The run's key under ``SORTS[mode]``, made once per run object and order."""
        kept = self._order.get(run.ident)
        if kept is None or kept[0] is not run:
            kept = (run, [None] * len(SORTS))
            self._order[run.ident] = kept
        key = kept[1][mode]
        if key is None:
            key = kept[1][mode] = order_key(run, SORTS[mode])
        return key

    def group_of(self, run: Run) -> str:
        return run.shown_status if self.group == "status" else run.project_short

    def rows(self, runs: Iterable[Run]) -> list[Run | GroupRow]:
        allowed = self.allowed()
        if allowed is None and self.project is None and self.host is None and not self.text:
            chosen: Iterable[Run] = runs
        else:
            chosen = [run for run in runs if self.matches(run, allowed)]
        mode, made, keys_of = SORTS.index(self.sort), self._order, self._keys_of

        def place(run: Run) -> tuple[object, ...]:
            # `_keys_of` inlined for a kept key: one call less per run and key (20,000 runs)
            kept = made.get(run.ident)
            key = kept[1][mode] if kept is not None and kept[0] is run else None
            return key if key is not None else keys_of(run, mode)

        shown = sorted(chosen, key=place)
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


def order_key(run: Run, sort: str) -> tuple[object, ...]:
    """A run's sort key under one of `SORTS`: newest activity first, then by the run's
    identity; status (attention first), name or project before that."""
    newest = -(run.last_activity or 0.0)
    folder = run.folder
    by_activity = (newest, folder.run_id, folder.session_id, folder.root)
    if sort == "status":
        return (ATTENTION_ORDER.get(run.shown_status, 9), *by_activity)
    if sort == "name":
        return ((run.name or "~").lower(), *by_activity)
    if sort == "project":
        return (run.project_short.lower(), *by_activity)
    return by_activity


def row_key(row: Run | GroupRow) -> str:
    if isinstance(row, GroupRow):
        return row.key
    return row.ident


T = TypeVar("T")


def cycle(options: tuple[T, ...], current: T) -> T:
    """The option after ``current`` (the first when ``current`` is not one of them)."""
    at = options.index(current) if current in options else -1
    return options[(at + 1) % len(options)]
