"""Nothing the suite started outlives it, even when it is killed mid-test (a CI timeout).

`start_reaper` marks this process's environment with `MARK` (a value of its own), which every
process the suite starts inherits: engines and their watch helpers, ``claude`` (whether the
mock's harness or wftop's detached launcher started it), tmux and ssh servers. A small reaper
process, in a session of its own, waits for the suite's process to end (it is then handed to
another parent), gives what ends by itself `GRACE` seconds (an engine lingers one after its
last view), then kills every process still marked. A suite killed without any
teardown left a real ``claude`` retrying against the mock that had gone with it, and a
resumed run's detached ``claude`` with it. Linux (it reads ``/proc``); elsewhere a no-op.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil

MARK = "WFTOP_TEST_SUITE"
GRACE = 3.0

REAPER = """
import os, signal, sys, time
mark, suite, grace = sys.argv[1].encode(), int(sys.argv[2]), float(sys.argv[3])
while os.getppid() == suite:  # until the suite's process has ended
    time.sleep(0.5)
time.sleep(grace)
for name in os.listdir("/proc"):
    if not name.isdigit() or int(name) == os.getpid():
        continue
    try:
        with open(f"/proc/{name}/environ", "rb") as handle:
            marked = mark in handle.read().split(b"\\0")
        if marked:
            os.kill(int(name), signal.SIGKILL)
    except OSError:
        pass
"""


def start_reaper() -> subprocess.Popen[bytes] | None:
    """Mark this process's environment (what it starts from now on inherits the mark) and
    start the reaper of what is marked once this process ends; None where there is no
    ``/proc``."""
    if not os.path.isdir("/proc/self"):
        return None
    value = uuid.uuid4().hex
    os.environ[MARK] = value
    env = {name: text for name, text in os.environ.items() if name != MARK}
    return subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", REAPER, f"{MARK}={value}", str(os.getpid()), str(GRACE)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )


def gone(pid: int) -> bool:
    """No such process, or one that has ended and waits to be reaped."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def outlives_its_starter(argv: list[str], cwd: Path) -> int | None:
    """Start ``argv`` (it prints one pid, of a process group it started, and waits), kill it,
    and wait up to a minute for that pid to end. The pid if it outlived the wait (its group
    then killed), else None."""
    starter = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, text=True)
    assert starter.stdout is not None
    try:
        started = int(starter.stdout.readline())
    finally:
        starter.kill()
        starter.wait()
        starter.stdout.close()
    deadline = time.monotonic() + 60
    while not gone(started):
        if time.monotonic() >= deadline:
            os.killpg(started, signal.SIGKILL)
            return started
        time.sleep(0.1)
    return None


def children_naming(path: Path) -> list[tuple[psutil.Process, list[str]]]:
    """This process's children whose command line names ``path`` or a path below it (a
    folder only this test made), with that command line: what this test started, whatever
    other child appears meanwhile (an earlier test's, one a thread left running starts).
    Children that ended are passed by (a zombie has no command line to read), as are forked
    ones not yet running their own command."""
    named = []
    for child in psutil.Process().children():
        try:
            argv = child.cmdline()
        except (psutil.NoSuchProcess, psutil.AccessDenied):  # a zombie too
            continue
        if any(arg == str(path) or arg.startswith(f"{path}{os.sep}") for arg in argv):
            named.append((child, argv))
    return named
