"""The process table, behind one small interface so tests can replace it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol


class ProcessTable(Protocol):
    """What wftop needs to know about processes."""

    def start_time(self, pid: int) -> str | None:
        """Field 22 of ``/proc/<pid>/stat`` (clock ticks since boot), or None if no such pid."""
        ...

    def cmdline(self, pid: int) -> list[str] | None:
        """The argv of a process, or None if it is gone or unreadable."""
        ...

    def pids(self) -> Iterator[int]:
        """Every pid that can be seen."""
        ...


class ProcFs:
    """The real process table of this machine, read from ``/proc``."""

    def __init__(self, proc: str = "/proc"):
        self.proc = proc

    def start_time(self, pid: int) -> str | None:
        try:
            with open(f"{self.proc}/{int(pid)}/stat", "rb") as handle:
                raw = handle.read()
        except (OSError, ValueError):
            return None
        # The command name (field 2) is in parentheses and may hold spaces or ')'.
        tail = raw[raw.rfind(b")") + 2 :].split()
        # tail[0] is field 3 (state), so field 22 is tail[19].
        return tail[19].decode() if len(tail) > 19 else None

    def cmdline(self, pid: int) -> list[str] | None:
        try:
            with open(f"{self.proc}/{int(pid)}/cmdline", "rb") as handle:
                raw = handle.read()
        except (OSError, ValueError):
            return None
        return [part.decode(errors="replace") for part in raw.split(b"\0") if part]

    def pids(self) -> Iterator[int]:
        try:
            names = os.listdir(self.proc)
        except OSError:
            return
        for name in names:
            if name.isdigit():
                yield int(name)


@dataclass
class FakeProcess:
    start_time: str
    cmdline: list[str] = field(default_factory=list)


@dataclass
class FakeProcessTable:
    """A process table made of plain data, for tests."""

    processes: dict[int, FakeProcess] = field(default_factory=dict)

    def start_time(self, pid: int) -> str | None:
        process = self.processes.get(pid)
        return process.start_time if process else None

    def cmdline(self, pid: int) -> list[str] | None:
        process = self.processes.get(pid)
        return list(process.cmdline) if process else None

    def pids(self) -> Iterator[int]:
        return iter(list(self.processes))
