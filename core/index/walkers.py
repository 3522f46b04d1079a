"""The walk of a cold start shared among forked walkers.

Before a first start reads a run it walks ``projects/``: at 20,000 runs (8,000 sessions)
that is most of a second of CPU, in one process, before the first worker that reads runs
is forked, while the other CPUs idle. The folders of the projects are listed here (a
listing each), then the sessions, in the walk's order, are cut into contiguous slices of
`SLICE` sessions that the walkers take one at a time, each the next one as it is done with
the one before (`wftop.core.index.fanout.fan_chunks`): the caller is one of them, after
work of its own if it has some (``meanwhile``: what it would do on one CPU after the walk),
and forked children are the others. The slices' runs come back in the walk's order, so
`wftop.core.read.discovery.run_folders_of` de-duplicates them as the walk of one process
does (`keep_once`) and gives the same list. What the listing callables keep as they go
(the rows cache's listings and the stamps its keys take next: a `WalkRecord`) is kept
slice by slice, in whichever process walked it, and taken in the same order. A walker that
fails has its slices walked here, so the answer never depends on how it was walked.

Forking follows `wftop.core.index.fanout`'s rules (no thread running, a platform that can);
below `MIN_SESSIONS_PER_WALKER` sessions a walker costs more than it saves.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
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
        """In a forked walker, before each slice it walks: what it will have kept of that
        slice by its end, to send back (it must pickle)."""

    def walk_aside(self) -> Callable[[], Any]:
        """In the walk's process, before each slice it walks: what it will have kept of
        that slice, set aside by its end (its own keeping as it was before, again)."""

    def walk_joined(self, kept: Any) -> None:
        """In the walk's process: take what was kept of a slice (`walk_apart`,
        `walk_aside`), slice after slice in the walk's order, once every one is walked."""


def walkers_for(sessions: int) -> int:
    """How many walkers (the caller included) should share the walk of ``sessions``."""
    if sessions < 2 * MIN_SESSIONS_PER_WALKER:
        return 1  # and the fork's machinery not imported (a listing the cache answers)
    from wftop.core.index.fanout import MAX_WORKERS, MIN_ITEMS_PER_WORKER, worker_count

    most = worker_count(MAX_WORKERS * MIN_ITEMS_PER_WORKER)  # as CPUs and threads allow
    return max(1, min(most, sessions // MIN_SESSIONS_PER_WALKER))


SLICE = 128
"""Sessions a slice (about 5 ms of walking): each walker, the caller included, takes the
next slice as it is done with the one before (`wftop.core.index.fanout.fan_chunks`)."""


def in_walkers(
    record: WalkRecord | None = None,
    *,
    walkers: int | None = None,
    meanwhile: Callable[[], object] | None = None,
) -> SessionWalk:
    """A `SessionWalk` shared among forked walkers (``walkers``: how many, the caller
    included; None: by CPUs and sessions), ``record``'s keeping brought back from each.
    ``meanwhile``: work of the caller's own, done once the walkers are forked and before
    it takes a slice (the walkers take its share meanwhile); not called where none is."""

    def walk(
        sessions: Sequence[SessionDir], snapshots: Snapshots | None, runs: RunNames | None
    ) -> list[Found]:
        count = walkers_for(len(sessions)) if walkers is None else min(walkers, len(sessions))
        if count <= 1 or not can_fork_workers():
            return walk_sessions(sessions, snapshots, runs)
        from wftop.core.index.fanout import fan_chunks

        here = os.getpid()

        def walked(hand: Sequence[SessionDir]) -> Walked:
            """A slice walked where it is taken: here, its folders; in a walker, packed."""
            if os.getpid() == here:
                aside = record.walk_aside() if record is not None else None
                found = walk_sessions(hand, snapshots, runs)
                return found, None, aside() if aside is not None else None
            kept = record.walk_apart() if record is not None else None
            found = walk_sessions(hand, snapshots, runs)
            packed = [(packed_runs(folders), problems) for folders, problems in found]
            return None, packed, kept() if kept is not None else None

        parts = fan_chunks(sessions, walked, workers=count, chunk=SLICE, first=meanwhile)
        every: list[Found] = []
        at = 0
        for found, packed, kept in parts:
            if record is not None and kept is not None:
                record.walk_joined(kept)
            if found is None:
                packed = packed or []
                hand = sessions[at : at + len(packed)]
                found = [
                    (session.runs(folders), problems)
                    for session, (folders, problems) in zip(hand, packed, strict=True)
                ]
            every.extend(found)
            at += len(found)
        return every

    return walk


Packed = list[tuple[list[tuple[str, str | None]], list[Problem]]]
"""A walker's slice walked: each session's runs (`packed_runs`) and problems."""
Walked = tuple[list[Found] | None, Packed | None, Any]
"""A slice walked: its `Found` where the walk's process walked it, else `Packed` (each
made again here), with what ``record`` kept of it."""
