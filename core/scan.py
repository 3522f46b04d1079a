"""From a config root to runs: read each run folder, then classify every run."""

from __future__ import annotations

import gc
import glob
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from core.discovery import RunFolder, run_folders_of
from core.journal import JournalFold
from core.jsonl import JsonlTail, Problem
from core.model import (
    DEFAULT_STALL_WINDOW,
    Run,
    TranscriptStats,
    classify,
    failed_labels,
)
from core.procs import ProcessTable, ProcFs
from core.sessions import Liveness, Owner, local_pid_domain, owners_by_session, transcript_cwd
from core.snapshot import Snapshot, read_snapshot_with_stat, snapshot_is_current

_META_NAME = re.compile(r"""\bname\s*:\s*(['"`])((?:(?!\1).){1,200})\1""")


LIST_MAX_LINE_BYTES = 256 * 1024
"""Journal lines longer than this are not parsed whole for the run list.

Such a line keeps the fields that open it (``type``, ``key``, ``agentId``, ``label``,
``phase``) and its ``result`` reads ``<elided>``, so the memory of an index does not
grow with the size of the results; a view that needs a whole result reads the
journal itself (``core.jsonl.read_all``).
"""


def transcript_stats(folder: str) -> TranscriptStats:
    """Size and time of every ``agent-<id>.jsonl`` of a run folder (content not read)."""
    sizes = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if not (name.startswith("agent-") and name.endswith(".jsonl")):
                    continue
                try:
                    info = entry.stat()
                except OSError:
                    continue
                sizes.append((name[6:-6], info.st_size, info.st_mtime))
    except OSError:
        pass
    sizes.sort()
    return TranscriptStats(
        count=len(sizes),
        total_bytes=sum(size for _, size, _ in sizes),
        newest_mtime=max((mtime for _, _, mtime in sizes), default=None),
        sizes=tuple(sizes),
    )


class RunReader:
    """Everything read from one run folder, kept up to date incrementally.

    Agent transcripts are only stat'ed while the run has not ended (no current
    snapshot) and its owner may be alive: only then can they change its status, so
    a run list does not pay for the others (`transcript_stats` gives them on demand).
    """

    def __init__(self, folder: RunFolder, *, max_line_bytes: int = LIST_MAX_LINE_BYTES):
        self.folder = folder
        self.tail = JsonlTail(folder.journal, max_line_bytes=max_line_bytes)
        self.fold = JournalFold()
        self.problems: list[Problem] = []
        self.journal_size = 0
        self.journal_mtime: float | None = None
        self.snapshot: Snapshot | None = None
        self.snapshot_problem: Problem | None = None
        self.snapshot_mtime: float | None = None
        self._snapshot_stamp: tuple[int, float, int] | None = None
        self._snapshot_checked = False
        self.transcripts = TranscriptStats()
        self.script_path: str | None = None
        self.script_name: str | None = None

    def refresh_journal(self) -> bool:
        """Read appended journal lines; True when anything changed."""
        batch = self.tail.read()
        if batch.reset or (self.tail.stat is None and self.tail.line_no):
            # Truncated, replaced, or gone (a vanished journal holds no lines): start over.
            if not batch.reset:
                self.tail = JsonlTail(self.folder.journal, max_line_bytes=self.tail.max_line_bytes)
                self.tail.stat = None
            self.fold = JournalFold()
            self.problems = []
            batch.reset = True
        elif self.tail.stat is not None and self.problems and self.problems[0].line == 0:
            # The journal could not be opened before and can now: that problem is gone.
            self.problems = [problem for problem in self.problems if problem.line != 0]
        self.fold.feed_all(batch.records)
        self.problems.extend(batch.problems)
        del self.problems[:-1000]
        info = self.tail.stat
        before = (self.journal_size, self.journal_mtime)
        if info is not None:
            self.journal_size, self.journal_mtime = info.st_size, info.st_mtime
        else:
            self.journal_size, self.journal_mtime = 0, None
        moved = before != (self.journal_size, self.journal_mtime)
        return bool(batch.records or batch.problems or batch.reset or moved)

    def refresh_snapshot(self) -> bool:
        """Re-read the snapshot when its size, time or inode changed; True when it did."""
        path = self.folder.snapshot
        if not self._snapshot_checked:
            # First look: open it straight away (one system call less than stat first).
            self._snapshot_checked = True
            snapshot, problem, info = read_snapshot_with_stat(path)
            self._take_snapshot(snapshot, problem, info, _stamp(info) if info else None)
            return snapshot is not None or problem is not None
        try:
            stamp: tuple[int, float, int] | None = _stamp(os.stat(path))
        except OSError:
            stamp = None
        if stamp == self._snapshot_stamp:
            return False
        snapshot, problem, info = read_snapshot_with_stat(path)
        self._take_snapshot(snapshot, problem, info, _stamp(info) if info else stamp)
        return True

    @property
    def snapshot_stamp(self) -> tuple[int, float, int] | None:
        """(size, mtime, inode) of the snapshot as last read; None when there was none."""
        return self._snapshot_stamp

    def _take_snapshot(
        self,
        snapshot: Snapshot | None,
        problem: Problem | None,
        info: os.stat_result | None,
        stamp: tuple[int, float, int] | None,
    ) -> None:
        self.snapshot, self.snapshot_problem = snapshot, problem
        self._snapshot_stamp = stamp
        self.snapshot_mtime = info.st_mtime if info is not None else None

    @property
    def snapshot_current(self) -> bool:
        """The snapshot describes the journal's latest run (the run has ended)."""
        return self.snapshot is not None and snapshot_is_current(
            self.snapshot, self.journal_mtime, self.fold.last_agent_id
        )

    def refresh_transcripts(self, owner_alive: bool = True) -> bool:
        """Stat every agent transcript (never read them); True when anything changed.

        Only a run that has not ended and whose owner may be alive needs them: they
        tell running from stalled. Other runs keep none (`transcript_stats` on demand).
        """
        wanted = owner_alive and not self.snapshot_current
        stats = transcript_stats(self.folder.path) if wanted else _NONE
        changed = stats != self.transcripts
        self.transcripts = stats
        return changed

    def find_script(self) -> None:
        """The persisted script of the run and, when no snapshot names the run, its name.

        The snapshot's ``scriptPath`` wins while that file exists (a tree copied from
        another machine names paths that do not), else ``scripts/*-<runId>.js``.
        """
        named = self.snapshot.script_path if self.snapshot is not None else None
        if named and os.path.isfile(named):
            self.script_path = named
        elif self.script_path is None or not os.path.isfile(self.script_path):
            self.script_path = self.script_path or named
            suffix = f"-{self.folder.run_id}.js"
            try:
                names = sorted(os.listdir(self.folder.scripts_dir))
            except OSError:
                names = []
            matches = [name for name in names if name.endswith(suffix)]
            if matches:
                self.script_path = os.path.join(self.folder.scripts_dir, matches[0])
        has_name = self.snapshot is not None and bool(self.snapshot.name)
        if self.script_name is None and self.script_path and not has_name:
            try:
                fd = os.open(self.script_path, os.O_RDONLY | os.O_NONBLOCK)
                try:
                    head = os.read(fd, 4096).decode("utf-8", errors="replace")
                finally:
                    os.close(fd)
            except OSError:
                return
            match = _META_NAME.search(head)
            self.script_name = match.group(2) if match else None

    def refresh(self, *, owner_alive: bool = True) -> bool:
        changed = self.refresh_journal()
        changed = self.refresh_snapshot() or changed
        changed = self.refresh_transcripts(owner_alive) or changed
        self.find_script()
        return changed

    def build(
        self,
        *,
        owner: Owner,
        cwd: str | None,
        now: float,
        stall_window: float = DEFAULT_STALL_WINDOW,
        superseded_by: str | None = None,
    ) -> Run:
        snapshot = self.snapshot
        current = self.snapshot_current
        if current:
            # The run ended when its snapshot was written; its transcripts are not read.
            times = [self.journal_mtime, self.snapshot_mtime]
        else:
            times = [self.journal_mtime, self.transcripts.newest_mtime]
        known = [t for t in times if t is not None]
        last_growth = max(known) if known else None
        status = classify(
            superseded=superseded_by is not None,
            snapshot_status=(snapshot.status or "completed") if current and snapshot else None,
            owner_may_be_alive=owner.may_be_alive,
            last_growth=last_growth,
            now=now,
            stall_window=stall_window,
        )
        problems = list(self.problems)
        if self.snapshot_problem is not None:
            problems.append(self.snapshot_problem)
        return Run(
            folder=self.folder,
            fold=self.fold,
            snapshot=snapshot,
            snapshot_current=current,
            owner=owner,
            status=status,
            cwd=cwd,
            name=(snapshot.name if snapshot else None) or self.script_name,
            script_path=self.script_path,
            journal_size=self.journal_size,
            journal_mtime=self.journal_mtime,
            transcripts=self.transcripts,
            last_activity=last_growth,
            problems=tuple(problems),
            superseded_by=superseded_by,
            failed_labels=failed_labels(self.fold, snapshot, current),
        )


_NONE = TranscriptStats()
_ABSENT = Owner(Liveness.ABSENT)


def _stamp(info: os.stat_result) -> tuple[int, float, int]:
    return (info.st_size, info.st_mtime, info.st_ino)


def journal_lines_without_failed(path: str) -> list[bytes] | None:
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError:
        return None
    return [line for line in raw.split(b"\n") if line and b'"type":"failed"' not in line]


def find_superseded(folders: Iterable[RunFolder]) -> dict[str, str]:
    """Runs continued in another session: ident → the session that continued it.

    A run is superseded when the same run id exists in another session whose journal
    begins with this one's lines and is longer. ``failed`` lines are left out of the
    comparison, so a healed copy (failed lines dropped) still counts.
    """
    by_run: dict[str, list[RunFolder]] = {}
    for folder in folders:
        by_run.setdefault(folder.run_id, []).append(folder)
    superseded: dict[str, str] = {}
    for group in by_run.values():
        if len(group) < 2:
            continue
        lines = {folder.ident: journal_lines_without_failed(folder.journal) for folder in group}
        for older in group:
            mine = lines[older.ident]
            if not mine:
                continue
            for newer in group:
                theirs = lines[newer.ident]
                if newer is older or theirs is None or len(theirs) <= len(mine):
                    continue
                if theirs[: len(mine)] == mine:
                    superseded[older.ident] = newer.session_id
                    break
    return superseded


@dataclass
class ScanResult:
    runs: list[Run] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def newest_first(runs: Iterable[Run]) -> list[Run]:
    return sorted(runs, key=lambda run: (-(run.last_activity or 0.0), run.run_id, run.session_id))


class SessionFacts:
    """Per-session facts shared by its runs (working directory), read once."""

    def __init__(self) -> None:
        self._cwd: dict[str, str | None] = {}

    def cwd(self, folder: RunFolder) -> str | None:
        """From the session transcript; if it is gone, from an agent transcript's records."""
        key = folder.transcript
        if key not in self._cwd:
            found = transcript_cwd(key)
            if found is None:
                agents = sorted(glob.glob(os.path.join(glob.escape(folder.path), "agent-*.jsonl")))
                found = transcript_cwd(agents[0]) if agents else None
            self._cwd[key] = found
        return self._cwd[key]

    def known(self, folder: RunFolder) -> bool:
        """The session's working directory has been looked for and found."""
        return self._cwd.get(folder.transcript) is not None

    def forget(self, folder: RunFolder) -> None:
        """Look for the session's working directory again next time it is asked."""
        self._cwd.pop(folder.transcript, None)


@contextmanager
def paused_gc() -> Iterator[None]:
    """No cyclic garbage collection while a cold scan builds many acyclic objects.

    The collector would otherwise walk the growing heap again and again for nothing.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def scan_roots(
    roots: list[str],
    *,
    processes: ProcessTable | None = None,
    now: Callable[[], float] = time.time,
    stall_window: float = DEFAULT_STALL_WINDOW,
    max_line_bytes: int = LIST_MAX_LINE_BYTES,
) -> ScanResult:
    """A cold index of every run under the roots, newest activity first."""
    processes = processes or ProcFs()
    result = ScanResult()
    folders, problems = run_folders_of(roots)
    result.problems.extend(problems)
    owners = owners_by_session(roots, processes, local_pid_domain())
    superseded = find_superseded(folders)
    facts = SessionFacts()
    moment = now()
    with paused_gc():
        for folder in folders:
            reader = RunReader(folder, max_line_bytes=max_line_bytes)
            owner = owners.get(folder.session_id, _ABSENT)
            reader.refresh(owner_alive=owner.may_be_alive)
            run = reader.build(
                owner=owner,
                cwd=facts.cwd(folder),
                now=moment,
                stall_window=stall_window,
                superseded_by=superseded.get(folder.ident),
            )
            result.runs.append(run)
            result.problems.extend(run.problems)
    result.runs = newest_first(result.runs)
    return result
