"""The index's senses: the file watcher, what a changed path means, the stat sweep.

`Watcher` runs one ``watchfiles.awatch`` over a set of folders in its own task and
hands out batches of changed paths, coalescing whatever queued up meanwhile.
`classify` turns one changed path into a `Touch`: which run, session, project or
registry it concerns and what has to be looked at again (no I/O). `observe` is the
consistency sweep: it only lists folders and stats files (never reads one) and
returns what it saw, so the index can re-read only what differs. Nothing here
imports UI code.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
import zlib
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import orjson

from core.discovery import RUN_FOLDER
from core.model import Run, TranscriptStats
from core.reader import RunReader, transcript_stats

Stamp = tuple[int, float, int]
"""(size, mtime, inode) of a file."""


class Kind(StrEnum):
    JOURNAL = "journal"
    """A run's ``journal.jsonl``: read the appended bytes."""
    TRANSCRIPT = "transcript"
    """A run's ``agent-<id>.jsonl``: stat the run's transcripts."""
    RUN_FOLDER = "run_folder"
    """A run folder itself appeared or vanished: list its session's run folders."""
    SESSION = "session"
    """Something above the run folders of a session changed: list them again."""
    PROJECT = "project"
    """A project folder appeared or vanished: list its sessions."""
    SESSION_TRANSCRIPT = "session_transcript"
    """``<slug>/<session>.jsonl``: the session's working directory may now be known."""
    SNAPSHOT = "snapshot"
    """``<session>/workflows/<runId>.json``, or that folder itself."""
    SCRIPT = "script"
    """Something under ``<session>/workflows/scripts/``."""
    REGISTRY = "registry"
    """``<root>/sessions/``: owners may have changed."""


@dataclass(frozen=True)
class Touch:
    kind: Kind
    root: str = ""
    project: str = ""
    session: str = ""
    name: str = ""
    """The run id of a snapshot (empty: every run of the session)."""
    ident: str = ""
    """The run of a JOURNAL or TRANSCRIPT touch."""


def classify(path: str, roots: Sequence[str], run_dirs: Mapping[str, str]) -> Touch | None:
    """What a changed path means; None when the index does not care about it.

    Args:
        roots: the config dirs watched.
        run_dirs: every known run folder (its own path and its real path) → run ident.
    """
    parent, name = os.path.split(path)
    ident = run_dirs.get(parent)
    if ident is not None:
        if name == "journal.jsonl":
            return Touch(Kind.JOURNAL, ident=ident)
        if name.startswith("agent-") and name.endswith(".jsonl"):
            return Touch(Kind.TRANSCRIPT, ident=ident)
        return None
    for root in roots:
        prefix = root.rstrip(os.sep) + os.sep
        if path.startswith(prefix):
            return _classify_under(root, path[len(prefix) :].split(os.sep))
    return None


def _classify_under(root: str, parts: list[str]) -> Touch | None:
    if parts[0] == "sessions":
        return Touch(Kind.REGISTRY, root=root)
    if parts[0] != "projects" or len(parts) < 2 or not parts[1]:
        return None
    project = parts[1]
    if len(parts) == 2:
        return Touch(Kind.PROJECT, root=root, project=project)
    third = parts[2]
    if len(parts) == 3:
        if third.endswith(".jsonl"):
            return Touch(Kind.SESSION_TRANSCRIPT, root=root, project=project, session=third[:-6])
        return Touch(Kind.SESSION, root=root, project=project, session=third)
    session, rest = third, parts[3:]
    if rest[0] == "subagents":
        if len(rest) <= 2:
            return Touch(Kind.SESSION, root=root, project=project, session=session)
        if rest[1] == "workflows" and RUN_FOLDER.match(rest[2]):
            # A run folder the index does not know yet (or just lost).
            return Touch(Kind.RUN_FOLDER, root=root, project=project, session=session)
        return None
    if rest[0] == "workflows":
        if len(rest) == 1:
            return Touch(Kind.SNAPSHOT, root=root, project=project, session=session)
        if rest[1] == "scripts":
            return Touch(Kind.SCRIPT, root=root, project=project, session=session)
        if len(rest) == 2 and rest[1].endswith(".json"):
            run_id = rest[1][:-5]
            return Touch(Kind.SNAPSHOT, root=root, project=project, session=session, name=run_id)
    return None


@dataclass(frozen=True)
class Probe:
    """What the sweep should look at for one known run."""

    ident: str
    journal: str
    snapshot: str
    folder: str
    transcripts: bool
    """Stat its agent transcripts too (only runs whose owner may be alive)."""


@dataclass
class Observation:
    """What one sweep saw; compared with the index's state by the caller."""

    run_folders: set[tuple[str, str, str, str]] = field(default_factory=set)
    """(root, project, session, run id) of every run folder of the sessions listed."""
    sessions_listed: set[tuple[str, str, str]] = field(default_factory=set)
    """(root, project, session) whose run folders were listed (this sweep's share)."""
    sessions_on_disk: set[tuple[str, str, str]] = field(default_factory=set)
    folders_seen: set[str] = field(default_factory=set)
    """Roots whose ``projects/`` could be listed."""
    journals: dict[str, Stamp | None] = field(default_factory=dict)
    snapshots: dict[str, Stamp | None] = field(default_factory=dict)
    transcripts: dict[str, TranscriptStats] = field(default_factory=dict)
    registries: dict[str, tuple[tuple[str, Stamp], ...]] = field(default_factory=dict)
    """root → (file name, stamp) of every ``sessions/*.json``."""


def stamp_of(path: str) -> Stamp | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_size, info.st_mtime, info.st_ino)


SWEEP_PARTS = 10
"""Each sweep looks at the runs that may be live and at one tenth of the others, in
turn: a missed event on an old, ended run is found within ten sweeps."""


def in_part(session: str, part: int, parts: int = SWEEP_PARTS) -> bool:
    """Whether a session belongs to this sweep's share (share -1 holds every session)."""
    return part < 0 or zlib.crc32(session.encode()) % parts == part


def observe(
    roots: Iterable[str],
    probes: Iterable[Probe],
    *,
    part: int = 0,
    parts: int = 1,
    hot_sessions: Set[str] = frozenset(),
) -> Observation:
    """List run folders and stat the files of known runs (never reads a file).

    Only the sessions in ``hot_sessions`` or in share ``part`` of ``parts`` have their
    run folders listed. Safe to run in a worker thread: it touches nothing but the
    file system.
    """
    seen = Observation()
    for root in roots:
        seen.registries[root] = registry_stamps(os.path.join(root, "sessions"))
        projects = os.path.join(root, "projects")
        if not os.path.isdir(projects):
            continue
        for project in _dir_names(projects):
            for session in _dir_names(os.path.join(projects, project)):
                seen.sessions_on_disk.add((root, project, session))
                if session not in hot_sessions and not in_part(session, part, parts):
                    continue
                seen.sessions_listed.add((root, project, session))
                workflows = os.path.join(projects, project, session, "subagents", "workflows")
                for run in _dir_names(workflows):
                    if RUN_FOLDER.match(run):
                        seen.run_folders.add((root, project, session, run))
        seen.folders_seen.add(root)
    for probe in probes:
        seen.journals[probe.ident] = stamp_of(probe.journal)
        seen.snapshots[probe.ident] = stamp_of(probe.snapshot)
        if probe.transcripts:
            seen.transcripts[probe.ident] = transcript_stats(probe.folder)
    return seen


def _dir_names(path: str) -> list[str]:
    try:
        with os.scandir(path) as entries:
            return [entry.name for entry in entries if _is_dir(entry)]
    except OSError:
        return []


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def registry_stamps(folder: str) -> tuple[tuple[str, Stamp], ...]:
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return ()
    found = []
    for name in names:
        if name.endswith(".json"):
            stamp = stamp_of(os.path.join(folder, name))
            if stamp is not None:
                found.append((name, stamp))
    return tuple(found)


READY_TIMEOUT = 600.0
"""Longest wait for a new watch to be set up (5,000 runs take about 5 s here)."""


class Watcher:
    """One ``watchfiles.awatch`` over a set of folders, run in a helper process.

    Setting up a watch registers one inotify watch per folder (15,000 for 5,000 runs)
    and watchfiles does that holding the interpreter lock, for seconds: in-process it
    would freeze the app. The helper (``python -m core.watch``) pays that instead, then
    writes one JSON line of changed paths per batch; it exits when its stdin closes. A
    thread reads those lines into the event loop's queue.
    """

    def __init__(self, debounce_ms: int, step_ms: int) -> None:
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self.paths: tuple[str, ...] = ()
        self.error: str | None = None
        self._queue: asyncio.Queue[set[str]] = asyncio.Queue()
        self._process: subprocess.Popen[bytes] | None = None

    async def ensure(self, paths: tuple[str, ...]) -> bool:
        """Watch exactly these folders; True when a watch was (re)started and is up."""
        if paths == self.paths and (self._process is not None or not paths):
            return False
        await self.close()
        self.paths = paths
        if not paths:
            return False
        top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        path = os.pathsep.join(part for part in (top, os.environ.get("PYTHONPATH")) if part)
        argv = [sys.executable, "-m", "core.watch", str(self.debounce_ms), str(self.step_ms)]
        self._process = process = subprocess.Popen(
            [*argv, *paths],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": path},
        )
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[bool] = loop.create_future()
        reader = threading.Thread(
            target=self._read, args=(process, loop, ready), name="wftop-watch", daemon=True
        )
        reader.start()
        try:
            up = await asyncio.wait_for(ready, READY_TIMEOUT)
        except TimeoutError:
            up = False
        if not up:
            self.error = f"cannot watch {', '.join(paths)}: the watch did not start"
        return True

    def _read(
        self,
        process: subprocess.Popen[bytes],
        loop: asyncio.AbstractEventLoop,
        ready: asyncio.Future[bool],
    ) -> None:
        """The reader thread: ``ready``, then batches, handed to the event loop."""
        stdout = process.stdout
        assert stdout is not None
        try:
            first = stdout.readline()
            loop.call_soon_threadsafe(_settle, ready, first == b"ready\n")
            for line in stdout:
                loop.call_soon_threadsafe(self._queue.put_nowait, set(orjson.loads(line)))
        except (RuntimeError, ValueError, OSError):
            return  # the event loop is closed (nobody listens any more) or the pipe broke
        finally:
            stdout.close()

    async def next_paths(
        self, stop: asyncio.Event, timeout: float, also: asyncio.Future[Any] | None = None
    ) -> set[str]:
        """The next batch of changed paths, coalesced; empty when ``timeout`` passes,
        ``stop`` is set or ``also`` completes first."""
        paths: set[str] = set()
        ready = also is not None and also.done()
        if self._queue.empty() and timeout > 0 and not stop.is_set() and not ready:
            getter = asyncio.ensure_future(self._queue.get())
            stopper = asyncio.ensure_future(stop.wait())
            waits: set[asyncio.Future[Any]] = {getter, stopper}
            if also is not None:
                waits.add(also)
            try:
                await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            finally:
                stopper.cancel()
                if not getter.done():
                    getter.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await getter
                if getter.done() and not getter.cancelled():
                    paths |= getter.result()
        while not self._queue.empty():
            paths |= self._queue.get_nowait()
        return paths

    async def close(self) -> None:
        """End the helper (it stops when its stdin closes); never awaits, so it also
        completes inside a cancelled task."""
        process, self._process = self._process, None
        self.paths = ()
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()
        process.terminate()
        try:
            process.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _settle(future: asyncio.Future[bool], value: bool) -> None:
    if not future.done():
        future.set_result(value)


def serve(argv: list[str]) -> int:
    """The helper process: ``python -m core.watch DEBOUNCE_MS STEP_MS FOLDER...``.

    Prints ``ready`` once the watch is up, then one JSON list of changed paths per
    batch; ends when stdin closes (the index stopped, or its process died).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is for the parent to handle
    debounce, step, *paths = argv
    return asyncio.run(_serve(int(debounce), int(step), paths))


async def _serve(debounce: int, step: int, paths: list[str]) -> int:
    from watchfiles import awatch

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    loop.add_reader(sys.stdin.fileno(), lambda: _stdin_closed(stop))
    out = sys.stdout.buffer
    batches = awatch(*paths, watch_filter=None, debounce=debounce, step=step, stop_event=stop)
    pending = asyncio.ensure_future(anext(batches))
    # awatch registers every folder before its first await: one turn of the loop later
    # the watch is up, and anything written from now on is seen.
    await asyncio.sleep(0)
    out.write(b"ready\n")
    out.flush()
    while True:
        try:
            changes = await pending
        except StopAsyncIteration:
            return 0
        out.write(orjson.dumps(sorted({path for _change, path in changes})) + b"\n")
        out.flush()
        pending = asyncio.ensure_future(anext(batches))


def _stdin_closed(stop: asyncio.Event) -> None:
    if not os.read(sys.stdin.fileno(), 4096):
        asyncio.get_running_loop().remove_reader(sys.stdin.fileno())
        stop.set()


def plan_sweep(
    readers: Mapping[str, RunReader], runs: Iterable[Run], live: set[str], part: int, since: float
) -> tuple[list[Probe], set[str]]:
    """What one sweep stats: runs of sessions that may be live or were active ``since``
    (the hot sessions, also returned) and the runs of sweep share ``part``."""
    hot = set(live)
    for run in runs:
        if run.last_activity is not None and run.last_activity >= since:
            hot.add(run.session_id)
    chosen = {
        ident: reader
        for ident, reader in readers.items()
        if reader.folder.session_id in hot or in_part(reader.folder.session_id, part)
    }
    return probes(chosen, live), hot


def probes(readers: Mapping[str, RunReader], live_sessions: set[str]) -> list[Probe]:
    """What to stat for every known run; transcripts only where an owner may be alive."""
    return [
        Probe(
            ident=ident,
            journal=reader.folder.journal,
            snapshot=reader.folder.snapshot,
            folder=reader.folder.path,
            transcripts=reader.folder.session_id in live_sessions,
        )
        for ident, reader in readers.items()
    ]


def touches_from(
    seen: Observation,
    readers: Mapping[str, RunReader],
    registries: Mapping[str, tuple[tuple[str, Stamp], ...]],
) -> list[Touch]:
    """Touches for everything a sweep saw that differs from what the readers hold."""
    touches: list[Touch] = []
    known: set[tuple[str, str, str, str]] = set()
    gone: set[tuple[str, str, str]] = set()
    for owned in readers.values():
        folder = owned.folder
        place = (folder.root, folder.project, folder.session_id)
        if place in seen.sessions_listed:
            known.add((*place, folder.run_id))
        elif folder.root in seen.folders_seen and place not in seen.sessions_on_disk:
            gone.add(place)
    changed = {run[:3] for run in seen.run_folders ^ known} | gone
    for root, project, session in sorted(changed):
        touches.append(Touch(Kind.SESSION, root=root, project=project, session=session))
    for ident, stamp in seen.journals.items():
        reader = readers.get(ident)
        if reader is None:
            continue
        info = reader.tail.stat
        held = (info.st_size, info.st_mtime, info.st_ino) if info is not None else None
        if stamp != held:
            touches.append(Touch(Kind.JOURNAL, ident=ident))
        if seen.snapshots.get(ident) != reader.snapshot_stamp:
            touches.append(Touch(Kind.SNAPSHOT, ident=ident))
        stats = seen.transcripts.get(ident)
        if stats is not None and stats != reader.transcripts:
            touches.append(Touch(Kind.TRANSCRIPT, ident=ident))
    for root, stamps in seen.registries.items():
        if stamps != registries.get(root):
            touches.append(Touch(Kind.REGISTRY, root=root))
    return touches


def watch_paths(roots: Iterable[str], readers: Mapping[str, RunReader]) -> tuple[str, ...]:
    """The folders to watch: each root's ``projects/`` and ``sessions/`` that exist,
    plus the real folders of linked runs that live outside them (a watch set up
    before a link appeared does not follow it)."""
    paths: set[str] = set()
    prefixes = []
    for root in roots:
        for name in ("projects", "sessions"):
            watched = os.path.join(root, name)
            prefixes.append(os.path.realpath(watched) + os.sep)
            if os.path.isdir(watched):
                paths.add(watched)
    for reader in readers.values():
        run = reader.folder
        if run.real_path != run.path:
            real = run.real_path + os.sep
            if not any(real.startswith(prefix) for prefix in prefixes):
                paths.add(run.real_path)
    return tuple(sorted(paths))


if __name__ == "__main__":
    raise SystemExit(serve(sys.argv[1:]))
