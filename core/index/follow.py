"""The live index's follow loop: file events, stat sweeps, owner checks, stall timers.

`changes` is what `wftop.core.index.live.LiveIndex.changes` returns. It keeps a
`wftop.core.index.watcher.Watcher` on the folders the index names and hands each batch of
changed paths to the index to classify. Every ``sweep_interval`` it runs a stat-only sweep
the index planned in a worker thread (after the watch is up, so nothing changed in between
goes unseen), every few seconds it has owners re-checked, and it wakes when a running
run's stall window ends. The index applies the touches, re-reading only what they name;
each non-empty result is yielded as one `ChangeSet`.

The loop knows the index only as a `Followed`: the few public methods below, so this
module does not import the index and reads none of its state.
Nothing here imports UI code.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Protocol

from wftop.core.index.changeset import ChangeSet
from wftop.core.index.touch import Observation, Sweep, Touch
from wftop.core.index.watcher import Watcher

LIVENESS_INTERVAL = 5.0
"""Seconds between checks that registered owners are still alive."""


class Followed(Protocol):
    """What the follow loop needs of the index it follows."""

    @property
    def sweep_interval(self) -> float:
        """Seconds between stat sweeps."""

    @property
    def debounce_ms(self) -> int:
        """How long the watcher gathers a burst of events into one batch."""

    @property
    def step_ms(self) -> int:
        """How often the watcher looks for the end of a burst."""

    @property
    def started(self) -> bool:
        """The cold start has been done."""

    def cold_start(self) -> ChangeSet:
        """Read every run once; every run comes out as added."""

    def take_rewatch(self) -> bool:
        """Whether the folders to watch may have changed since last asked (clears it)."""

    def watch_targets(self) -> tuple[str, ...]:
        """The folders to watch now, with everything below them."""

    def shallow_targets(self) -> tuple[str, ...]:
        """The folders to watch now, their own entries only."""

    def classify(self, paths: Iterable[str]) -> list[Touch]:
        """What changed paths mean to the index."""

    def sweep_plan(self, *, full: bool) -> Sweep:
        """The next stat sweep (``full``: every run)."""

    def sweep_touches(self, seen: Observation) -> list[Touch]:
        """Touches for what a finished sweep saw that the index does not hold."""

    def swept_all(self) -> None:
        """A full sweep is done and let go of (what it built may be given back)."""

    def seconds_to_deadline(self) -> float:
        """Seconds until a running run may turn stalled (inf when none runs)."""

    def apply(self, touches: list[Touch], *, recheck_owners: bool = False) -> ChangeSet | None:
        """Re-read what the touches name; None when nothing changed."""


async def changes(
    index: Followed,
    stop_event: asyncio.Event | None = None,
    tell: Callable[[str], None] | None = None,
) -> AsyncIterator[ChangeSet]:
    """The loop behind `wftop.core.index.live.LiveIndex.changes` (its
    docstring says what comes out). ``tell``: what the user is told once, a watch the
    kernel refused (the watch then polls)."""
    if not index.started:
        yield index.cold_start()
    stop = stop_event if stop_event is not None else asyncio.Event()
    loop = asyncio.get_running_loop()
    watcher = Watcher(index.debounce_ms, index.step_ms)
    sweep: asyncio.Task[Observation] | None = None
    owner_interval = min(LIVENESS_INTERVAL, index.sweep_interval)
    next_sweep, next_owners = loop.time(), loop.time() + owner_interval
    told = repoll = False
    try:
        while not stop.is_set():
            if sweep is None and (index.take_rewatch() | repoll):
                # Set up anew, even over the same folders: one deleted and made again is
                # not watched any more by the watch that was set up on it.
                await watcher.close()
                next_sweep, repoll = loop.time(), False
            if sweep is None and loop.time() >= next_sweep:
                # Watch first, then sweep: nothing changed in between goes unseen.
                # A new watch is followed by a full sweep, later ones by a share.
                full = await watcher.ensure(index.watch_targets(), index.shallow_targets(), stop)
                if stop.is_set():  # while the watch was being set up: nothing to sweep for
                    break
                sweep = asyncio.create_task(asyncio.to_thread(index.sweep_plan(full=full).observe))
            wake = min(
                next_sweep if sweep is None else math.inf,
                next_owners,
                loop.time() + index.seconds_to_deadline(),
            )
            paths = await watcher.next_paths(stop, wake - loop.time(), sweep)
            refused = watcher.take_refusal()
            if refused is not None:  # said once; a watch not polling yet is set up polling
                if tell is not None and not told:
                    tell(refused)
                told, repoll = True, repoll or not watcher.polls
            touches = index.classify(paths)
            if sweep is not None and sweep.done():
                touches += index.sweep_touches(sweep.result())
                sweep, next_sweep = None, loop.time() + index.sweep_interval
                if full:
                    index.swept_all()
                targets = (index.watch_targets(), index.shallow_targets())
                if targets != (watcher.paths, watcher.shallow):
                    # A folder to watch came (or went) while the watch was being set up,
                    # too early for it to see: set it up again over what is there now.
                    next_sweep = loop.time()
            recheck = loop.time() >= next_owners
            if recheck:
                next_owners = loop.time() + owner_interval
            result = index.apply(touches, recheck_owners=recheck)
            if result is not None:
                yield result
    finally:
        if sweep is not None:
            sweep.cancel()
        await watcher.close()
