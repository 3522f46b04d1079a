"""Settled runs held by their rows: what the live index lets go of, and reads again.

A run that has ended (its snapshot written), or whose owner is dead, changes only when its
files do (`wftop.core.index.cachefile.settled`). The engine's live index hands every run out
as a row, so such a run needs neither its fold nor its parsed snapshot once its row is made:
its reader dozes (`wftop.core.index.reader.RunReader.doze`), keeping only the stamps the
sweeps compare, and the index keeps a `light` run (its status, times, names and failures,
no calls) for its order and its sweeps. When its files change, its owner or supersession
changes, or something asks for the run, the reader wakes: it reads the folder in full again
and the run is built as at the cold start. A run active in the last `HOT_SECONDS` (a run
still written to whose owner is not known alive) and a run woken by a change stay awake, so
a run that grows is never read whole again at each of its lines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from wftop.core.index.cachefile import settled
from wftop.core.index.naming import sorted_listing
from wftop.core.index.reader import RunReader
from wftop.core.model import Run
from wftop.core.read.journal import JournalFold

HOT_SECONDS = 600.0
"""A settled run active this recently keeps what was read of it."""

NO_CALLS = JournalFold()
"""The fold of every `light` run (one for all: a run's fold is never fed once built)."""


def light(run: Run) -> Run:
    """The run without its calls or its parsed snapshot (what a dozing reader let go)."""
    return replace(run, fold=NO_CALLS, snapshot=None)


class Holder:
    """Which readers doze, and which woke in the batch being applied."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        """Settled runs doze (the engine's index); off, every reader keeps what it read."""
        self.woken: set[str] = set()
        """Runs woken since the last `settle_batch`: they stay awake this time."""

    def wake(
        self,
        ident: str,
        reader: RunReader,
        *,
        owner_alive: bool,
        listing: Callable[[str], list[str]] = sorted_listing,
    ) -> bool:
        """Read a dozing reader's folder again; True when it was dozing."""
        if not reader.dozing:
            return False
        reader.wake(owner_alive=owner_alive, listing=listing)
        self.woken.add(ident)
        return True

    def settle(self, reader: RunReader, run: Run, now: float) -> Run:
        """What the index keeps of ``run`` just built at ``now``: the run, or, when it is
        settled (not active in the last `HOT_SECONDS`, and did not just wake), its `light`
        self, its reader dozing."""
        if not self.enabled or run.ident in self.woken or not settled(run):
            return run
        if run.last_activity is not None and now - run.last_activity < HOT_SECONDS:
            return run
        reader.doze()
        return light(run)

    def settle_batch(self) -> None:
        self.woken.clear()
