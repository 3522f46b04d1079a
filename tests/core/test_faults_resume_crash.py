"""Faults around resume: wftop killed at each state, a misbehaving ``claude``, two wftops racing.

``wftop resume`` runs as a real process against a private copy of the ``killed`` tree
with a fake ``claude`` (``--claude``) that records each launch in a file, prints the
CLI's start marker, then exits, hangs, or finishes the run (appends to the journal and
writes a current snapshot) once the test lets it. To kill wftop at an exact state, a
small wrapper runs the real command with a hook that SIGKILLs the process right after
the transition named by ``KILL_AFTER`` is appended to the resume log.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults_kit import RUN, TOP, WAIT, Read, World, world_at
from tests.procfs import ProcFs
from wftop.core.index.coldpass import scan_roots
from wftop.core.resume.driver import ResumeDriver
from wftop.core.resume.launcher import SubprocessLauncher
from wftop.core.resume.machine import ResumeEvent, ResumeState
from wftop.core.resume.plan import make_plan
from wftop.core.resume.records import TransitionDetails
from wftop.core.resume.store import ResumeStore
from wftop.core.system.procs import FakeProcess, FakeProcessTable


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with world_at(tmp_path) as made:
        yield made


def alive(pid: int) -> bool:
    return ProcFs().start_time(pid) is not None


def wait_gone(pid: int) -> None:
    deadline = time.monotonic() + WAIT
    while alive(pid):
        assert time.monotonic() < deadline, f"process {pid} did not end"
        time.sleep(0.02)


# -- wftop killed at each state -----------------------------------------------------------------

KILL_POINTS = [
    # (event after which wftop dies, state it dies in, was claude launched before it died)
    ("begin_preflight", "preflight", False),
    ("user_confirmed", "confirmed", False),
    ("launch", "launching", False),
    ("spawn", "launching", True),
    ("spawned", "launching", True),
    ("started", "running", True),
]


@pytest.mark.parametrize(("event", "state", "launched"), KILL_POINTS)
def test_wftop_killed_at_each_state_finds_the_truth_on_restart(world, event, state, launched):
    first = world.resume(KILL_AFTER=event)
    code, _events, _err = world.finish(first)
    assert code == -signal.SIGKILL
    assert world.last_state() == state
    if launched:
        world.wait_for_launch()
    assert len(world.pids()) == (1 if launched else 0)
    world.go.touch()
    second = world.resume()
    code, events, err = world.finish(second)
    kinds = [event["event"] for event in events]
    if launched or state == "launching":
        assert kinds[0] == "reattached", (events, err)
    stranded = state == "launching" and not launched
    assert len(world.pids()) == (0 if stranded else 1), "a second claude was launched"
    if stranded:
        # wftop died before the process was started: nothing runs, nothing to follow.
        assert world.last_state() == ResumeState.LOST.value, events
        assert code != 0
        third = world.resume()
        code, events, err = world.finish(third)
        assert len(world.pids()) == 1
    assert code == 0, (events, err)
    assert world.last_state() == ResumeState.COMPLETED.value
    assert events[-1]["state"] == "completed"


def test_wftop_killed_while_running_reads_the_outcome_after_claude_exited(world):
    first = world.resume(KILL_AFTER="started")
    assert world.finish(first)[0] == -signal.SIGKILL
    pid = world.wait_for_launch()
    world.go.touch()
    wait_gone(pid)
    code, events, err = world.finish(world.resume())
    assert code == 0, (events, err)
    assert events[0]["event"] == "reattached"
    assert world.last_state() == "completed"
    assert len(world.pids()) == 1


def test_the_text_output_says_each_state_in_words_and_once(world):
    world.go.touch()
    argv = [arg for arg in world.argv() if arg != "--json"]
    done = subprocess.run(
        argv, cwd=TOP, env=world.env(), capture_output=True, text=True, timeout=WAIT
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    # each state in words once: not "completed: completed with exit code 0"
    states = [line for line in lines if line.split(":")[0] in {s.word for s in ResumeState}]
    assert states[-1] == "completed: exit code 0", lines
    assert not any(line.split(":")[0] in line.split(":", 1)[1] for line in states), states
    assert ResumeState.COMPLETED_WITH_FAILURES.word == "completed with failures"
    assert ResumeState.LAUNCH_FAILED.word == "launch failed"


# -- claude misbehaving -------------------------------------------------------------------------


def test_claude_killed_mid_resume_ends_stopped_with_the_signal(world):
    process = world.resume(mode="hang")
    pid = world.wait_for_launch()
    deadline = time.monotonic() + WAIT
    while world.last_state() != "running":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)
    code, events, _err = world.finish(process)
    assert code == 1
    assert world.last_state() == "stopped"
    assert "signal 9" in world.log()[-1]["reason"]


def test_claude_exiting_non_zero_ends_failed_with_the_exit_code(world):
    code, events, _err = world.finish(world.resume(mode="exit:3"))
    assert code == 1
    assert world.last_state() == "failed"
    assert "exited 3" in world.log()[-1]["reason"]
    assert len(world.pids()) == 1


@pytest.mark.parametrize(("mode", "state"), [("hang", "running"), ("silent-hang", "launching")])
def test_claude_hanging_stays_active_until_stopped(world, mode, state):
    code, events, _err = world.finish(world.resume("--timeout", "2", mode=mode))
    assert code == 1 and events[-1]["event"] == "timeout"
    assert world.last_state() == state  # a hang is the user's call, not wftop's
    (pid,) = world.pids()
    assert alive(pid)
    (run,) = scan_roots([str(world.root)]).runs
    plan = make_plan(run, processes=ProcFs(), now=time.time(), claude_bin=str(world.claude))
    store = ResumeStore(world.state)
    driver = ResumeDriver(store, SubprocessLauncher(ProcFs()), ProcFs())
    active = driver.active(RUN)
    assert active is not None
    attempt = driver.attach(plan, active)
    assert attempt is not None
    status = driver.stop(attempt)
    assert status.state is ResumeState.STOPPED
    wait_gone(pid)


def test_two_wftops_resuming_at_the_same_moment_launch_once(world):
    """The claude one launches finishes only once the other follows it: a wftop that began
    after the run had completed would make a request of its own, which the guard refuses
    (the journal grew a moment ago), and the last state would be blocked. Under load the
    second wftop can take that long to start."""
    both = [Read(world.resume()), Read(world.resume())]
    world.wait_for_launch()
    deadline = time.monotonic() + WAIT
    while not any(event["event"] == "reattached" for read in both for event in read.events()):
        assert time.monotonic() < deadline, "neither wftop followed the other's launch"
        time.sleep(0.02)
    world.go.touch()
    results = [read.finish() for read in both]
    assert len(world.pids()) == 1
    assert world.last_state() == "completed"
    requests = {line["request"] for line in world.log() if line.get("event") == "spawned"}
    assert len(requests) == 1
    codes = sorted(code for code, _events, _err in results)
    assert codes[0] == 0, results


def test_a_follower_that_looks_before_the_launch_is_logged_does_not_call_it_lost(world):
    """Two wftops at once: the second follows the first's request before the first has
    logged its process; by the time the follower's verdict is taken under the run's lock,
    the launch is logged and running, so it is followed, not recorded lost."""
    (run,) = scan_roots([str(world.root)]).runs
    table = FakeProcessTable({4000: FakeProcess("100")})
    plan = make_plan(run, processes=table, now=time.time(), claude_bin=str(world.claude))
    store = ResumeStore(world.state)
    request = store.begin_request(RUN, reason="user asked").request
    for event in (ResumeEvent.BEGIN_PREFLIGHT, ResumeEvent.USER_CONFIRMED, ResumeEvent.LAUNCH):
        store.record(RUN, request, event, reason="the first wftop")
    follower = ResumeDriver(store, SubprocessLauncher(table), table)
    active = follower.active(RUN)
    assert active is not None
    attempt = follower.attach(plan, active)
    assert attempt is not None and attempt.launch.pid is None
    store.record(
        RUN,
        request,
        ResumeEvent.SPAWNED,
        reason="process started",
        details=TransitionDetails(pid=4000, proc_start="100"),
    )
    status, _misses = follower.step(attempt)
    assert status is None
    latest = store.status(RUN, request)
    assert latest is not None and latest.state is ResumeState.LAUNCHING
    del table.processes[4000]
    status, _misses = follower.step(attempt)
    assert status is not None and status.state is ResumeState.LOST
