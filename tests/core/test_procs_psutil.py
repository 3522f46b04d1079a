"""The psutil process table: on Linux it agrees with ``/proc`` for real processes.

Claude Code's ``procStart`` on Linux is field 22 of ``/proc/<pid>/stat``. The psutil table
derives that number from creation time, boot time and tick rate; these tests read this
machine's real processes on purpose (this test process, a child it starts) and hold the psutil
table to the ``/proc`` reader. The derivation itself is also checked on a stand-in psutil.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import uuid
from types import SimpleNamespace

import psutil
import pytest

import wftop.core.system.procs
from tests.procfs import ProcFs
from wftop.core.read.sessions import processes_resuming
from wftop.core.system.procs import PsutilTable, Seen, default_table

on_linux = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not os.path.isdir("/proc/self"),
    reason="the /proc reader needs Linux's /proc",
)

MARK = "wftop-procs-agreement-child"
READY_THEN_SLEEP = "print('ready', flush=True); import time; time.sleep(60)"
"""A child's code that says when it runs: until it has exec'd, its command line is its parent's."""


def started(argv: list[str]) -> subprocess.Popen[str]:
    """A child running ``argv`` (`READY_THEN_SLEEP`), returned once it said it runs."""
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    assert process.stdout.readline() == "ready\n"
    return process


@pytest.fixture
def child():  # type: ignore[no-untyped-def]
    """A sleeping child process with a recognisable argv; killed and reaped afterwards."""
    argv = [sys.executable, "-c", "import sys, time; time.sleep(60)", MARK, "--resume", "x y"]
    process = subprocess.Popen(argv)
    try:
        yield process, argv
    finally:
        process.kill()
        process.wait()


def test_the_default_table_is_the_psutil_table() -> None:
    assert isinstance(default_table(), PsutilTable)


@on_linux
def test_psutil_and_proc_agree_on_this_process_and_a_child(child) -> None:  # type: ignore[no-untyped-def]
    process, argv = child
    table, proc = PsutilTable(), ProcFs()
    for pid in (os.getpid(), process.pid):
        start = proc.start_time(pid)
        assert start is not None and start.isdigit()
        assert table.start_time(pid) == start
        seen = table.sighting(pid)
        assert (seen.seen, seen.proc_start) == (Seen.RUNNING, start)
        assert proc.sighting(pid).proc_start == start
    assert table.cmdline(process.pid) == proc.cmdline(process.pid) == argv
    assert {os.getpid(), process.pid} <= set(table.pids()) & set(proc.pids())


@on_linux
def test_psutil_and_proc_agree_on_every_start_both_can_read() -> None:
    table, proc = PsutilTable(), ProcFs()
    compared = 0
    for pid in sorted(set(table.pids()) & set(proc.pids())):
        ours, theirs = table.start_time(pid), proc.start_time(pid)
        if ours is None or theirs is None:
            continue  # ended between the two reads, or unreadable
        assert ours == theirs, pid
        compared += 1
    assert compared >= 2


@on_linux
def test_a_reaped_child_is_gone_for_both(child) -> None:  # type: ignore[no-untyped-def]
    process, _ = child
    process.kill()
    process.wait()
    assert ProcFs().sighting(process.pid).seen is Seen.GONE
    assert PsutilTable().sighting(process.pid).seen is Seen.GONE
    assert PsutilTable().start_time(process.pid) is None


def stand_in(boot_times, created):  # type: ignore[no-untyped-def]
    """A psutil module whose boot time reads ``boot_times`` in turn."""
    reads = iter(boot_times)
    return SimpleNamespace(
        Error=psutil.Error,
        NoSuchProcess=psutil.NoSuchProcess,
        AccessDenied=psutil.AccessDenied,
        Process=lambda pid: SimpleNamespace(pid=pid, create_time=lambda: created),
        pids=lambda: [7],
        boot_time=lambda: next(reads),
    )


@pytest.mark.skipif(not hasattr(os, "sysconf"), reason="needs the clock tick rate")
def test_ticks_are_creation_minus_boot_times_the_tick_rate(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(wftop.core.system.procs, "reproduces_proc_start", lambda: True)
    rate = os.sysconf("SC_CLK_TCK")
    boot = 1_765_000_000.0
    table = PsutilTable(stand_in([boot, boot], boot + 1_234_567 / rate))
    assert table.sighting(7).proc_start == "1234567"


def test_a_boot_time_that_keeps_moving_gives_no_start(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(wftop.core.system.procs, "reproduces_proc_start", lambda: True)
    table = PsutilTable(stand_in(itertools.count(1000.0), 1500.0))
    assert table.sighting(7).seen is Seen.HIDDEN
    assert table.start_time(7) is None


def test_without_linux_start_times_the_start_is_the_creation_time(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(wftop.core.system.procs, "reproduces_proc_start", lambda: False)
    table = PsutilTable(stand_in([], 1_765_000_000.25))
    seen = table.sighting(7)
    assert (seen.seen, seen.proc_start, seen.created) == (Seen.RUNNING, None, 1_765_000_000.25)
    assert table.start_time(7) == "1765000000250000"


def counting_psutil(asked: list[int]) -> SimpleNamespace:
    """psutil, noting each pid a process of it is made for."""

    def process(pid: int) -> psutil.Process:
        asked.append(pid)
        return psutil.Process(pid)

    return SimpleNamespace(
        Error=psutil.Error,
        NoSuchProcess=psutil.NoSuchProcess,
        AccessDenied=psutil.AccessDenied,
        Process=process,
        pids=psutil.pids,
        boot_time=psutil.boot_time,
    )


@pytest.fixture
def resuming():  # type: ignore[no-untyped-def]
    """A child resuming a session of its own: (session, child, its argv); killed afterwards."""
    session = f"wftop-test-{uuid.uuid4()} session"
    argv = [sys.executable, "-c", READY_THEN_SLEEP, "--resume", session]
    process = started(argv)
    try:
        yield session, process, argv
    finally:
        process.kill()
        process.wait()


@on_linux
def test_a_look_for_an_argument_asks_psutil_only_about_the_processes_holding_it(
    resuming,  # type: ignore[no-untyped-def]
) -> None:
    session, process, argv = resuming
    asked: list[int] = []
    table = PsutilTable(counting_psutil(asked))
    assert processes_resuming(session, table) == [process.pid]
    assert list(table.argvs_holding(session)) == [(process.pid, argv)]
    assert asked == [process.pid, process.pid]
    assert processes_resuming(session + "x", table) == []
    assert asked == [process.pid, process.pid]


@on_linux
def test_a_look_for_a_process_resuming_a_session_that_none_resumes_imports_no_psutil() -> None:
    code = (  # the session id made here, on no command line (this one's would hold it)
        "import sys, uuid\n"
        "from wftop.core.read.sessions import processes_resuming\n"
        "from wftop.core.system.procs import PsutilTable\n"
        "assert processes_resuming(str(uuid.uuid4()), PsutilTable()) == []\n"
        "print('psutil' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "False\n"


def test_where_command_lines_cannot_be_listed_the_look_asks_psutil_about_every_process(
    monkeypatch,  # type: ignore[no-untyped-def]
    resuming,  # type: ignore[no-untyped-def]
) -> None:
    """macOS and Windows have no ``/proc/<pid>/cmdline``: the portable fallback asks psutil
    the command line of each process, and finds what the Linux path finds."""
    monkeypatch.setattr(wftop.core.system.procs, "lists_command_lines", lambda: False)
    session, process, argv = resuming
    asked: list[int] = []
    table = PsutilTable(counting_psutil(asked))
    assert processes_resuming(session, table) == [process.pid]
    assert list(table.argvs_holding(session)) == [(process.pid, argv)]
    assert process.pid in asked
    assert len(set(asked)) > 1  # every process was asked about, not only the one holding it
    assert processes_resuming(session + "x", table) == []
