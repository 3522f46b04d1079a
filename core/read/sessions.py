"""Sessions: the live-process registry and the facts a session transcript holds.

``<root>/sessions/<pid>.json`` is written by every running Claude Code process and
left behind by SIGKILL, so a file alone proves nothing: the owner is alive only if the pid
runs in this pid domain and its process is the one that wrote the file. Where the process
table reproduces ``procStart`` (Linux) the two must be equal; elsewhere the process must have
been created no later than the file's ``startedAt`` (see `START_SLACK`). Whatever cannot be
checked reads as unknown, never as dead: a dead owner is what lets a resume start.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from wftop.core.read.verdicts import Liveness as Liveness  # its home; named here as before
from wftop.core.system.platforms import pid_domain_kind

if TYPE_CHECKING:
    from wftop.core.system.procs import ProcessTable

HEAD_BYTES = 1024 * 1024
"""How much of a session transcript is read to find its working directory."""

START_SLACK = 2.0
"""Seconds a process's creation time may follow a registry file's ``startedAt`` and still be
the process that wrote it.

Claude Code writes ``startedAt`` (``Date.now()``) itself, after it was created. A process that
holds the pid now and was created no later than that held the pid when the file was written
(pids are unique among live processes), so it is the writer; one created later has a recycled
pid. The slack covers the two clocks being read apart (psutil's creation time on Linux rests on
a boot time in whole seconds); it errs towards alive.
"""


@dataclass(frozen=True)
class RegistryEntry:
    path: str
    pid: int
    session_id: str
    proc_start: str | None
    cwd: str | None
    pid_domain: str | None
    version: str | None
    started_at: float | None = None
    """``startedAt``: when the writer registered, in milliseconds since the epoch."""


@dataclass(frozen=True)
class Owner:
    """Who owns a session now."""

    liveness: Liveness
    entry: RegistryEntry | None = None
    why: str = field(default="", compare=False)
    """How the liveness was decided, in words a refusal can quote."""

    @property
    def may_be_alive(self) -> bool:
        return self.liveness in (Liveness.ALIVE, Liveness.UNKNOWN)


NO_OWNER = Owner(Liveness.ABSENT)
"""The owner of a session that no registry file names."""


def read_registry(root: str) -> list[RegistryEntry]:
    """Every readable ``<root>/sessions/<pid>.json``; unreadable files are skipped."""
    folder = os.path.join(root, "sessions")
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    # The JSON reader is imported only for a registry file: a listing of a tree no process
    # runs in (whose rows the cache holds) reads no JSON but its rows file.
    from wftop.core.read.jsonline import UnreadableLine, parse_line

    entries = []
    for name in names:
        if not name.endswith(".json") or not name[:-5].isdigit():
            continue
        path = os.path.join(folder, name)
        try:
            data = parse_line(_read_regular(path, 256 * 1024))
        except (OSError, UnreadableLine):
            continue
        if not isinstance(data, dict) or not isinstance(data.get("sessionId"), str):
            continue
        pid = data.get("pid")
        if not isinstance(pid, int):
            pid = int(name[:-5])
        start = data.get("procStart")
        started = data.get("startedAt")
        entries.append(
            RegistryEntry(
                path=path,
                pid=pid,
                session_id=data["sessionId"],
                proc_start=str(start) if isinstance(start, (int, str)) else None,
                cwd=data.get("cwd") if isinstance(data.get("cwd"), str) else None,
                pid_domain=data.get("pidDomain")
                if isinstance(data.get("pidDomain"), str)
                else None,
                version=data.get("version") if isinstance(data.get("version"), str) else None,
                started_at=float(started)
                if isinstance(started, (int, float)) and not isinstance(started, bool)
                else None,
            )
        )
    return entries


def _read_regular(path: str, limit: int) -> bytes:
    """The head of a regular file; a FIFO or a folder named like one is not waited on."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise IsADirectoryError(path)
        return os.read(fd, limit)
    finally:
        os.close(fd)


def local_pid_domain() -> str | None:
    """This machine's ``pidDomain`` as Claude Code writes it, or None where wftop cannot name it.

    On Linux ``linux:<machine id>:<pid namespace link>``, a part that cannot be read left empty
    as Claude Code leaves it; on macOS ``darwin``. An entry naming another domain (or any
    domain, when this is None) belongs to processes the local table cannot see.
    """
    kind = pid_domain_kind()
    if kind != "linux":
        return kind
    try:
        machine = Path("/etc/machine-id").read_text().strip()
    except OSError:
        machine = ""
    try:
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        namespace = ""
    return f"linux:{machine}:{namespace}"


def judge_owner(entry: RegistryEntry, processes: ProcessTable, pid_domain: str | None) -> Owner:
    """Whether the process that wrote ``entry`` still runs, and why wftop says so."""
    from wftop.core.system.procs import Seen  # a listing no registry names a session of: none

    if entry.pid_domain and entry.pid_domain != pid_domain:
        where = "another machine or pid namespace" if pid_domain else "an unnamed pid domain"
        return _unknown(entry, f"it was registered on {where} ({entry.pid_domain})")
    seen = processes.sighting(entry.pid)
    if seen.seen is Seen.GONE:
        return Owner(Liveness.DEAD, entry, f"no process has pid {entry.pid}")
    if seen.seen is Seen.HIDDEN:
        why = f"the process table cannot read pid {entry.pid} (no /proc, or access denied)"
        return _unknown(entry, why)
    if entry.proc_start is not None and seen.proc_start is not None:
        if seen.proc_start == entry.proc_start:
            return Owner(Liveness.ALIVE, entry, "its pid runs with the registered procStart")
        return Owner(Liveness.DEAD, entry, f"pid {entry.pid} now names a later process")
    if entry.started_at is not None and seen.created is not None:
        if seen.created <= entry.started_at / 1000 + START_SLACK:
            return Owner(Liveness.ALIVE, entry, "its pid runs a process created before it wrote")
        return Owner(Liveness.DEAD, entry, f"pid {entry.pid} now names a process created later")
    return _unknown(
        entry,
        f"pid {entry.pid} runs, but the registry file has no start to compare with its process's",
    )


def _unknown(entry: RegistryEntry, why: str) -> Owner:
    return Owner(Liveness.UNKNOWN, entry, f"{why}, so wftop cannot tell whether it is alive")


def owner_liveness(
    entry: RegistryEntry, processes: ProcessTable, pid_domain: str | None
) -> Liveness:
    return judge_owner(entry, processes, pid_domain).liveness


def owners_by_session(
    roots: list[str], processes: ProcessTable, pid_domain: str | None
) -> dict[str, Owner]:
    """The best owner per session id over every root: alive beats unknown beats dead."""
    return owners_from_entries(
        (entry for root in roots for entry in read_registry(root)), processes, pid_domain
    )


_RANK = {Liveness.ALIVE: 3, Liveness.UNKNOWN: 2, Liveness.DEAD: 1, Liveness.ABSENT: 0}


def owners_from_entries(
    entries: Iterable[RegistryEntry], processes: ProcessTable, pid_domain: str | None
) -> dict[str, Owner]:
    """`owners_by_session` over registry entries already read (in root order)."""
    owners: dict[str, Owner] = {}
    for entry in entries:
        owner = judge_owner(entry, processes, pid_domain)
        current = owners.get(entry.session_id)
        if current is None or _RANK[owner.liveness] > _RANK[current.liveness]:
            owners[entry.session_id] = owner
    return owners


def processes_resuming(session_id: str, processes: ProcessTable) -> list[int]:
    """Pids of processes whose command line resumes or continues the session."""
    found = []
    for pid, argv in processes.argvs_holding(session_id):
        at = argv.index(session_id)
        if at > 0 and argv[at - 1] in ("--resume", "-r", "--session-id"):
            found.append(pid)
    return found


def transcript_cwd(transcript: str) -> str | None:
    """The working directory recorded in a session transcript's first records.

    Reads the first `HEAD_BYTES` at most, a block at a time, and stops at the first
    complete line that names a ``cwd`` (usually within the first kilobytes). Only the lines
    that hold ``"cwd"`` are cut out of a block (`_cwd_of`), not every line of it.
    """
    try:
        fd = os.open(transcript, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        pending = b""
        consumed = 0
        size = 8 * 1024
        while consumed < HEAD_BYTES:
            block = os.read(fd, min(size, HEAD_BYTES - consumed))
            if not block:
                break
            consumed += len(block)
            size = min(size * 4, 256 * 1024)
            pending += block
            end = pending.rfind(b"\n") + 1  # where its complete lines end
            found = _cwd_of(pending, end)
            if found is not None:
                return found
            pending = pending[end:]
    except OSError:
        return None
    finally:
        os.close(fd)
    return None


def _cwd_of(data: bytes, end: int) -> str | None:
    """`_line_cwd` of the first of the complete lines of ``data`` (those before ``end``)
    that gives one, looking only at the lines that hold ``"cwd"``: a session transcript's
    first 8 KiB cut into lines was a CPython loop over each byte of them."""
    find = data.find
    at = find(_CWD, 0, end)
    while at >= 0:
        start = data.rfind(b"\n", 0, at) + 1
        stop = find(b"\n", at, end)
        found = _line_cwd(data[start:stop])
        if found is not None:
            return found
        at = find(_CWD, stop + 1, end)
    return None


_CWD = b'"cwd"'


def _line_cwd(raw: bytes) -> str | None:
    if raw.find(b'"cwd"') < 0:
        return None
    from wftop.core.read.jsonline import UnreadableLine, parse_shallow

    try:  # its top level alone is read: nothing of it is held (`parse_shallow`)
        record = parse_shallow(raw)
    except UnreadableLine:
        return None
    if isinstance(record, dict) and isinstance(record.get("cwd"), str):
        return str(record["cwd"])
    return None
