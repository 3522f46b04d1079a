"""The runs that may need a person, found without looking at every one: `NeedyRuns`.

The app's title counts the runs that need a person (`wftop.tui.store.Store.needing`) at
every change of its store: while a first read of 20,000 runs comes in, about 80 times over
as many as 9,000 dead or partial runs, of which a few were last active within the window.
Those runs are held in the order of their last activity too, so that the runs within the
window are found by a bisection, and only they (and the stalled ones) are looked at.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable, Sequence
from itertools import count

from wftop.core.row import RunRow
from wftop.core.status import PARTIAL, Status

SLACK = 1.0
"""Seconds before the window's start from which runs are looked at, each checked as
`within` says: ``now - window`` is not computed as each run's ``now - last_activity`` is."""


FEW = 16
"""Runs held at once under which each is sorted in where it goes (a bisection), not the
whole list sorted again."""

STALLED = Status.STALLED
LOOKED_AT = frozenset({Status.STALLED.value, Status.DEAD.value, PARTIAL})
"""The shown statuses `needs_a_look` holds (a member of `Status` read off its class costs a
lookup through the enum's type each time: 5,000 rows at a start)."""


def needs_a_look(row: RunRow) -> bool:
    """Stalled, dead or partial (completed with failed calls): what `Store.attention` may
    count (the dead and partial ones while recent)."""
    return row.shown_status in LOOKED_AT


class NeedyRuns:
    """The runs that `needs_a_look` says may need a person, by ident, in the order they
    were first held (a run held again keeps its place; one let go and held again goes
    last), and the stalled ones apart from the others, which are in the order of their
    last activity."""

    def __init__(self) -> None:
        self._rows: dict[str, RunRow] = {}
        self._place: dict[str, int] = {}
        self._stalled: set[str] = set()
        self._by_time: list[tuple[float, str]] = []
        self._count = count()

    def __len__(self) -> int:
        return len(self._rows)

    def put(self, ident: str, row: RunRow) -> None:
        """Hold ``row`` for ``ident`` where it may need a person, else let the run go."""
        if not needs_a_look(row):
            self.drop(ident)
            return
        old = self._rows.get(ident)
        if old is not None:
            self._unplace(ident, old)
        else:
            self._place[ident] = next(self._count)
        self._rows[ident] = row
        if row.status is STALLED:
            self._stalled.add(ident)
        elif row.last_activity is not None:
            insort(self._by_time, (row.last_activity, ident))

    def add(self, rows: Sequence[RunRow]) -> None:
        """Hold those of ``rows`` that may need a person, as `put` of each in turn would:
        runs not held before (a store's first application: 1,000 rows a batch), taken at
        once, those with a time sorted in with one sort."""
        looked = [row for row in rows if row.shown_status in LOOKED_AT]
        held, place, places = self._rows, self._place, self._count
        timed = []
        for row in looked:
            ident = row.ident
            held[ident] = row
            place[ident] = next(places)
            if row.status is STALLED:
                self._stalled.add(ident)
            elif row.last_activity is not None:
                timed.append((row.last_activity, ident))
        by_time = self._by_time
        if len(timed) < FEW:
            for each in timed:
                insort(by_time, each)
        else:
            by_time += timed
            by_time.sort()

    def drop(self, ident: str) -> None:
        """Let the run go (nothing where it is not held)."""
        old = self._rows.pop(ident, None)
        if old is not None:
            self._unplace(ident, old)
            del self._place[ident]

    def _unplace(self, ident: str, old: RunRow) -> None:
        if old.status is STALLED:
            self._stalled.discard(ident)
        elif old.last_activity is not None:
            del self._by_time[bisect_left(self._by_time, (old.last_activity, ident))]

    def within(
        self, now: float, window: float, seen: Callable[[RunRow], bool] | None = None
    ) -> list[RunRow]:
        """The stalled runs and the others last active within ``window`` seconds of
        ``now``, in the order they were held, less those ``seen`` says were marked seen."""
        rows = self._rows
        idents = list(self._stalled)
        start = bisect_left(self._by_time, (now - window - SLACK,))
        for last_activity, ident in self._by_time[start:]:
            if now - last_activity <= window:
                idents.append(ident)
        idents.sort(key=self._place.__getitem__)
        return [rows[ident] for ident in idents if seen is None or not seen(rows[ident])]
