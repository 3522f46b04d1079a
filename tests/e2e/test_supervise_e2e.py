"""End to end: ``wftop supervise`` over runs the real CLI left, resuming them against the mock.

The run of most tests is ``eight.js`` with b2 refused by 429 until the CLI gave up (3 tries):
it completes partial, its cause ``rate_limited``; the mock answers b2 from its fourth try on.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.test_resume_e2e import RETRIES, age_tree, damaged_run, resume_env, wftop
from tests.realcli import eight_agents, six_agents

pytestmark = pytest.mark.realcli

EIGHT = {**RETRIES, "CLAUDE_CODE_WORKFLOW_MAX_CONCURRENT_AGENTS": "8"}


def rate_limited(claude_bin, mock_api, cli_home, tmp_path, **b2):
    agents = eight_agents(b2={"errors": [429, 429, 429], **b2})
    run = damaged_run(claude_bin, mock_api, cli_home, "eight.js", agents, env_extra=EIGHT)
    env = {**resume_env(cli_home, mock_api, tmp_path), **EIGHT}
    return run, env


def supervise_argv(root: Path, claude_bin: str, *args: str) -> list[str]:
    return ["supervise", "--no-default-root", "--root", str(root), "--claude", claude_bin, *args]


def supervise(env, cli_home, claude_bin, *args: str) -> subprocess.CompletedProcess[str]:
    return wftop(env, *supervise_argv(cli_home.config_dir, claude_bin, *args), timeout=300)


def start(env, argv: list[str], **options) -> subprocess.Popen:
    """``wftop <argv>`` started, its output piped."""
    return subprocess.Popen(
        [sys.executable, "-m", "wftop.cli", *argv],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **options,
    )


def audit(env) -> list[dict]:
    done = wftop(env, "supervise", "--log", "--json")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def resumes(mock_api, since: int) -> int:
    return sum(1 for r in mock_api.requests[since:] if str(r.get("kind")).startswith("main_resume"))


def test_a_rate_limited_run_is_resumed_once_and_a_second_pass_does_nothing(
    claude_bin, mock_api, cli_home, tmp_path
):
    run, env = rate_limited(claude_bin, mock_api, cli_home, tmp_path)
    listing = json.loads(
        wftop(env, "ls", "--json", "--no-default-root", "--root", str(cli_home.config_dir)).stdout
    )
    assert [row["status"] for row in listing] == ["completed"] and listing[0]["failed_calls"]
    mark = mock_api.mark()
    later = supervise(env, cli_home, claude_bin, "--dry-run", "--all", "--max-usd", "1")
    (line,) = later.stdout.splitlines()
    assert "would wait: rate_limited: backoff before resume 1 of 2 · until 20" in line, line
    now = supervise(
        env, cli_home, claude_bin, "--dry-run", "--all", "--max-usd", "1", "--backoff", "0"
    )
    assert now.stdout.startswith(f"{run.run_id}  would launch: stopped by rate_limited")
    assert mock_api.mark() == mark and not Path(env["WFTOP_STATE_DIR"], "supervise").exists()
    done = supervise(
        env, cli_home, claude_bin, "--once", "--all", "--max-usd", "1", "--backoff", "0"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert mock_api.live_agents(since=mark) == ["b2"]
    lines = audit(env)
    assert [line["decision"] for line in lines] == ["considered", "launched", "finished"]
    assert {line["cause"] for line in lines} == {"rate_limited"}
    assert lines[-1]["reason"].startswith("completed: ")
    assert lines[-1]["cost_usd"] > 0 and lines[1]["forecast_usd"]["high"] is not None
    assert lines[-1]["cost_usd"] <= lines[1]["forecast_usd"]["high"] + 1e-9
    listing = json.loads(
        wftop(env, "ls", "--json", "--no-default-root", "--root", str(cli_home.config_dir)).stdout
    )
    assert sorted(row["status"] for row in listing) == ["completed", "superseded"]
    again = mock_api.mark()
    second = supervise(
        env, cli_home, claude_bin, "--once", "--all", "--max-usd", "1", "--backoff", "0"
    )
    assert second.returncode == 0, second.stdout + second.stderr
    assert mock_api.mark() == again and audit(env) == lines


def test_a_cap_below_the_forecast_launches_nothing_and_says_why(
    claude_bin, mock_api, cli_home, tmp_path
):
    run, env = rate_limited(claude_bin, mock_api, cli_home, tmp_path)
    mark = mock_api.mark()
    done = supervise(
        env,
        cli_home,
        claude_bin,
        "--once",
        "--run",
        run.run_id,
        "--max-usd",
        "0.00001",
        "--backoff",
        "0",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert resumes(mock_api, mark) == 0 and mock_api.live_agents(since=mark) == []
    refused = audit(env)[-1]
    assert refused["decision"] == "refused" and refused["cap_usd"] == 0.00001
    assert "above the budget of < $0.0001 (--max-usd)" in refused["reason"], refused
    assert not (Path(env["WFTOP_STATE_DIR"]) / "launches").exists()


def test_without_a_cap_nothing_launches_and_a_person_is_told(
    claude_bin, mock_api, cli_home, tmp_path
):
    run, env = rate_limited(claude_bin, mock_api, cli_home, tmp_path)
    mark = mock_api.mark()
    done = supervise(env, cli_home, claude_bin, "--once", "--run", run.run_id, "--backoff", "0")
    assert done.returncode == 0, done.stdout + done.stderr
    assert resumes(mock_api, mark) == 0
    (note,) = [line for line in done.stderr.splitlines() if "notify:" in line]
    assert f"{run.run_id} refused: no cap (--max-usd" in note and "forecast $" in note
    assert audit(env)[-1]["decision"] == "refused"


def test_a_live_owner_keeps_the_supervisor_away(claude_bin, mock_api, cli_home, tmp_path):
    from tests.procfs import ProcFs

    run, env = rate_limited(claude_bin, mock_api, cli_home, tmp_path)
    registry = cli_home.config_dir / "sessions"
    registry.mkdir(exist_ok=True)
    me = os.getpid()
    entry = {"pid": me, "sessionId": run.session_id, "procStart": ProcFs().start_time(me)}
    (registry / f"{me}.json").write_text(json.dumps(entry))
    mark = mock_api.mark()
    done = supervise(
        env, cli_home, claude_bin, "--once", "--all", "--max-usd", "1", "--backoff", "0"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert resumes(mock_api, mark) == 0
    waiting = audit(env)[-1]
    assert waiting["decision"] == "waiting" and f"live owner: pid {me}" in waiting["reason"]


def test_a_killed_run_is_only_notified(claude_bin, mock_api, cli_home, tmp_path):
    agents = six_agents(a5={"delay_s": [120.0, 0.1]})
    killed = damaged_run(claude_bin, mock_api, cli_home, "six.js", agents, kill=("a5", 1))
    env = resume_env(cli_home, mock_api, tmp_path)
    mark = mock_api.mark()
    done = supervise(env, cli_home, claude_bin, "--once", "--all", "--max-usd", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert mock_api.mark() == mark
    lines = audit(env)
    assert [line["decision"] for line in lines] == ["considered", "refused"]
    assert lines[-1]["cause"] == "clean_or_unknown"  # nothing recorded why: killed or crashed
    assert "not a cause it clears by itself" in lines[-1]["reason"]
    assert f"{killed.run_id} refused: stopped by clean_or_unknown" in done.stderr


def test_a_failure_that_keeps_coming_back_gets_two_resumes_then_the_supervisor_stops(
    claude_bin, mock_api, cli_home, tmp_path
):
    run, env = rate_limited(claude_bin, mock_api, cli_home, tmp_path, errors_forever=429)
    mark = mock_api.mark()
    args = ("--once", "--all", "--max-usd", "1", "--backoff", "0")
    codes = []
    for _ in range(3):
        codes.append(supervise(env, cli_home, claude_bin, *args).returncode)
        age_tree(cli_home.config_dir, 120)  # past the guard's quiet time
    assert codes == [1, 1, 0]
    assert resumes(mock_api, mark) == 2
    words = [line["decision"] for line in audit(env)]
    assert words == [*(["considered", "launched", "finished"] * 2), "considered", "refused"]
    last = audit(env)[-1]
    assert last["reason"].startswith("2 of 2 resumes for rate_limited used")


def test_a_supervisor_killed_during_its_launch_is_followed_by_one_launch_in_all(
    claude_bin, mock_api, cli_home, tmp_path
):
    run, env = rate_limited(claude_bin, mock_api, cli_home, tmp_path, delay_s=[0.3, 0.3, 0.3, 6.0])
    mark = mock_api.mark()
    argv = supervise_argv(
        cli_home.config_dir, claude_bin, "--once", "--all", "--max-usd", "1", "--backoff", "0"
    )
    first = start(env, argv, start_new_session=True)
    try:
        assert mock_api.wait_for_agent("b2", 4, timeout=120.0), "the supervisor never launched"
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.communicate(timeout=30)
    done = supervise(
        env, cli_home, claude_bin, "--once", "--all", "--max-usd", "1", "--backoff", "0"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert resumes(mock_api, mark) == 1
    assert mock_api.live_agents(since=mark) == ["b2"]
    lines = audit(env)
    assert [line["decision"] for line in lines] == ["considered", "launched", "finished"]
    assert lines[-1]["reason"].startswith("completed: ")
    third = supervise(env, cli_home, claude_bin, "--once", "--all", "--max-usd", "1")
    assert third.returncode == 0 and resumes(mock_api, mark) == 1


def test_another_supervisor_holding_the_lock_is_said_in_one_line(
    claude_bin, mock_api, cli_home, tmp_path
):
    from wftop.core.supervise.state import SuperviseStore, holder_line

    run, env = rate_limited(claude_bin, mock_api, cli_home, tmp_path)
    held = SuperviseStore(Path(env["WFTOP_STATE_DIR"])).lock(holder_line(os.getpid(), "1"))
    try:
        mark = mock_api.mark()
        done = supervise(env, cli_home, claude_bin, "--once", "--all", "--max-usd", "1")
    finally:
        held.release()
    assert done.returncode == 75 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert "another supervisor holds" in line and f"pid {os.getpid()}" in line
    assert mock_api.mark() == mark


async def test_the_tuis_r_and_the_supervisor_at_the_same_moment_launch_once(
    claude_bin, mock_api, cli_home, tmp_path
):
    from tests.e2e.test_realcli_plan_live import open_plan, until
    from tests.tui_kit import finished
    from wftop.core.config import Config
    from wftop.core.resume.policy import ResumePolicy
    from wftop.core.resume.store import ResumeStore
    from wftop.core.system.procs import default_table
    from wftop.tui.start import make_app

    run, env = rate_limited(claude_bin, mock_api, cli_home, tmp_path, delay_s=[0.3, 0.3, 0.3, 3.0])
    state = Path(env["WFTOP_STATE_DIR"])
    table = default_table()
    policy = ResumePolicy(
        processes=table,
        clock=time.time,
        store=ResumeStore(state),
        claude_bin=claude_bin,
        environ=env,
    )
    app = make_app(
        [str(cli_home.config_dir)],
        config=Config(bell=False),
        processes=table,
        live=False,
        policy=lambda: policy,
    )
    mark = mock_api.mark()
    argv = supervise_argv(
        cli_home.config_dir,
        claude_bin,
        "--once",
        "--run",
        run.run_id,
        "--max-usd",
        "1",
        "--backoff",
        "0",
    )
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_plan(pilot)
        supervisor = start(env, argv, text=True)
        audit_path = state / "supervise" / "audit.jsonl"
        await until(
            pilot, lambda: audit_path.exists() and "considered" in audit_path.read_text(), 60
        )
        await pilot.press("enter")
        out, err = supervisor.communicate(timeout=240)
        await until(pilot, lambda: not screen.busy and mock_api.live_agents(since=mark), 120)
        await pilot.pause(1.0)
        await finished(app)
    assert supervisor.returncode == 0, out + err
    assert resumes(mock_api, mark) == 1
    assert mock_api.live_agents(since=mark) == ["b2"]
    log = [
        json.loads(line)
        for line in (state / "resume" / f"{run.run_id}.jsonl").read_text().splitlines()
    ]
    assert len([line for line in log if line.get("event") == "spawned"]) == 1


def test_a_supervisor_that_runs_on_resumes_and_stops_at_off(
    claude_bin, mock_api, cli_home, tmp_path
):
    run, env = rate_limited(claude_bin, mock_api, cli_home, tmp_path)
    argv = supervise_argv(
        cli_home.config_dir, claude_bin, "--all", "--max-usd", "1", "--backoff", "0"
    )
    mark = mock_api.mark()
    running = start(env, argv, text=True)
    try:
        deadline = time.monotonic() + 120
        while not [line for line in audit(env) if line["decision"] == "finished"]:
            assert time.monotonic() < deadline and running.poll() is None
            time.sleep(0.5)
        status = wftop(env, "supervise", "--status").stdout.splitlines()
        assert status[0] == (
            f"supervisor  running (pid {running.pid}) watching every run "
            "· cap $1.00 a run · 2 resumes a failure"
        )
        off = wftop(env, "supervise", "--off")
        assert off.stdout.strip() == (
            f"supervision off: 0 auto marks taken off; stopped the supervisor (pid {running.pid})"
        )
        out, err = running.communicate(timeout=30)
    finally:
        if running.poll() is None:
            running.kill()
    assert running.returncode == 0, err
    assert [json.loads(line)["decision"] for line in out.splitlines() if line.startswith("{")] == []
    assert "  launched    " in out and "wftop supervise: stopped" in err
    assert resumes(mock_api, mark) == 1
    after = wftop(env, "supervise", "--status").stdout.splitlines()[0]
    assert after.startswith("supervisor  not running · switched off at 20")


def test_on_another_host_the_run_is_resumed_where_it_lives(
    claude_bin, mock_api, cli_home, tmp_path, ssh_hosts
):
    from tests.e2e.test_remote_resume import HOST_KEYS
    from wftop.mockapi.cliproc import cli_env

    run, _env = rate_limited(claude_bin, mock_api, cli_home, tmp_path)
    host_env = cli_env(cli_home, mock_api.url)
    extra = {key: host_env[key] for key in HOST_KEYS} | EIGHT | {"WFTOP_CLAUDE": claude_bin}
    gamma = ssh_hosts.add("gamma", home=cli_home.home, extra=extra)
    here = {**os.environ, **ssh_hosts.env, "WFTOP_STATE_DIR": str(tmp_path / "here")}
    mark = mock_api.mark()
    done = wftop(here, "supervise", "--host", "gamma", "--once", "--all", "--max-usd", "1",
                 "--backoff", "0", timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert mock_api.live_agents(since=mark) == ["b2"]
    lines = done.stdout.splitlines()
    assert [line.split()[3] for line in lines] == ["considered", "launched", "finished"]
    assert all(line.startswith("gamma  20") and run.run_id in line for line in lines)
    there = gamma.home / "state" / "supervise" / "audit.jsonl"
    assert len(there.read_text().splitlines()) == 3
    assert not (tmp_path / "here").exists()
    log = wftop(here, "supervise", "--host", "gamma", "--log", "--json")
    assert [json.loads(line)["host"] for line in log.stdout.splitlines()] == ["gamma"] * 3
