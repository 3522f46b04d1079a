"""Detached launches through a fake claude, liveness through the process table.

The real CLI taking the same argv: ``tests/e2e/test_realcli_launcher_argv.py``.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.core.test_launcher_argv import SID
from tests.procfs import ProcFs
from wftop.core.resume.errors import LaunchError
from wftop.core.resume.launcher import (
    Launch,
    SubprocessLauncher,
    build_argv,
    read_runner_status,
)
from wftop.core.system.procs import FakeProcess, FakeProcessTable

TOP = Path(__file__).parent.parent.parent

# -- detached launches through a fake claude -------------------------------------------------

FAKE_CLAUDE = textwrap.dedent(
    """\
    import json, os, signal, sys, time
    mode = os.environ.get("FAKE_MODE", "exit:0")
    out = os.environ.get("FAKE_OUT")
    if out:
        with open(out, "w") as handle:
            json.dump({"argv": sys.argv[1:], "cwd": os.getcwd(), "pid": os.getpid(),
                       "sid": os.getsid(0), "pgid": os.getpgid(0)}, handle)
    kind, _, value = mode.partition(":")
    if kind == "stubborn":  # before it says hi: a test that saw hi may stop it at once
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    print("fake claude says hi", flush=True)
    print("to stderr", file=sys.stderr, flush=True)
    if kind == "exit":
        sys.exit(int(value))
    if kind == "signal":
        os.kill(os.getpid(), int(value))
    while True:
        time.sleep(0.05)
    """
)


@pytest.fixture
def fake_claude(tmp_path: Path) -> Path:
    path = tmp_path / "bin" / "claude"
    path.parent.mkdir()
    path.write_text(f"#!{sys.executable}\n{FAKE_CLAUDE}")
    path.chmod(0o755)
    return path


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "proj dir; $(x)"
    folder.mkdir()
    return folder


def start(fake_claude, work, paths, mode, *, prompt="Resume it", out=None):
    env = {**os.environ, "FAKE_MODE": mode, "FAKE_SECRET": "s3cr3t-value"}
    if out is not None:
        env["FAKE_OUT"] = str(out)
    argv = build_argv("resume-owner", str(fake_claude), SID, prompt)
    launcher = SubprocessLauncher(ProcFs())
    return launcher.launch(argv, cwd=work, log_path=paths[0], status_path=paths[1], env=env)


def child_started(paths) -> bool:
    status = read_runner_status(paths[1])
    return status is not None and status.child_pid is not None


def wait_for(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("code", [0, 3])
def test_exit_codes_are_recorded(fake_claude, work, paths, code):
    launch = start(fake_claude, work, paths, f"exit:{code}")
    result = launch.wait(ProcFs(), 10)
    assert (result.state, result.exit_code, result.signal) == ("exited", code, None)
    log = paths[0].read_text()
    assert "fake claude says hi" in log and "to stderr" in log
    assert stat.S_IMODE(paths[0].stat().st_mode) == 0o600
    assert stat.S_IMODE(paths[1].stat().st_mode) == 0o600
    assert "s3cr3t-value" not in paths[1].read_text()
    assert [p.name for p in paths[1].parent.iterdir() if p.name.endswith(".tmp")] == []


def test_argv_reaches_claude_verbatim_without_a_shell(fake_claude, work, paths, tmp_path):
    prompt = "-p --resume x; $(touch pwned) `touch pwned2`\n\"q\" 'q' .."
    out = tmp_path / "seen.json"
    launch = start(fake_claude, work, paths, "exit:0", prompt=prompt, out=out)
    assert launch.wait(ProcFs(), 10).state == "exited"
    seen = json.loads(out.read_text())
    assert seen["argv"] == build_argv("resume-owner", "x", SID, prompt)[1:]
    assert seen["cwd"] == str(work)
    assert not list(work.glob("pwned*")) and not list(tmp_path.glob("pwned*"))


def test_the_command_runs_in_its_own_session_and_group(fake_claude, work, paths, tmp_path):
    out = tmp_path / "seen.json"
    launch = start(fake_claude, work, paths, "exit:0", out=out)
    launch.wait(ProcFs(), 10)
    seen = json.loads(out.read_text())
    assert seen["sid"] == launch.pid != os.getsid(0)
    assert seen["pgid"] == seen["pid"]  # its own group, so stop() spares the runner


def test_killed_by_a_signal(fake_claude, work, paths):
    launch = start(fake_claude, work, paths, f"signal:{int(signal.SIGKILL)}")
    result = launch.wait(ProcFs(), 10)
    assert (result.state, result.exit_code, result.signal) == ("exited", None, signal.SIGKILL)


def test_a_hanging_run_is_stopped_with_sigterm(fake_claude, work, paths):
    launch = start(fake_claude, work, paths, "hang")
    assert wait_for(lambda: child_started(paths))
    assert launch.poll(ProcFs()).state == "running"
    result = launch.stop(ProcFs(), grace=5)
    assert (result.state, result.signal) == ("exited", signal.SIGTERM)


def test_a_stubborn_run_gets_sigkill_after_the_grace(fake_claude, work, paths):
    launch = start(fake_claude, work, paths, "stubborn")
    assert wait_for(lambda: paths[0].exists() and "says hi" in paths[0].read_text())
    started = time.monotonic()
    result = launch.stop(ProcFs(), grace=0.5)
    assert (result.state, result.signal) == ("exited", signal.SIGKILL)
    assert time.monotonic() - started >= 0.5


def test_a_killed_runner_reads_lost(fake_claude, work, paths):
    launch = start(fake_claude, work, paths, "hang")
    assert wait_for(lambda: child_started(paths))
    child = launch.runner_status().child_pid
    try:
        os.kill(launch.pid, signal.SIGKILL)
        assert wait_for(lambda: launch.poll(ProcFs()).state == "lost")
        result = launch.poll(ProcFs())
        assert result.exit_code is None and result.child_alive
    finally:
        os.killpg(child, signal.SIGKILL)
    assert wait_for(lambda: not launch.poll(ProcFs()).child_alive)


def test_reattach_from_the_status_file_after_the_launch_object_is_gone(fake_claude, work, paths):
    launch = start(fake_claude, work, paths, "hang")
    assert wait_for(lambda: child_started(paths))
    pid, proc_start = launch.pid, launch.proc_start
    del launch
    again = Launch.attach(paths[1], paths[0])
    assert (again.pid, again.proc_start) == (pid, proc_start)
    assert again.poll(ProcFs()).state == "running"
    result = again.stop(ProcFs())
    assert (result.state, result.signal) == ("exited", signal.SIGTERM)


LAUNCH_AND_QUIT = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from tests.procfs import ProcFs
    from wftop.core.resume.launcher import SubprocessLauncher
    argv, cwd, log, status = sys.argv[1:2], Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])
    launch = SubprocessLauncher(ProcFs()).launch(argv, cwd=cwd, log_path=log, status_path=status)
    print(launch.pid, flush=True)
    """
)


def test_the_run_survives_the_launcher_quitting(fake_claude, work, paths):
    wftop = subprocess.run(
        [sys.executable, "-c", LAUNCH_AND_QUIT, str(fake_claude), str(work), *map(str, paths)],
        cwd=TOP,
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "FAKE_MODE": "hang"},
    )
    assert wftop.returncode == 0, wftop.stderr
    again = Launch.attach(paths[1], paths[0])
    assert wait_for(lambda: child_started(paths))
    assert again.poll(ProcFs()).state == "running"
    assert again.pid == int(wftop.stdout)  # learnt from the status file
    assert again.stop(ProcFs()).signal == signal.SIGTERM


def test_a_missing_binary_reads_exited_127(work, paths):
    launcher = SubprocessLauncher(ProcFs())
    launch = launcher.launch(
        ["/nonexistent/claude", "-p"], cwd=work, log_path=paths[0], status_path=paths[1]
    )
    result = launch.wait(ProcFs(), 10)
    assert (result.state, result.exit_code) == ("exited", 127)
    assert result.error is not None and "/nonexistent/claude" in result.error


def test_launch_refuses_bad_input(fake_claude, work, paths):
    launcher = SubprocessLauncher(ProcFs())
    with pytest.raises(LaunchError, match="argv"):
        launcher.launch([], cwd=work, log_path=paths[0], status_path=paths[1])
    with pytest.raises(LaunchError, match="not a directory"):
        launcher.launch(["x"], cwd=work / "missing", log_path=paths[0], status_path=paths[1])
    paths[0].write_text("old")
    with pytest.raises(LaunchError, match="already exist"):
        launcher.launch(["x"], cwd=work, log_path=paths[0], status_path=paths[1])


# -- liveness through the ProcessTable seam ---------------------------------------------------


def write_status(path: Path, **values) -> None:
    base = {
        "version": 1,
        "runner_pid": 4000,
        "runner_start": "100",
        "child_pid": 4001,
        "child_start": "101",
        "exit_code": None,
        "signal": None,
        "error": None,
    }
    path.write_text(json.dumps({**base, **values}))


@pytest.mark.parametrize(
    ("processes", "expected"),
    [
        ({4000: "100"}, "running"),
        ({}, "lost"),
        ({4000: "999"}, "lost"),  # the pid now names another process
    ],
)
def test_poll_uses_the_process_table(paths, processes, expected):
    write_status(paths[1])
    table = FakeProcessTable({pid: FakeProcess(start) for pid, start in processes.items()})
    assert Launch.attach(paths[1], paths[0]).poll(table).state == expected


def test_an_exit_status_wins_over_liveness(paths):
    write_status(paths[1], exit_code=5)
    table = FakeProcessTable({4000: FakeProcess("100")})
    result = Launch.attach(paths[1], paths[0]).poll(table)
    assert (result.state, result.exit_code) == ("exited", 5)


def test_lost_says_whether_the_command_still_runs(paths):
    write_status(paths[1])
    table = FakeProcessTable({4001: FakeProcess("101")})
    assert Launch.attach(paths[1], paths[0]).poll(table).child_alive
    table = FakeProcessTable({4001: FakeProcess("555")})
    assert not Launch.attach(paths[1], paths[0]).poll(table).child_alive


def test_attach_without_a_status_file_uses_the_recorded_pid(paths):
    table = FakeProcessTable({4000: FakeProcess("100")})
    assert Launch.attach(paths[1], paths[0], pid=4000, proc_start="100").poll(table).state == (
        "running"
    )
    assert Launch.attach(paths[1], paths[0]).poll(table).state == "lost"
