"""The process table, behind one small interface so tests can replace it.

`default_table` is the machine's table, read through psutil on every platform wftop runs on
(Linux, macOS, WSL; on Linux a look for one argument reads ``/proc/<pid>/cmdline`` first, to
ask psutil only about the processes whose command line holds it); the tests hold it to a
reader of ``/proc`` of their own on Linux (``tests/procfs.py``). `FakeProcessTable` is plain
data for tests, including a table that cannot tell (``blind``), as the psutil table is when
it cannot read the processes at all.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from wftop.core.compared import compared
from wftop.core.system.platforms import (
    can_probe_pids,
    lists_command_lines,
    reproduces_proc_start,
)

if TYPE_CHECKING:
    import subprocess


PROC = "/proc"
"""Where Linux lists its processes (psutil's own default)."""


class Seen(StrEnum):
    """What a process table can say about one pid."""

    RUNNING = "running"
    GONE = "gone"
    """No process has the pid (the table has shown it can see processes)."""
    HIDDEN = "hidden"
    """The table cannot tell: access denied, no ``/proc``, or a pid it cannot read."""


@compared
@dataclass(frozen=True, eq=False, repr=False)
class Sighting:
    """One look at a pid, with what the table knows of the start of the process holding it."""

    seen: Seen
    proc_start: str | None = None
    """Field 22 of ``/proc/<pid>/stat`` (Claude Code's ``procStart`` on Linux); None elsewhere."""
    created: float | None = None
    """When the process was created, in seconds since the epoch, if the table knows."""


GONE = Sighting(Seen.GONE)
HIDDEN = Sighting(Seen.HIDDEN)


class ProcessTable(Protocol):
    """What wftop needs to know about processes."""

    def start_time(self, pid: int) -> str | None:
        """A process's start, to tell it from a later one with a recycled pid; None if unseen.

        On Linux it is field 22 of ``/proc/<pid>/stat`` (clock ticks from boot to the start),
        the number Claude Code writes as ``procStart``; a table elsewhere may give another
        stable text, comparable only with its own answers.
        """
        ...

    def sighting(self, pid: int) -> Sighting:
        """Whether ``pid`` runs, is gone, or cannot be seen; and when its process started."""
        ...

    def cmdline(self, pid: int) -> list[str] | None:
        """The argv of a process, or None if it is gone or unreadable."""
        ...

    def pids(self) -> Iterator[int]:
        """Every pid that can be seen."""
        ...

    def argvs_holding(self, argument: str) -> Iterator[tuple[int, list[str]]]:
        """Each process whose argv holds ``argument`` as one of its arguments, with that argv,
        in the order of `pids` (`scan_argvs` asks `cmdline` of each pid)."""
        ...


def scan_argvs(table: ProcessTable, argument: str) -> Iterator[tuple[int, list[str]]]:
    """`ProcessTable.argvs_holding` by asking ``table`` the command line of each pid."""
    for pid in table.pids():
        argv = table.cmdline(pid)
        if argv and argument in argv:
            yield pid, argv


def default_table() -> ProcessTable:
    """This machine's process table."""
    return PsutilTable()


class PsutilTable:
    """The real process table of this machine, read through psutil.

    Where Claude Code's ``procStart`` is field 22 of ``/proc/<pid>/stat`` (Linux), the same
    number is derived from psutil's creation time, boot time and the clock tick rate. A pid
    psutil does not find reads as gone only if the table can see this very process and, on
    POSIX, ``kill(pid, 0)`` agrees that no process has it; otherwise it reads as hidden.
    """

    def __init__(self, psutil_module: Any = None) -> None:
        self._module: Any = psutil_module  # None: psutil, imported when first read
        self._ticks = reproduces_proc_start()
        self._tick_rate = os.sysconf("SC_CLK_TCK") if self._ticks else 0

    @property
    def _ps(self) -> Any:
        """psutil (untyped, and slow to load): imported when the table is first read, not
        when it is made (a view makes one before its list is drawn and reads it later)."""
        if self._module is None:
            import psutil  # type: ignore[import-untyped,unused-ignore]

            self._module = psutil
        return self._module

    def sighting(self, pid: int) -> Sighting:
        ps = self._ps
        if pid <= 0:
            return GONE
        try:
            created, boot = self._created(pid)
        except ps.NoSuchProcess:
            return self._gone_or_hidden(pid)
        except (ps.Error, OSError, ValueError, RuntimeError):
            return HIDDEN
        if not self._ticks:
            return Sighting(Seen.RUNNING, created=created)
        if boot is None:
            return HIDDEN
        start = str(round((created - boot) * self._tick_rate))
        return Sighting(Seen.RUNNING, proc_start=start, created=created)

    def start_time(self, pid: int) -> str | None:
        seen = self.sighting(pid)
        if seen.seen is not Seen.RUNNING:
            return None
        if self._ticks:
            return seen.proc_start
        return None if seen.created is None else str(round(seen.created * 1_000_000))

    def cmdline(self, pid: int) -> list[str] | None:
        ps = self._ps
        try:
            argv = ps.Process(pid).cmdline()
        except (ps.Error, OSError, ValueError):
            return None
        return [str(part) for part in argv if part]

    def pids(self) -> Iterator[int]:
        try:
            found = self._ps.pids()
        except (self._ps.Error, OSError):
            return iter(())
        return iter([int(pid) for pid in found])

    def argvs_holding(self, argument: str) -> Iterator[tuple[int, list[str]]]:
        """On Linux psutil is asked only about the processes whose ``/proc/<pid>/cmdline``
        holds ``argument``'s bytes (an argument of the argv psutil reads from those bytes is
        a piece of them): a plan's look for a process resuming its session read every
        process through psutil, and imported it, to find none."""
        if not lists_command_lines():
            return scan_argvs(self, argument)
        try:
            needle = os.fsencode(argument)
            names = os.listdir(PROC)
        except (OSError, UnicodeError, ValueError):
            return scan_argvs(self, argument)
        found = []
        for pid in sorted(int(name) for name in names if name.isdigit()):
            try:
                with open(f"{PROC}/{pid}/cmdline", "rb", buffering=0) as handle:
                    raw = handle.readall()
            except OSError:
                continue  # gone, or not readable: psutil could not read its argv either
            if needle in raw:
                argv = self.cmdline(pid)
                if argv and argument in argv:
                    found.append((pid, argv))
        return iter(found)

    def _created(self, pid: int) -> tuple[float, float | None]:
        """The creation time of ``pid`` and, where start ticks are wanted, the boot time under it.

        psutil's creation time is the ticks from boot to the start plus the boot time it reads
        then; reading the boot time on both sides and keeping an answer only when the two agree
        gives back the ticks exactly (None when the boot time kept moving).
        """
        ps = self._ps
        for _ in range(3):
            before = float(ps.boot_time()) if self._ticks else None
            created = float(ps.Process(pid).create_time())
            if before is None or float(ps.boot_time()) == before:
                return created, before
        return created, None

    def _sees_itself(self) -> bool:
        try:
            self._ps.Process(os.getpid()).create_time()
        except (self._ps.Error, OSError, ValueError):
            return False
        return True

    def _gone_or_hidden(self, pid: int) -> Sighting:
        if not self._sees_itself():
            return HIDDEN
        if not can_probe_pids():
            return GONE
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return GONE
        except (OverflowError, ValueError):
            return GONE
        except OSError:
            return HIDDEN
        return HIDDEN  # the pid exists, yet psutil cannot read it (another user's, hidepid)


@compared
@dataclass(eq=False, repr=False)
class FakeProcess:
    start_time: str
    cmdline: list[str] = field(default_factory=list)
    created: float | None = None
    """Seconds since the epoch; what a table without Linux start times compares."""


@compared
@dataclass(eq=False, repr=False)
class FakeProcessTable:
    """A process table made of plain data, for tests.

    ``proc_starts=False`` plays a platform without Linux start times (sightings carry only
    ``created``); ``blind=True`` plays a table that cannot read processes at all, and
    ``hidden`` lists pids it cannot read.
    """

    processes: dict[int, FakeProcess] = field(default_factory=dict)
    proc_starts: bool = True
    blind: bool = False
    hidden: frozenset[int] = frozenset()

    def start_time(self, pid: int) -> str | None:
        process = None if self._cannot_see(pid) else self.processes.get(pid)
        return process.start_time if process else None

    def sighting(self, pid: int) -> Sighting:
        if self._cannot_see(pid):
            return HIDDEN
        process = self.processes.get(pid)
        if process is None:
            return GONE
        start = process.start_time if self.proc_starts else None
        return Sighting(Seen.RUNNING, proc_start=start, created=process.created)

    def cmdline(self, pid: int) -> list[str] | None:
        process = None if self._cannot_see(pid) else self.processes.get(pid)
        return list(process.cmdline) if process else None

    def pids(self) -> Iterator[int]:
        return iter([] if self.blind else [p for p in self.processes if p not in self.hidden])

    def argvs_holding(self, argument: str) -> Iterator[tuple[int, list[str]]]:
        return scan_argvs(self, argument)

    def _cannot_see(self, pid: int) -> bool:
        return self.blind or pid in self.hidden


def end_child(process: subprocess.Popen[bytes], grace: float = 2.0) -> None:
    """Stop a child this process started: SIGTERM, then SIGKILL after ``grace`` seconds."""
    import subprocess  # not at the top: a listing asks the table, and starts no process

    if process.poll() is None:
        with contextlib.suppress(OSError):
            process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
