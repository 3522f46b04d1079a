"""Where the app gets its runs: the live index, or a rescan every few seconds.

`open_index` returns ``core.index.LiveIndex`` when that module is present, else
`PollingIndex`, which has the same surface (``cold_start``, ``changes``,
``runs``, ``get``) and rescans with ``core.scan.scan_roots``. The app only ever
talks to that surface, so either works unchanged.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from core.model import DEFAULT_STALL_WINDOW, Run
from core.procs import ProcessTable
from core.scan import newest_first, scan_roots

try:  # the live index lands in core/index.py; until then the rescan below stands in
    from core.index import ChangeSet as ChangeSet
except ImportError:  # pragma: no cover - depends on which modules exist

    @dataclass(frozen=True)
    class ChangeSet:  # type: ignore[no-redef]
        """What changed in the index since the previous change set."""

        seq: int
        added: tuple[Run, ...] = ()
        changed: tuple[Run, ...] = ()
        removed: tuple[str, ...] = ()
        """Idents of runs that are gone."""


class RunIndex(Protocol):
    """The surface of ``core.index.LiveIndex`` the app uses."""

    def cold_start(self, progress: Callable[[int], None] | None = None) -> Any: ...

    def changes(self, stop_event: Any = None) -> AsyncIterator[Any]: ...

    def runs(self) -> list[Run]: ...

    def get(self, ident: str) -> Run | None: ...


def fingerprint(run: Run) -> tuple[Any, ...]:
    """What must differ for a rescanned run to count as changed."""
    return (
        run.status,
        run.journal_size,
        run.journal_mtime,
        run.transcripts,
        run.snapshot_current,
        run.snapshot.timestamp if run.snapshot else None,
        run.owner.liveness,
        run.name,
        run.superseded_by,
        len(run.problems),
    )


class PollingIndex:
    """Stand-in for the live index: a full rescan every ``interval`` seconds."""

    def __init__(
        self,
        roots: list[str],
        *,
        processes: ProcessTable | None = None,
        now: Callable[[], float] = time.time,
        stall_window: float = DEFAULT_STALL_WINDOW,
        interval: float = 2.0,
    ) -> None:
        self.roots = list(roots)
        self.processes = processes
        self.now = now
        self.stall_window = stall_window
        self.interval = interval
        self._runs: dict[str, Run] = {}
        self._prints: dict[str, tuple[Any, ...]] = {}
        self._seq = 0

    def _scan(self) -> list[Run]:
        kwargs: dict[str, Any] = {"now": self.now, "stall_window": self.stall_window}
        if self.processes is not None:
            kwargs["processes"] = self.processes
        return scan_roots(self.roots, **kwargs).runs

    def _diff(self, runs: list[Run]) -> ChangeSet:
        added, changed = [], []
        fresh: dict[str, Run] = {}
        prints: dict[str, tuple[Any, ...]] = {}
        for run in runs:
            fresh[run.ident] = run
            prints[run.ident] = fingerprint(run)
            if run.ident not in self._runs:
                added.append(run)
            elif prints[run.ident] != self._prints.get(run.ident):
                changed.append(run)
        removed = tuple(ident for ident in self._runs if ident not in fresh)
        self._runs, self._prints = fresh, prints
        self._seq += 1
        return ChangeSet(self._seq, tuple(added), tuple(changed), removed)

    def cold_start(self, progress: Callable[[int], None] | None = None) -> ChangeSet:
        changes = self._diff(self._scan())
        if progress is not None:
            progress(len(changes.added))
        return changes

    async def changes(self, stop_event: Any = None) -> AsyncIterator[ChangeSet]:
        while stop_event is None or not stop_event.is_set():
            await asyncio.sleep(self.interval)
            runs = await asyncio.to_thread(self._scan)
            changes = self._diff(runs)
            if changes.added or changes.changed or changes.removed:
                yield changes

    def runs(self) -> list[Run]:
        return newest_first(self._runs.values())

    def get(self, ident: str) -> Run | None:
        return self._runs.get(ident)


def open_index(
    roots: list[str],
    *,
    processes: ProcessTable | None = None,
    now: Callable[[], float] = time.time,
    stall_window: float = DEFAULT_STALL_WINDOW,
    poll_interval: float = 2.0,
) -> RunIndex:
    """The live index when ``core.index`` exists, else the polling stand-in."""
    try:
        from core.index import LiveIndex
    except ImportError:
        return PollingIndex(
            roots, processes=processes, now=now, stall_window=stall_window, interval=poll_interval
        )
    index: RunIndex = LiveIndex(roots, processes=processes, now=now, stall_window=stall_window)
    return index
