"""From a config root to runs: read each run folder, then classify every run."""

from __future__ import annotations

import glob
import os
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from core.discovery import RunFolder, find_run_folders
from core.journal import JournalFold
from core.jsonl import DEFAULT_MAX_LINE_BYTES, JsonlTail, Problem
from core.model import (
    DEFAULT_STALL_WINDOW,
    Run,
    TranscriptStats,
    classify,
    failed_labels,
)
from core.procs import ProcessTable, ProcFs
from core.sessions import Liveness, Owner, local_pid_domain, owners_by_session, transcript_cwd
from core.snapshot import Snapshot, read_snapshot, snapshot_is_current

_META_NAME = re.compile(r"""\bname\s*:\s*(['"`])((?:(?!\1).){1,200})\1""")


class RunReader:
    """Everything read from one run folder, kept up to date incrementally."""

    def __init__(self, folder: RunFolder, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES):
        self.folder = folder
        self.tail = JsonlTail(folder.journal, max_line_bytes=max_line_bytes)
        self.fold = JournalFold()
        self.problems: list[Problem] = []
        self.journal_size = 0
        self.journal_mtime: float | None = None
        self.snapshot: Snapshot | None = None
        self.snapshot_problem: Problem | None = None
        self._snapshot_stamp: tuple[int, float] | None = None
        self.transcripts = TranscriptStats()
        self.script_path: str | None = None
        self.script_name: str | None = None

    def refresh_journal(self) -> bool:
        """Read appended journal lines; True when anything changed."""
        batch = self.tail.read()
        if batch.reset:
            self.fold = JournalFold()
            self.problems = []
        self.fold.feed_all(batch.records)
        self.problems.extend(batch.problems)
        del self.problems[:-1000]
        try:
            info = os.stat(self.folder.journal)
            self.journal_size, self.journal_mtime = info.st_size, info.st_mtime
        except OSError:
            self.journal_size, self.journal_mtime = 0, None
        return bool(batch.records or batch.problems or batch.reset)

    def refresh_snapshot(self) -> bool:
        """Re-read the snapshot when its size or time changed; True when it did."""
        try:
            info = os.stat(self.folder.snapshot)
            stamp: tuple[int, float] | None = (info.st_size, info.st_mtime)
        except OSError:
            stamp = None
        if stamp == self._snapshot_stamp:
            return False
        self._snapshot_stamp = stamp
        self.snapshot, self.snapshot_problem = read_snapshot(self.folder.snapshot)
        return True

    def refresh_transcripts(self) -> bool:
        """Stat every agent transcript (never read them); True when anything changed."""
        sizes = []
        try:
            with os.scandir(self.folder.path) as entries:
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
        stats = TranscriptStats(
            count=len(sizes),
            total_bytes=sum(size for _, size, _ in sizes),
            newest_mtime=max((mtime for _, _, mtime in sizes), default=None),
            sizes=tuple(sizes),
        )
        changed = stats != self.transcripts
        self.transcripts = stats
        return changed

    def find_script(self) -> None:
        """The persisted script of the run and the ``meta.name`` it declares."""
        named = self.snapshot.script_path if self.snapshot is not None else None
        if named and (os.path.isfile(named) or self.script_path is None):
            self.script_path = named
        if self.script_path is None or not os.path.isfile(self.script_path):
            pattern = os.path.join(
                glob.escape(self.folder.scripts_dir), f"*-{self.folder.run_id}.js"
            )
            matches = sorted(glob.glob(pattern))
            self.script_path = matches[0] if matches else self.script_path
        if self.script_name is None and self.script_path:
            try:
                with open(self.script_path, encoding="utf-8", errors="replace") as handle:
                    head = handle.read(4096)
            except OSError:
                return
            match = _META_NAME.search(head)
            self.script_name = match.group(2) if match else None

    def refresh(self) -> bool:
        changed = self.refresh_journal()
        changed = self.refresh_snapshot() or changed
        changed = self.refresh_transcripts() or changed
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
        current = snapshot is not None and snapshot_is_current(
            snapshot, self.journal_mtime, self.fold.last_agent_id
        )
        times = [t for t in (self.journal_mtime, self.transcripts.newest_mtime) if t is not None]
        last_growth = max(times) if times else None
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


def scan_roots(
    roots: list[str],
    *,
    processes: ProcessTable | None = None,
    now: Callable[[], float] = time.time,
    stall_window: float = DEFAULT_STALL_WINDOW,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
) -> ScanResult:
    """A cold index of every run under the roots, newest activity first."""
    processes = processes or ProcFs()
    result = ScanResult()
    folders: list[RunFolder] = []
    seen: set[str] = set()
    for root in roots:
        found, problems = find_run_folders(root)
        result.problems.extend(problems)
        for folder in found:
            if folder.real_path not in seen:
                seen.add(folder.real_path)
                folders.append(folder)
    owners = owners_by_session(roots, processes, local_pid_domain())
    superseded = find_superseded(folders)
    facts = SessionFacts()
    moment = now()
    for folder in folders:
        reader = RunReader(folder, max_line_bytes=max_line_bytes)
        reader.refresh()
        run = reader.build(
            owner=owners.get(folder.session_id, Owner(Liveness.ABSENT)),
            cwd=facts.cwd(folder),
            now=moment,
            stall_window=stall_window,
            superseded_by=superseded.get(folder.ident),
        )
        result.runs.append(run)
        result.problems.extend(run.problems)
    result.runs = newest_first(result.runs)
    return result
