"""Where the app gets its runs: the live index, or a rescan every few seconds.

`open_index` returns ``wftop.core.index.LiveIndex`` when that module is present, else
`PollingIndex`, which has the same surface (``cold_start``, ``changes``,
``runs``, ``get``) and rescans with ``wftop.core.coldpass.scan_roots``. The app only ever
talks to that surface, so either works unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from wftop.core.coldpass import SessionFacts, find_superseded, newest_first
from wftop.core.discovery import RunFolder, find_run_folders, session_run_folders
from wftop.core.model import DEFAULT_STALL_WINDOW, Run
from wftop.core.procs import ProcessTable, ProcFs
from wftop.core.reader import RunReader
from wftop.core.sessions import Liveness, Owner, local_pid_domain, owners_by_session

try:  # the live index's change sets are in core/changeset.py; without it this stands in
    from wftop.core.changeset import ChangeSet as ChangeSet
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
    """The surface of ``wftop.core.index.LiveIndex`` the app uses."""

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


FIRST_BATCH = 200
"""Runs read before the first paint: the newest by journal time."""

BATCH = 1000


def _journal_time(folder: RunFolder) -> float:
    try:
        return os.stat(folder.journal).st_mtime
    except OSError:
        return 0.0


def scan_in_batches(
    roots: list[str],
    *,
    processes: ProcessTable | None = None,
    now: Callable[[], float] = time.time,
    stall_window: float = DEFAULT_STALL_WINDOW,
    first: int = FIRST_BATCH,
    batch: int = BATCH,
) -> Iterator[list[Run]]:
    """``wftop.core.coldpass.scan_roots``, newest journals first, in batches.

    The same steps as the cold scan (folders, owners, superseded runs, one
    `RunReader` per folder), but the folders are ordered by journal time and the
    runs come out in batches, so the screen can paint the newest runs before the
    oldest are read.
    """
    processes = processes or ProcFs()
    folders: list[RunFolder] = []
    seen: set[str] = set()
    for root in roots:
        found, _problems = find_run_folders(root)
        for folder in found:
            if folder.real_path not in seen:
                seen.add(folder.real_path)
                folders.append(folder)
    folders.sort(key=_journal_time, reverse=True)
    owners = owners_by_session(roots, processes, local_pid_domain())
    superseded = find_superseded(folders)
    facts = SessionFacts()
    moment = now()
    runs: list[Run] = []
    size = first
    for folder in folders:
        reader = RunReader(folder)
        reader.refresh()
        runs.append(
            reader.build(
                owner=owners.get(folder.session_id, Owner(Liveness.ABSENT)),
                cwd=facts.cwd(folder),
                now=moment,
                stall_window=stall_window,
                superseded_by=superseded.get(folder.ident),
            )
        )
        if len(runs) >= size:
            yield runs
            runs, size = [], batch
    if runs:
        yield runs


PREVIEW_RUNS = 100


def newest_folders(roots: list[str], count: int) -> list[RunFolder]:
    """Run folders of the most recently active sessions, about ``count`` of them.

    Sessions are ordered by their transcript's modification time (a listing and a
    stat per session, no walk of every run folder), newest first, and their run
    folders taken until ``count`` are found.
    """
    sessions: list[tuple[float, str, str, str]] = []
    for root in roots:
        try:
            projects = [entry for entry in os.scandir(os.path.join(root, "projects"))]
        except OSError:
            continue
        for project in projects:
            try:
                if not project.is_dir():
                    continue
                entries = list(os.scandir(project.path))
            except OSError:
                continue
            times = {}
            for entry in entries:
                if entry.name.endswith(".jsonl"):
                    with contextlib.suppress(OSError):
                        times[entry.name[:-6]] = entry.stat().st_mtime
            for entry in entries:
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    continue
                if is_dir:
                    stamp = times.get(entry.name, 0.0)
                    sessions.append((stamp, root, project.name, entry.name))
    sessions.sort(reverse=True)
    folders: list[RunFolder] = []
    seen: set[str] = set()
    for _stamp, root, project, session in sessions:
        for folder in session_run_folders(root, project, session, []):
            if folder.real_path not in seen:
                seen.add(folder.real_path)
                folders.append(folder)
        if len(folders) >= count:
            break
    return folders


def preview_runs(index: object, count: int = PREVIEW_RUNS) -> ChangeSet:
    """About ``count`` of the newest runs of the index's roots, read ahead of its cold start.

    For an index whose cold start hands out nothing until it has read every run:
    the screen can paint these while it works. Costs one listing per project and
    ``count`` runs read twice.
    """
    roots = list(getattr(index, "roots", []))
    processes = getattr(index, "_processes", None) or getattr(index, "processes", None)
    now = getattr(index, "_now", None) or getattr(index, "now", time.time)
    window = getattr(index, "stall_window", DEFAULT_STALL_WINDOW)
    folders = newest_folders(roots, count)
    owners = owners_by_session(roots, processes or ProcFs(), local_pid_domain())
    superseded = find_superseded(folders)
    facts = SessionFacts()
    moment = now()
    runs = []
    for folder in folders:
        reader = RunReader(folder)
        reader.refresh()
        runs.append(
            reader.build(
                owner=owners.get(folder.session_id, Owner(Liveness.ABSENT)),
                cwd=facts.cwd(folder),
                now=moment,
                stall_window=window,
                superseded_by=superseded.get(folder.ident),
            )
        )
    return ChangeSet(0, tuple(runs), (), ())


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

    def _batches(self) -> Iterator[list[Run]]:
        return scan_in_batches(
            self.roots, processes=self.processes, now=self.now, stall_window=self.stall_window
        )

    def _scan(self) -> list[Run]:
        return [run for runs in self._batches() for run in runs]

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

    def cold_start(
        self,
        progress: Callable[[int], None] | None = None,
        partial: Callable[[ChangeSet], None] | None = None,
    ) -> ChangeSet:
        """Every run as ``added``; ``partial`` gets each batch as it is read."""
        runs: list[Run] = []
        for batch in self._batches():
            runs.extend(batch)
            if progress is not None:
                progress(len(runs))
            if partial is not None:
                partial(ChangeSet(0, tuple(batch), (), ()))
        return self._diff(runs)

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
    """The live index when ``wftop.core.index`` exists, else the polling stand-in."""
    try:
        from wftop.core.index import LiveIndex
    except ImportError:
        return PollingIndex(
            roots, processes=processes, now=now, stall_window=stall_window, interval=poll_interval
        )
    index: RunIndex = LiveIndex(roots, processes=processes, now=now, stall_window=stall_window)
    return index
