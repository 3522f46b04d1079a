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

from tests.realcli import cli_env, load_script, run_workflow, six_agents

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
        [sys.executable, "-m", "tui", *args],
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
