"""Faults around resume: wftop killed at each state, a misbehaving ``claude``, races, relocation.

``wftop resume`` runs as a real process against a private copy of the ``killed`` tree
with a fake ``claude`` (``--claude``) that records each launch in a file, prints the
CLI's start marker, then exits, hangs, or finishes the run (appends to the journal and
writes a current snapshot) once the test lets it. To kill wftop at an exact state, a
small wrapper runs the real command with a hook that SIGKILLs the process right after
the transition named by ``KILL_AFTER`` is appended to the resume log.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from core.plan import make_plan
from core.procs import ProcFs
from core.resume import relocate as relocate_module
from core.resume.driver import ResumeDriver
from core.resume.errors import RelocationError
from core.resume.launcher import SubprocessLauncher
from core.resume.machine import ResumeState
from core.resume.relocate import relocate_journal
from core.resume.store import ResumeStore
from core.scan import scan_roots
from tests.corpus import copy_tree, only_journal

TOP = Path(__file__).resolve().parent.parent
RUN = "wf_c4e8dc39-03f"
SESSION = "e5c99c64-96da-45a1-841d-2b381f965487"
OLD_CWD = b"/home/dev/work/kill-resume/proj"
WAIT = 60.0

FAKE_CLAUDE = textwrap.dedent(
    """\
    import json, os, sys, time
    if "--version" in sys.argv:
        print("2.1.332 (Claude Code)")
        sys.exit(0)
    with open(os.environ["FAKE_LAUNCHES"], "a") as handle:
        handle.write(f"{os.getpid()}\\n")
    mode = os.environ.get("FAKE_MODE", "complete")
    def forever():
        while True:
            time.sleep(0.05)
    if mode == "silent-hang":
        forever()
    print(json.dumps({"type": "system", "subtype": "task_started"}), flush=True)
    if mode.startswith("exit:"):
        sys.exit(int(mode[5:]))
    if mode == "hang":
        forever()
    go, deadline = os.environ["FAKE_GO"], time.monotonic() + 120
    while not os.path.exists(go) and time.monotonic() < deadline:
        time.sleep(0.02)
    agent = "afake00000000000001"
    with open(os.environ["FAKE_JOURNAL"], "a") as handle:
        for kind in ("started", "result"):
            record = {"type": kind, "key": "v2:fake-a5", "agentId": agent, "label": "a5"}
            handle.write(json.dumps(record) + "\\n")
    with open(os.environ["FAKE_SNAPSHOT"], "w") as handle:
        json.dump({"runId": os.environ["FAKE_RUN"], "status": "completed",
                   "workflowProgress": [{"type": "workflow_agent", "agentId": agent,
                                         "label": "a5", "state": "done"}]},
                  handle)
    """
)

KILL_HOOK = textwrap.dedent(
    """\
    import os, signal, sys
    from core.resume import launcher, store
    target = os.environ["KILL_AFTER"]
    if target == "spawn":
        original_launch = launcher.SubprocessLauncher.launch
        def launch(self, *args, **kwargs):
            result = original_launch(self, *args, **kwargs)
            os.kill(os.getpid(), signal.SIGKILL)
            return result
        launcher.SubprocessLauncher.launch = launch
    else:
        original_append = store.ResumeStore._append
        def append(self, run_id, transition):
            original_append(self, run_id, transition)
            if transition.event is not None and transition.event.value == target:
                os.kill(os.getpid(), signal.SIGKILL)
        store.ResumeStore._append = append
    from tui.cli import main
    sys.exit(main())
    """
)


class World:
    """A resumable copy of the ``killed`` tree, a fake claude and wftop's state dir."""

    def __init__(self, tmp_path: Path) -> None:
        self.base = tmp_path
        self.cwd = tmp_path / "proj"
        self.cwd.mkdir()
        self.root = copy_tree("killed", tmp_path)
        for path in self.root.rglob("*.jsonl"):
            data = path.read_bytes()
            if OLD_CWD in data:
                path.write_bytes(data.replace(OLD_CWD, str(self.cwd).encode()))
        past = time.time() - 600
        for path in self.root.rglob("*"):
            os.utime(path, (past, past), follow_symlinks=False)
        self.journal = only_journal(self.root)
        self.snapshot = self.journal.parents[3] / "workflows" / f"{RUN}.json"
        self.state = tmp_path / "state"
        self.launches = tmp_path / "launches.txt"
        self.go = tmp_path / "go"
        self.claude = tmp_path / "bin" / "claude"
        self.claude.parent.mkdir()
        self.claude.write_text(f"#!{sys.executable}\n{FAKE_CLAUDE}")
        self.claude.chmod(0o755)
        self.hook = tmp_path / "hook.py"
        self.hook.write_text(KILL_HOOK)

    def env(self, mode: str = "complete", **extra: str) -> dict[str, str]:
        return {
            **os.environ,
            "PYTHONPATH": str(TOP),
            "WFTOP_STATE_DIR": str(self.state),
            "FAKE_LAUNCHES": str(self.launches),
            "FAKE_MODE": mode,
            "FAKE_GO": str(self.go),
            "FAKE_JOURNAL": str(self.journal),
            "FAKE_SNAPSHOT": str(self.snapshot),
            "FAKE_RUN": RUN,
            **extra,
        }

    def argv(self, *extra: str, hook: bool = False) -> list[str]:
        head = [sys.executable, str(self.hook)] if hook else [sys.executable, "-m", "tui"]
        return [
            *head, "resume", RUN, "--yes", "--json", "--no-default-root",
            "--root", str(self.root), "--claude", str(self.claude), *extra,
        ]  # fmt: skip

    def resume(self, *extra: str, mode: str = "complete", **env: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            self.argv(*extra, hook="KILL_AFTER" in env),
            cwd=TOP,
            env=self.env(mode, **env),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def finish(self, process: subprocess.Popen[str]) -> tuple[int, list[dict[str, Any]], str]:
        out, err = process.communicate(timeout=WAIT)
        return process.returncode, [json.loads(line) for line in out.splitlines()], err

    def pids(self) -> list[int]:
        if not self.launches.exists():
            return []
        return [int(line) for line in self.launches.read_text().split()]

    def wait_for_launch(self, count: int = 1) -> int:
        deadline = time.monotonic() + WAIT
        while len(self.pids()) < count:
            assert time.monotonic() < deadline, "claude was never launched"
            time.sleep(0.02)
        return self.pids()[count - 1]

    def log(self) -> list[dict[str, Any]]:
        path = self.state / "resume" / f"{RUN}.jsonl"
        return (
            [orjson.loads(line) for line in path.read_bytes().splitlines()] if path.exists() else []
        )

    def last_state(self) -> str:
        return self.log()[-1]["to"]

    def stop_leftovers(self) -> None:
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    made = World(tmp_path)
    try:
        yield made
    finally:
        made.stop_leftovers()


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
    world.go.touch()
    first, second = world.resume(), world.resume()
    results = [world.finish(first), world.finish(second)]
    assert len(world.pids()) == 1
    assert world.last_state() == "completed"
    requests = {line["request"] for line in world.log() if line.get("event") == "spawned"}
    assert len(requests) == 1
    codes = sorted(code for code, _events, _err in results)
    assert codes[0] == 0, results


# -- relocation interrupted ---------------------------------------------------------------------


def sha(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


TARGET_SESSION = "0b2c3d4e-5f60-4718-9a2b-3c4d5e6f7a8b"


def target_dir(world: World) -> Path:
    return world.journal.parents[4] / TARGET_SESSION


def test_relocation_killed_between_copy_and_rename_leaves_no_target(world):
    source_sha = sha(world.journal)
    code = textwrap.dedent(
        f"""\
        import os, signal, sys
        from pathlib import Path
        from core.resume import relocate
        real_rename = os.rename
        def rename(src, dst):
            os.kill(os.getpid(), signal.SIGKILL)
        relocate.os.rename = rename
        relocate.relocate_journal(Path({str(world.journal)!r}), Path({str(target_dir(world))!r}),
                                  {RUN!r}, heal=False)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=TOP, timeout=WAIT, check=False)
    assert done.returncode == -signal.SIGKILL
    run_dir = target_dir(world) / "subagents" / "workflows" / RUN
    assert not (run_dir / "journal.jsonl").exists()
    assert sha(world.journal) == source_sha
    # A retry succeeds, and the leftover temp files do not turn into runs.
    result = relocate_journal(world.journal, target_dir(world), RUN, heal=False)
    assert sha(result.target) == source_sha
    runs = scan_roots([str(world.root)]).runs
    assert sorted(run.session_id for run in runs) == sorted([SESSION, TARGET_SESSION])


def test_relocation_on_a_full_disk_fails_cleanly(world, monkeypatch):
    source_sha = sha(world.journal)
    real_write = os.write
    budget = [world.journal.stat().st_size + 100]  # the snapshot fits, the copy does not

    def write(fd: int, data: bytes) -> int:
        if budget[0] < len(data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        budget[0] -= len(data)
        return real_write(fd, data)

    monkeypatch.setattr(relocate_module.os, "write", write)
    with pytest.raises(RelocationError, match="No space left"):
        relocate_journal(world.journal, target_dir(world), RUN, heal=False)
    run_dir = target_dir(world) / "subagents" / "workflows" / RUN
    assert sorted(path.name for path in run_dir.iterdir()) == []
    assert sha(world.journal) == source_sha


def test_relocation_with_short_writes_copies_every_byte(world, monkeypatch):
    """A write may take fewer bytes than asked (a disk filling up): none may be lost."""
    real_write = os.write
    monkeypatch.setattr(
        relocate_module.os,
        "write",
        lambda fd, data: real_write(fd, bytes(data)[: max(1, len(data) // 3)]),
    )
    result = relocate_journal(world.journal, target_dir(world), RUN, heal=False)
    assert sha(result.target) == sha(world.journal) == result.sha256


def test_resume_with_relocation_on_a_full_disk_ends_launch_failed(world):
    """Through ``wftop resume --strategy relocate``: a clear reason, no traceback, no launch."""
    hook = world.base / "enospc.py"
    hook.write_text(
        textwrap.dedent(
            """\
            import errno, os, sys
            from core.resume import relocate
            def write(fd, data):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            relocate._write_all = write
            from tui.cli import main
            sys.exit(main())
            """
        )
    )
    argv = world.argv("--strategy", "relocate")
    argv[1:3] = [str(hook)]
    done = subprocess.run(
        argv, cwd=TOP, env=world.env(), capture_output=True, text=True, timeout=WAIT, check=False
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert world.pids() == []
    reasons = [line["reason"] for line in world.log()]
    assert any("No space left" in reason for reason in reasons), reasons
    assert world.last_state() in ("launch_failed", "failed", "lost")
