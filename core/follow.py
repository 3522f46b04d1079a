"""The live index's follow loop: file events, stat sweeps, owner checks, stall timers.

`changes` is what `wftop.core.index.LiveIndex.changes` returns. It keeps a
`wftop.core.watcher.Watcher` on the folders ``wftop.core.touch.watch_paths`` names and turns each
batch of changed paths into touches (``wftop.core.touch.classify``). Every ``sweep_interval``
it starts a stat-only sweep in a worker thread (after the watch is up, so nothing
changed in between goes unseen), every few seconds it has owners re-checked, and it
wakes when a running run's stall window ends. The index applies the touches, re-reading
only what they name; each non-empty result is yielded as one `ChangeSet`. This is the
index's own loop, kept in a module of its own: it works on the index's state directly.
Nothing here imports UI code.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING

from wftop.core import touch as sense
from wftop.core.changeset import ChangeSet
from wftop.core.touch import Observation, Touch
from wftop.core.watcher import Watcher

if TYPE_CHECKING:
    from wftop.core.index import LiveIndex

LIVENESS_INTERVAL = 5.0
"""Seconds between checks that registered owners are still alive."""
RECENT_SECONDS = 3600.0
"""Runs active this recently are stat'ed by every sweep, like runs with a live owner."""


async def changes(
    index: LiveIndex, stop_event: asyncio.Event | None = None
) -> AsyncIterator[ChangeSet]:
    """The loop behind `wftop.core.index.LiveIndex.changes` (its docstring says what comes out)."""
    if not index._started:
        yield index.cold_start()
    stop = stop_event if stop_event is not None else asyncio.Event()
    loop = asyncio.get_running_loop()
    watcher = Watcher(index.debounce_ms, index.step_ms)
    sweep: asyncio.Task[Observation] | None = None
    owner_interval = min(LIVENESS_INTERVAL, index.sweep_interval)
    next_sweep, next_owners = loop.time(), loop.time() + owner_interval
    try:
        while not stop.is_set():
            if index._rewatch and sweep is None:
                index._rewatch, next_sweep = False, loop.time()
            if sweep is None and loop.time() >= next_sweep:
                # Watch first, then sweep: nothing changed in between goes unseen.
                # A new watch is followed by a full sweep, later ones by a share.
                full = await watcher.ensure(sense.watch_paths(index.roots, index._readers))
                sweep = asyncio.create_task(_observe(index, full))
            wake = min(
                next_sweep if sweep is None else math.inf,
                next_owners,
                _next_deadline(index, loop.time()),
            )
            paths = await watcher.next_paths(stop, wake - loop.time(), sweep)
            touches = _classify(index, paths)
            if sweep is not None and sweep.done():
                touches += sense.touches_from(sweep.result(), index._readers, index._registry_seen)
                sweep, next_sweep = None, loop.time() + index.sweep_interval
                index._swept += 1
            recheck = loop.time() >= next_owners
            if recheck:
                next_owners = loop.time() + owner_interval
            result = index._apply(touches, recheck_owners=recheck)
            if result is not None:
                yield result
    finally:
        if sweep is not None:
            sweep.cancel()
        await watcher.close()


async def _observe(index: LiveIndex, full: bool) -> Observation:
    """Stat (in a worker thread) every run, or those that may be live and a share."""
    live = {session for session, owner in index._owners.items() if owner.may_be_alive}
    part = index._swept % sense.SWEEP_PARTS if not full else -1
    since = index._now() - RECENT_SECONDS
    chosen, hot = sense.plan_sweep(index._readers, index._runs.values(), live, part, since)
    return await asyncio.to_thread(
        sense.observe,
        list(index.roots),
        chosen,
        part=part,
        parts=sense.SWEEP_PARTS,
        hot_sessions=hot,
    )


def _classify(index: LiveIndex, paths: Iterable[str]) -> list[Touch]:
    touches = []
    for path in paths:
        touch = sense.classify(path, index.roots, index._run_dirs)
        if touch is not None:
            touches.append(touch)
    return touches


def _next_deadline(index: LiveIndex, loop_now: float) -> float:
    """When (event-loop time) the next running run may turn stalled."""
    if not index._deadlines:
        return math.inf
    return loop_now + max(0.0, index._deadlines[0][0] - index._now())
