"""What this platform can do, each asked in one place, so every fallback can be tested anywhere.

Claude Code records its processes differently per platform, and some of wftop's shortcuts
(forking workers, reading ``/proc``) exist on Linux only. Each question here has one answer per
platform and a fallback that the callers implement; tests monkeypatch the answer to exercise it.
"""

from __future__ import annotations

import os
import sys


def reproduces_proc_start() -> bool:
    """Whether a registry's ``procStart`` is a number wftop can compute for a live process.

    On Linux (WSL included) Claude Code writes field 22 of ``/proc/<pid>/stat``, the clock ticks
    from boot to the process's start, and wftop derives the same number. Elsewhere it writes the
    text of ``ps -o lstart``; the fallback compares the process's creation time with the
    registry's ``startedAt`` instead.
    """
    return sys.platform.startswith("linux")


def can_fork_workers() -> bool:
    """Whether a cold pass may be shared among forked children (Linux: fork is safe and cheap).

    The fallback computes every hand in this process.
    """
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def has_inotify() -> bool:
    """Whether the watch helper may ask inotify for its watches directly (Linux).

    The fallback watches through watchfiles (FSEvents on macOS), which keeps several times
    the memory a folder.
    """
    return sys.platform.startswith("linux")


def pid_domain_kind() -> str | None:
    """The kind of ``pidDomain`` Claude Code writes on this platform, or None if unknown here.

    ``"linux"``: ``linux:<machine id>:<pid namespace link>``; ``"darwin"``: the word alone. The
    fallback (None) cannot name this machine's domain, so a registry entry that names one cannot
    be placed and its owner's liveness is unknown.
    """
    if sys.platform.startswith("linux"):
        return "linux"
    if sys.platform == "darwin":
        return "darwin"
    return None


def can_probe_pids() -> bool:
    """Whether ``os.kill(pid, 0)`` asks about a pid without touching it (POSIX).

    On Windows ``os.kill`` ends the process, so the fallback never probes: a pid the process
    table does not list is taken as gone only after the table has shown it can see processes.
    """
    return os.name == "posix"


def lists_command_lines() -> bool:
    """Whether ``/proc/<pid>/cmdline`` holds each process's arguments as bytes (Linux, as
    psutil reads them there), so a scan for one argument may skip the processes whose bytes
    do not hold it without asking psutil about each.

    The fallback asks psutil for every process's command line.
    """
    return sys.platform.startswith("linux") and os.path.isdir("/proc/self")


SOCKET_PATH_MAX = 103
"""Longest Unix socket path usable everywhere: macOS's ``sun_path`` holds 104 bytes (Linux's
108), one of them the terminating NUL."""


def can_share_engine(path: str) -> bool:
    """Whether views may share one engine over a Unix socket at ``path`` (AF_UNIX exists and
    the path fits the stricter platform's limit).

    The fallback gives each view an engine of its own over stdio pipes.
    """
    import socket

    return hasattr(socket, "AF_UNIX") and len(os.fsencode(path)) <= SOCKET_PATH_MAX
