"""The process table of this machine read from ``/proc`` directly (Linux only): the
reference the tests hold wftop's psutil table (`wftop.core.system.procs.PsutilTable`) to,
and the real table of tests that launch processes. wftop itself reads ``/proc`` only to
pick the processes whose command line psutil is asked for (`PsutilTable.argvs_holding`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from wftop.core.system.procs import GONE, HIDDEN, Seen, Sighting, scan_argvs


class ProcFs:
    """The real process table of this machine, read from ``/proc`` (Linux only)."""

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

    def sighting(self, pid: int) -> Sighting:
        start = self.start_time(pid)
        if start is not None:
            return Sighting(Seen.RUNNING, proc_start=start)
        if not os.path.isdir(f"{self.proc}/self"):
            return HIDDEN
        return GONE if not os.path.lexists(f"{self.proc}/{int(pid)}") else HIDDEN

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

    def argvs_holding(self, argument: str) -> Iterator[tuple[int, list[str]]]:
        return scan_argvs(self, argument)
