"""Sessions: the live-process registry and the facts a session transcript holds.

``<root>/sessions/<pid>.json`` is written by every running Claude Code process and
left behind by SIGKILL, so a file alone proves nothing: the owner is alive only if
the pid exists and its start time equals the file's ``procStart``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import orjson

from wftop.core.procs import ProcessTable

HEAD_BYTES = 1024 * 1024
"""How much of a session transcript is read to find its working directory."""


class Liveness(StrEnum):
    ALIVE = "alive"
    DEAD = "dead"
    """A registry file exists but its process is gone (or the pid was recycled)."""
    UNKNOWN = "unknown"
    """Written on another machine or pid namespace: the local process table cannot tell."""
    ABSENT = "absent"
    """No registry file names the session."""


@dataclass(frozen=True)
class RegistryEntry:
    path: str
    pid: int
    session_id: str
    proc_start: str | None
    cwd: str | None
    pid_domain: str | None
    version: str | None


@dataclass(frozen=True)
class Owner:
    """Who owns a session now."""

    liveness: Liveness
    entry: RegistryEntry | None = None

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
    entries = []
    for name in names:
        if not name.endswith(".json") or not name[:-5].isdigit():
            continue
        path = os.path.join(folder, name)
        try:
            data = orjson.loads(_read_regular(path, 256 * 1024))
        except (OSError, orjson.JSONDecodeError):
            continue
        if not isinstance(data, dict) or not isinstance(data.get("sessionId"), str):
            continue
        pid = data.get("pid")
        if not isinstance(pid, int):
            pid = int(name[:-5])
        start = data.get("procStart")
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
    """``linux:<machine id>:pid:[<namespace inode>]``, as Claude Code writes it."""
    try:
        machine = Path("/etc/machine-id").read_text().strip()
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        return None
    return f"linux:{machine}:{namespace}"


def owner_liveness(
    entry: RegistryEntry, processes: ProcessTable, pid_domain: str | None
) -> Liveness:
    if entry.pid_domain and pid_domain and entry.pid_domain != pid_domain:
        return Liveness.UNKNOWN
    start = processes.start_time(entry.pid)
    if start is None:
        return Liveness.DEAD
    if entry.proc_start is not None and start != entry.proc_start:
        return Liveness.DEAD
    return Liveness.ALIVE


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
        owner = Owner(owner_liveness(entry, processes, pid_domain), entry)
        current = owners.get(entry.session_id)
        if current is None or _RANK[owner.liveness] > _RANK[current.liveness]:
            owners[entry.session_id] = owner
    return owners


def processes_resuming(session_id: str, processes: ProcessTable) -> list[int]:
    """Pids of processes whose command line resumes or continues the session."""
    found = []
    for pid in processes.pids():
        argv = processes.cmdline(pid)
        if not argv or session_id not in argv:
            continue
        at = argv.index(session_id)
        if at > 0 and argv[at - 1] in ("--resume", "-r", "--session-id"):
            found.append(pid)
    return found


def transcript_cwd(transcript: str) -> str | None:
    """The working directory recorded in a session transcript's first records.

    Reads the first `HEAD_BYTES` at most, a block at a time, and stops at the first
    complete line that names a ``cwd`` (usually within the first kilobytes).
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
            lines = pending.split(b"\n")
            pending = lines.pop()
            for raw in lines:
                found = _line_cwd(raw)
                if found is not None:
                    return found
    except OSError:
        return None
    finally:
        os.close(fd)
    return None


def _line_cwd(raw: bytes) -> str | None:
    if b'"cwd"' not in raw:
        return None
    try:
        record = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if isinstance(record, dict) and isinstance(record.get("cwd"), str):
        return str(record["cwd"])
    return None
