"""The walk of a cold start shared among forked walkers.

Before a first start reads a run it walks ``projects/``: at 20,000 runs (8,000 sessions)
that is most of a second of CPU, in one process, before the first worker that reads runs
is forked, while the other CPUs idle. The folders of the projects are listed here (a
listing each), then the sessions, in the walk's order, are cut into contiguous slices, one
per walker: the caller walks the first, a forked child each other one
(`wftop.core.index.fanout.Forked`), and their runs come back in the order of the slices,
so `wftop.core.read.discovery.run_folders_of` de-duplicates them as the walk of one
process does (`keep_once`) and gives the same list. What the listing callables keep as
they go (the rows cache's listings and the stamps its keys take next: a `WalkRecord`)
comes back from each walker too, and is taken in the same order. A walker that fails has
its slice walked here, so the answer never depends on how it was walked.

Forking follows `wftop.core.index.fanout`'s rules (no thread running, a platform that can);
below `MIN_SESSIONS_PER_WALKER` sessions a walker costs more than it saves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Protocol

from wftop.core.read.discovery import (
    Found,
    RunNames,
    SessionDir,
    SessionWalk,
    Snapshots,
    packed_runs,
    walk_sessions,
)
from wftop.core.read.problem import Problem
from wftop.core.system.platforms import can_fork_workers

MIN_SESSIONS_PER_WALKER = 500
"""Sessions a walker must have at least (about 50 ms of walking; its fork, and its runs
sent back and made again here, cost about 10 ms)."""


class WalkRecord(Protocol):
    """What the listing callables of a walk keep as they go (`RowCache`'s listings)."""

    def walk_apart(self) -> Callable[[], Any]:
        """In a forked walker, before it walks: what it will have kept by the end of its
        walk, to send back (it must pickle)."""

    def walk_joined(self, kept: Any) -> None:
        """In the walk's process: take what a walker kept (`walk_apart`), in the order of
        the slices, after its own slice is walked."""


def walkers_for(sessions: int) -> int:
    """How many walkers (the caller included) should share the walk of ``sessions``."""
    if sessions < 2 * MIN_SESSIONS_PER_WALKER:
        return 1  # and the fork's machinery not imported (a listing the cache answers)
    from wftop.core.index.fanout import MAX_WORKERS, MIN_ITEMS_PER_WORKER, worker_count

    most = worker_count(MAX_WORKERS * MIN_ITEMS_PER_WORKER)  # as CPUs and threads allow
    return max(1, min(most, sessions // MIN_SESSIONS_PER_WALKER))


def in_walkers(record: WalkRecord | None = None, *, walkers: int | None = None) -> SessionWalk:
    """A `SessionWalk` shared among forked walkers (``walkers``: how many, the caller
    included; None: by CPUs and sessions), ``record``'s keeping brought back from each."""

    def walk(
        sessions: Sequence[SessionDir], snapshots: Snapshots | None, runs: RunNames | None
    ) -> list[Found]:
        count = walkers_for(len(sessions)) if walkers is None else min(walkers, len(sessions))
        if count <= 1 or not can_fork_workers():
            return walk_sessions(sessions, snapshots, runs)
        from wftop.core.index.fanout import Forked

        cuts = [len(sessions) * k // count for k in range(count + 1)]
        hands = [sessions[cuts[k] : cuts[k + 1]] for k in range(count)]
        children = [
            (Forked(partial(_walked, hand, snapshots, runs, record)), hand) for hand in hands[1:]
        ]
        found = walk_sessions(hands[0], snapshots, runs)
        for child, hand in children:
            walked, kept = child.result(partial(_walked_here, hand, snapshots, runs))
            if record is not None and kept is not None:
                record.walk_joined(kept)
            found.extend(
                (session.runs(packed), problems)
                for session, (packed, problems) in zip(hand, walked, strict=True)
            )
        return found

    return walk


Packed = list[tuple[list[tuple[str, str | None]], list[Problem]]]
"""A walker's slice walked: each session's runs (`packed_runs`) and problems."""


def _walked(
    hand: Sequence[SessionDir],
    snapshots: Snapshots | None,
    runs: RunNames | None,
    record: WalkRecord | None,
) -> tuple[Packed, Any]:
    """A forked walker's slice walked, with what ``record`` kept of it."""
    kept = record.walk_apart() if record is not None else None
    found = walk_sessions(hand, snapshots, runs)
    packed = [(packed_runs(folders), problems) for folders, problems in found]
    return packed, kept() if kept is not None else None


def _walked_here(
    hand: Sequence[SessionDir], snapshots: Snapshots | None, runs: RunNames | None
) -> tuple[Packed, Any]:
    """A failed walker's slice, walked here (its keeping is this process's own)."""
    found = walk_sessions(hand, snapshots, runs)
    return [(packed_runs(folders), problems) for folders, problems in found], None
