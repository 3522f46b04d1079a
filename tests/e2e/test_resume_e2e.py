"""End to end: kill a real run, `wftop resume --yes`, and check the mock's request log.

Exactly the forecast's live calls must reach the mock; the cached ones must not.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.realcli import SIX_AGENTS, cli_env, load_script, read_journal, run_workflow, six_agents

pytestmark = pytest.mark.realcli

HANG = {"delay_s": 120.0}


def age_tree(root: Path, seconds: float = 300.0) -> None:
    """Make a killed run look quiet for longer than the guard's 60 s."""
    past = time.time() - seconds
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, (past, past))


def wftop(
    env: dict[str, str], *args: str, timeout: float = 180.0
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wftop.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def resume_env(cli_home, mock_api, tmp_path: Path) -> dict[str, str]:
    env = cli_env(cli_home, mock_api.url)
    env["WFTOP_STATE_DIR"] = str(tmp_path / "state")
    return env


def plan_of(env, claude_bin, run_id, root, *extra):
    done = wftop(
        env,
        "resume",
        run_id,
        "--dry-run",
        "--json",
        "--no-default-root",
        "--root",
        root,
        "--claude",
        claude_bin,
        *extra,
    )
    assert done.returncode in (0, 3), done.stderr
    return json.loads(done.stdout)


def test_killed_run_resumes_running_only_the_forecast_live_calls(
    claude_bin, mock_api, cli_home, tmp_path
):
    agents = six_agents(a5={"delay_s": [120.0, 0.1]})
    killed = run_workflow(
        claude_bin, mock_api, cli_home, load_script("six.js"), agents, kill_when_agent=("a5", 1)
    )
    assert killed.killed
    age_tree(cli_home.config_dir)
    env = resume_env(cli_home, mock_api, tmp_path)
    root = str(cli_home.config_dir)
    plan = plan_of(env, claude_bin, killed.run_id, root)
    assert plan["guard"] == "ok"
    assert plan["strategy"] == "resume-owner"
    assert plan["forecast"]["live"] == ["a5"] and plan["forecast"]["more_live"]
    mark = mock_api.mark()
    done = wftop(
        env,
        "resume",
        killed.run_id,
        "--yes",
        "--json",
        "--no-default-root",
        "--root",
        root,
        "--claude",
        claude_bin,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    live = mock_api.live_agents(since=mark)
    assert sorted(live) == ["a5", "a6"]
    assert not set(live) & set(plan["forecast"]["cached"])
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[-1]["state"] == "completed"
    listing = json.loads(wftop(env, "ls", "--json", "--no-default-root", "--root", root).stdout)
    assert [row["status"] for row in listing] == ["completed"]


def resume_args(claude_bin, run_id, root, *extra) -> list[str]:
    """``wftop resume RUN --yes --json`` over one root, with the given claude."""
    return [
        "resume",
        run_id,
        "--yes",
        "--json",
        "--no-default-root",
        "--root",
        root,
        "--claude",
        claude_bin,
        *extra,
    ]


def resume(env, claude_bin, run_id, root, *extra):
    return wftop(env, *resume_args(claude_bin, run_id, root, *extra))


def damaged_run(claude_bin, mock_api, cli_home, script, agents, kill=None, env_extra=None):
    run = run_workflow(
        claude_bin,
        mock_api,
        cli_home,
        load_script(script),
        agents,
        kill_when_agent=kill,
        env_extra=env_extra,
    )
    age_tree(cli_home.config_dir)
    return run


def test_run_killed_inside_parallel_replays_its_finished_siblings(
    claude_bin, mock_api, cli_home, tmp_path
):
    agents = six_agents(a3={"delay_s": [120.0, 0.1]})
    killed = damaged_run(claude_bin, mock_api, cli_home, "six.js", agents, kill=("a3", 1))
    env, root = resume_env(cli_home, mock_api, tmp_path), str(cli_home.config_dir)
    forecast = plan_of(env, claude_bin, killed.run_id, root)["forecast"]
    assert "a3" in forecast["live"] and "a1" in forecast["cached"] and forecast["more_live"]
    seen = {line.get("label") for line in read_journal(killed.journal_path)}
    never_started = set(SIX_AGENTS) - seen
    mark = mock_api.mark()
    done = resume(env, claude_bin, killed.run_id, root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(mock_api.live_agents(since=mark)) == sorted({*forecast["live"], *never_started})


RETRIES = {"CLAUDE_CODE_MAX_RETRIES": "2"}


def test_mid_run_failure_resumed_as_the_cli_does_reruns_what_the_forecast_says(
    claude_bin, mock_api, cli_home, tmp_path
):
    agents = six_agents(a3={"errors": [429, 429, 429]})
    failed = damaged_run(claude_bin, mock_api, cli_home, "six.js", agents, env_extra=RETRIES)
    env, root = resume_env(cli_home, mock_api, tmp_path), str(cli_home.config_dir)
    plan = plan_of(env, claude_bin, failed.run_id, root)
    assert plan["recommended"] == plan["strategy"] == "surgical"
    plan = plan_of(env, claude_bin, failed.run_id, root, "--strategy", "resume-owner")
    assert plan["forecast"]["live"] == ["a3", "a4", "a5", "a6"]
    assert plan["forecast"]["rerun"] == ["a4", "a5", "a6"]
    mark = mock_api.mark()
    done = resume(env, claude_bin, failed.run_id, root, "--strategy", "resume-owner")
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(mock_api.live_agents(since=mark)) == ["a3", "a4", "a5", "a6"]


def test_mid_run_failure_resumed_surgically_reruns_only_what_must(
    claude_bin, mock_api, cli_home, tmp_path
):
    agents = six_agents(a3={"errors": [429, 429, 429]})
    failed = damaged_run(claude_bin, mock_api, cli_home, "six.js", agents, env_extra=RETRIES)
    env, root = resume_env(cli_home, mock_api, tmp_path), str(cli_home.config_dir)
    before = failed.journal_path.read_bytes()
    plan = plan_of(env, claude_bin, failed.run_id, root, "--strategy", "surgical")
    assert plan["forecast"]["live"] == ["a3", "a5", "a6"]
    mark = mock_api.mark()
    done = resume(env, claude_bin, failed.run_id, root, "--strategy", "surgical")
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(mock_api.live_agents(since=mark)) == ["a3", "a5", "a6"]
    assert failed.journal_path.read_bytes() == before
    listing = json.loads(wftop(env, "ls", "--json", "--no-default-root", "--root", root).stdout)
    by_session = {row["session_id"]: row["status"] for row in listing}
    new_session = json.loads(done.stdout.splitlines()[-1])["session_id"]
    assert by_session == {failed.session_id: "superseded", new_session: "completed"}


def test_fan_out_failure_resumed_surgically_runs_the_failed_call_alone(
    claude_bin, mock_api, cli_home, tmp_path
):
    from tests.realcli import eight_agents

    agents = eight_agents(b2={"errors": [429, 429, 429]})
    env_extra = {**RETRIES, "CLAUDE_CODE_WORKFLOW_MAX_CONCURRENT_AGENTS": "8"}
    failed = damaged_run(claude_bin, mock_api, cli_home, "eight.js", agents, env_extra=env_extra)
    env = {**resume_env(cli_home, mock_api, tmp_path), **env_extra}
    root = str(cli_home.config_dir)
    before = failed.journal_path.read_bytes()
    plan = plan_of(env, claude_bin, failed.run_id, root, "--strategy", "surgical")
    owner = plan["forecasts"]["resume-owner"]
    assert owner["live"] == ["b2", "b3", "b4", "b5", "b6", "b7", "b8", "c1"]
    assert len(owner["rerun"]) == 7
    assert plan["forecast"]["live"] == ["b2"]
    mark = mock_api.mark()
    done = resume(env, claude_bin, failed.run_id, root, "--strategy", "surgical")
    assert done.returncode == 0, done.stdout + done.stderr
    assert mock_api.live_agents(since=mark) == ["b2"]
    assert failed.journal_path.read_bytes() == before


def test_deleted_session_transcript_moves_the_run_to_a_new_session(
    claude_bin, mock_api, cli_home, tmp_path
):
    agents = six_agents(a5={"delay_s": [120.0, 0.1]})
    killed = damaged_run(claude_bin, mock_api, cli_home, "six.js", agents, kill=("a5", 1))
    transcript = killed.session_dir.parent / f"{killed.session_id}.jsonl"
    cwd = json.loads(transcript.read_text().splitlines()[2])["cwd"]
    transcript.unlink()
    env, root = resume_env(cli_home, mock_api, tmp_path), str(cli_home.config_dir)
    plan = plan_of(env, claude_bin, killed.run_id, root)
    assert plan["strategy"] == "relocate"
    assert "transcript_missing" in [hazard["code"] for hazard in plan["hazards"]]
    assert plan["cwd"] == cwd
    assert plan["guard"] == "ok"
    mark = mock_api.mark()
    done = resume(env, claude_bin, killed.run_id, root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(mock_api.live_agents(since=mark)) == ["a5", "a6"]


def test_live_owner_is_refused_and_nothing_is_launched(claude_bin, mock_api, cli_home, tmp_path):
    from tests.procfs import ProcFs

    agents = six_agents(a5={"delay_s": [120.0, 0.1]})
    killed = damaged_run(claude_bin, mock_api, cli_home, "six.js", agents, kill=("a5", 1))
    registry = cli_home.config_dir / "sessions"
    registry.mkdir(exist_ok=True)
    me = os.getpid()
    entry = {"pid": me, "sessionId": killed.session_id, "procStart": ProcFs().start_time(me)}
    (registry / f"{me}.json").write_text(json.dumps(entry))
    env, root = resume_env(cli_home, mock_api, tmp_path), str(cli_home.config_dir)
    mark = mock_api.mark()
    done = resume(env, claude_bin, killed.run_id, root)
    assert done.returncode == 3
    assert f"live owner: pid {me}" in done.stdout
    assert mock_api.requests[mark:] == []


def test_a_second_wftop_reattaches_to_the_running_resume_instead_of_launching_again(
    claude_bin, mock_api, cli_home, tmp_path
):
    agents = six_agents(a5={"delay_s": [120.0, 6.0]})
    killed = damaged_run(claude_bin, mock_api, cli_home, "six.js", agents, kill=("a5", 1))
    env, root = resume_env(cli_home, mock_api, tmp_path), str(cli_home.config_dir)
    mark = mock_api.mark()
    first = resume(env, claude_bin, killed.run_id, root, "--timeout", "2")
    assert first.returncode == 1
    assert json.loads(first.stdout.splitlines()[-1])["event"] == "timeout"
    second = resume(env, claude_bin, killed.run_id, root)
    events = [json.loads(line) for line in second.stdout.splitlines()]
    assert events[0]["event"] == "reattached"
    assert second.returncode == 0, second.stdout + second.stderr
    assert sorted(mock_api.live_agents(since=mark)) == ["a5", "a6"]
    resumes = [r for r in mock_api.requests[mark:] if str(r.get("kind")).startswith("main_resume")]
    assert len(resumes) == 1, "one launch only"


def test_fresh_relaunch_runs_every_call_again_in_a_new_session(
    claude_bin, mock_api, cli_home, tmp_path
):
    agents = six_agents(a5={"delay_s": [120.0, 0.1]})
    killed = damaged_run(claude_bin, mock_api, cli_home, "six.js", agents, kill=("a5", 1))
    env, root = resume_env(cli_home, mock_api, tmp_path), str(cli_home.config_dir)
    plan = plan_of(env, claude_bin, killed.run_id, root, "--strategy", "fresh")
    assert plan["guard"] == "ok" and plan["session_id"] != killed.session_id
    assert "resumeFromRunId" not in plan["argv"][-1]
    assert plan["forecast"]["cached"] == []
    mark = mock_api.mark()
    done = resume(env, claude_bin, killed.run_id, root, "--strategy", "fresh")
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(mock_api.live_agents(since=mark)) == list(SIX_AGENTS)
    last = json.loads(done.stdout.splitlines()[-1])
    assert last["run_id"] != killed.run_id and last["cached"] == []
    listing = json.loads(wftop(env, "ls", "--json", "--no-default-root", "--root", root).stdout)
    statuses = {row["run_id"]: row["status"] for row in listing}
    assert statuses == {killed.run_id: "dead", last["run_id"]: "completed"}


def test_the_stream_reports_the_calls_the_cli_served_from_cache(
    claude_bin, mock_api, cli_home, tmp_path
):
    agents = six_agents(a5={"delay_s": [120.0, 0.1]})
    killed = damaged_run(claude_bin, mock_api, cli_home, "six.js", agents, kill=("a5", 1))
    env, root = resume_env(cli_home, mock_api, tmp_path), str(cli_home.config_dir)
    forecast = plan_of(env, claude_bin, killed.run_id, root)["forecast"]
    done = resume(env, claude_bin, killed.run_id, root)
    assert done.returncode == 0, done.stdout + done.stderr
    last = json.loads(done.stdout.splitlines()[-1])
    assert sorted(last["cached"]) == sorted(forecast["cached"])
    assert last["misses"] == []


def test_tripwire_fires_when_a_call_forecast_as_cached_runs_live(
    claude_bin, mock_api, cli_home, tmp_path
):
    """Editing a finished call's prompt after the forecast changes its key: the CLI re-runs it."""
    agents = six_agents(a5={"delay_s": [120.0, 0.1]}, a2={"delay_s": [0.1, 30.0]})
    killed = damaged_run(claude_bin, mock_api, cli_home, "six.js", agents, kill=("a5", 1))
    env, root = resume_env(cli_home, mock_api, tmp_path), str(cli_home.config_dir)
    assert "a2" in plan_of(env, claude_bin, killed.run_id, root)["forecast"]["cached"]
    script = Path(killed.script_path)
    script.write_text(script.read_text().replace("Part two.", "Part two, edited."))
    done = resume(env, claude_bin, killed.run_id, root, "--force", "--stop-on-miss")
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert {"event": "cache_miss", "label": "a2"} in events
    assert events[-1].get("state") == "stopped", events
    assert done.returncode == 1


def test_owner_session_that_cannot_be_resumed_falls_back_to_relocate(
    claude_bin, mock_api, cli_home, tmp_path
):
    agents = six_agents(a5={"delay_s": [120.0, 0.1]})
    killed = damaged_run(claude_bin, mock_api, cli_home, "six.js", agents, kill=("a5", 1))
    (killed.session_dir.parent / f"{killed.session_id}.jsonl").unlink()
    env, root = resume_env(cli_home, mock_api, tmp_path), str(cli_home.config_dir)
    mark = mock_api.mark()
    done = resume(env, claude_bin, killed.run_id, root, "--strategy", "resume-owner")
    events = [json.loads(line) for line in done.stdout.splitlines()]
    states = [(e["state"], e["reason"]) for e in events if e["event"] == "state"]
    assert states[0][0] == "launch_failed"
    assert "No conversation found with session ID" in states[0][1]
    assert states[-1][0] == "completed"
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(mock_api.live_agents(since=mark)) == ["a5", "a6"]
    assert events[-1]["session_id"] != killed.session_id
