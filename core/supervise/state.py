"""What the supervisor keeps in the state dir beside its audit log: marks, the off switch, a lock.

``<state>/supervise/``::

    audit.jsonl        every decision (`wftop.core.supervise.audit`)
    state.json         {"version": 1, "marks": [{"run", "root"}], "off_at"}
    supervisor.lock    flock held by the one supervisor of this state dir, naming it

``marks`` are the runs marked "auto" (the TUI's ``m``), each under the root it was seen in;
``off_at`` is when ``wftop supervise --off`` switched supervision off (a supervisor started
before then stops). The file is replaced whole (temp file + rename), and only after the
file that was there read back as one of these: a corrupt or foreign file is an
`AuditError` and is left as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Final

import orjson

from wftop.core.model import iso_utc
from wftop.core.resume.errors import ResumeBusy
from wftop.core.resume.lock import RunLock
from wftop.core.supervise.audit import AuditError, AuditLog, check_own_file
from wftop.core.supervise.files import STATE_NAME, supervise_dir
from wftop.core.system.atomic import atomic_write
from wftop.core.system.procs import ProcessTable
from wftop.core.system.statedir import ensure_private_dir

VERSION: Final = 1
EXPECTED: Final = 'expected {"version": 1, "marks": [{"run", "root"}], "off_at"}'
HOLDER: Final = re.compile(r"wftop supervise pid (\d+) start (\S+)(?: watching (.*))?")


@dataclass(frozen=True)
class Mark:
    """A run marked "auto": its id, and the root it was marked under (None: any root)."""

    run: str
    root: str | None = None

    def matches(self, run_id: str, root: str) -> bool:
        return self.run == run_id and (self.root is None or self.root == root)


@dataclass(frozen=True)
class SuperviseState:
    marks: tuple[Mark, ...] = ()
    off_at: float | None = None

    def marked(self, run_id: str, root: str) -> bool:
        return any(mark.matches(run_id, root) for mark in self.marks)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "marks": [{"run": mark.run, "root": mark.root} for mark in self.marks],
            "off_at": iso_utc(self.off_at),
        }


def parse_state(data: object) -> SuperviseState:
    """Check a parsed state file.

    Raises:
        ValueError: It is not one (the message says what is wrong).
    """
    if not isinstance(data, dict) or data.get("version") != VERSION:
        msg = "not a version 1 supervisor state"
        raise ValueError(msg)
    marks = data.get("marks")
    if not isinstance(marks, list):
        msg = "marks must be a list"
        raise ValueError(msg)
    found = []
    for mark in marks:
        run = mark.get("run") if isinstance(mark, dict) else None
        root = mark.get("root") if isinstance(mark, dict) else None
        if not isinstance(run, str) or not (root is None or isinstance(root, str)):
            msg = "each mark must be {run, root}"
            raise ValueError(msg)
        found.append(Mark(run, root))
    off_at = data.get("off_at")
    if off_at is not None and not isinstance(off_at, str):
        msg = "off_at must be an ISO-8601 time or null"
        raise ValueError(msg)
    try:
        off = None if off_at is None else datetime.fromisoformat(off_at).timestamp()
    except ValueError:
        msg = "off_at must be an ISO-8601 time or null"
        raise ValueError(msg) from None
    return SuperviseState(tuple(found), off)


class SuperviseStore:
    """The supervisor's files in one state dir (default: wftop's)."""

    def __init__(self, root: Path | None = None) -> None:
        self.folder = supervise_dir(root)
        self.audit = AuditLog(self.folder / "audit.jsonl")
        self.state_path = self.folder / STATE_NAME
        self.lock_path = self.folder / "supervisor.lock"

    def read_state(self) -> SuperviseState:
        """The state (the empty one when there is no file yet).

        Raises:
            AuditError: The file is corrupt, foreign or unreadable.
        """
        path = self.state_path
        check_own_file(path)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return SuperviseState()
        except OSError as error:
            msg = f"{path}: cannot be read ({error.strerror})"
            raise AuditError(msg) from None
        try:
            return parse_state(orjson.loads(raw))
        except (orjson.JSONDecodeError, ValueError) as error:
            msg = f"{path}:1: {error}; {EXPECTED}"
            raise AuditError(msg) from None

    def write_state(self, state: SuperviseState) -> None:
        """Replace the state file, once the one there read back (see `read_state`).

        Raises:
            AuditError: The file there is corrupt or foreign, or cannot be replaced.
        """
        self.read_state()
        try:
            ensure_private_dir(self.folder)
            atomic_write(self.state_path, orjson.dumps(state.to_json()) + b"\n")
        except OSError as error:
            msg = f"{self.state_path}: cannot be written ({error.strerror})"
            raise AuditError(msg) from None

    def toggle(self, run_id: str, root: str) -> bool:
        """Mark the run auto, or take the mark off; whether it is marked now."""
        state = self.read_state()
        kept = tuple(mark for mark in state.marks if not mark.matches(run_id, root))
        marked = len(kept) == len(state.marks)
        marks = (*kept, Mark(run_id, root)) if marked else kept
        self.write_state(replace(state, marks=marks))
        return marked

    def switch_off(self, now: float) -> SuperviseState:
        """``--off``: every mark taken off, and supervisors started before ``now`` stop."""
        state = self.read_state()
        self.write_state(SuperviseState((), now))
        return state

    def lock(self, holder: str) -> RunLock:
        """Take the supervisor's lock (one supervisor per state dir).

        Raises:
            ResumeBusy: Another supervisor holds it (the message names it).
            AuditError: The lock file cannot be created.
        """
        try:
            ensure_private_dir(self.folder)
            check_own_file(self.lock_path)
            lock = RunLock(self.lock_path, "supervisor", holder, busy="a supervisor already runs")
            return lock.acquire()
        except ResumeBusy:
            raise
        except OSError as error:
            msg = f"{self.lock_path}: cannot be locked ({error.strerror})"
            raise AuditError(msg) from None

    def holder(self) -> tuple[int, str, str] | None:
        """The pid, start time and what it watches that the lock file names, if any."""
        try:
            text = self.lock_path.read_text(errors="replace")
        except OSError:
            return None
        found = HOLDER.search(text)
        return (int(found[1]), found[2], (found[3] or "").strip()) if found else None


def running(store: SuperviseStore, processes: ProcessTable) -> tuple[int, str] | None:
    """The pid of the supervisor of this state dir and what it watches, if one runs (the pid
    its lock file names is alive and started when it said)."""
    holder = store.holder()
    if holder is None:
        return None
    pid, start, what = holder
    now = processes.start_time(pid)
    if now is None or (start != "-" and now != start):
        return None
    return pid, what


def holder_line(pid: int, start: str | None, what: str = "") -> str:
    """What the lock file says of its holder: ``wftop supervise pid P start S watching …``."""
    return f"wftop supervise pid {pid} start {start or '-'} watching {what or '-'}"
