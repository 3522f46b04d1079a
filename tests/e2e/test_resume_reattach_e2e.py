"""End to end: ``wftop resume`` killed while ``claude`` runs, then run again after it exited.

The second ``wftop resume`` re-attaches to the launch the first one made. What it reports must
be what that launch did, judged against the forecast it was launched with: the calls that ran
live, what they cost, no cache misses, the outcome, and with ``--stop-on-miss`` nothing stopped.
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

from tests.e2e.test_resume_e2e import damaged_run, resume, resume_args, resume_env
from tests.realcli import read_journal, six_agents
from wftop.core.cost.runs import agents_spend
from wftop.core.resume.launcher import read_runner_status

pytestmark = pytest.mark.realcli


def start_resume(env: dict[str, str], claude_bin: str, run_id: str, root: str):
    return subprocess.Popen(
        [sys.executable, "-m", "wftop.cli", *resume_args(claude_bin, run_id, root)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def wait_for(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def runner_status(state: Path, run_id: str):
    found = sorted((state / "launches" / run_id).glob("*.status.json"))
    return read_runner_status(found[-1]) if found else None


@pytest.mark.parametrize("extra", [(), ("--stop-on-miss",)], ids=["plain", "stop-on-miss"])
def test_resume_killed_while_claude_runs_reattaches_after_it_exited(
    claude_bin, mock_api, cli_home, tmp_path, extra
):
    agents = six_agents(a5={"delay_s": [120.0, 3.0]})
    killed = damaged_run(claude_bin, mock_api, cli_home, "six.js", agents, kill=("a5", 1))
    env, root = resume_env(cli_home, mock_api, tmp_path), str(cli_home.config_dir)
    state = Path(env["WFTOP_STATE_DIR"])
    mark = mock_api.mark()
    first = start_resume(env, claude_bin, killed.run_id, root)
    try:
        assert mock_api.wait_for_agent("a5", 2, timeout=90.0), "the resume never reached a5"
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.communicate(timeout=30)
    wait_for(
        lambda: (status := runner_status(state, killed.run_id)) is not None and status.ended,
        120.0,
        "claude to exit",
    )
    again = resume(env, claude_bin, killed.run_id, root, *extra)
    events = [json.loads(line) for line in again.stdout.splitlines()]
    assert events[0]["event"] == "reattached", events
    done = events[-1]
    assert done["event"] == "done", events
    assert done["state"] == "completed", events
    assert done["misses"] == [], events
    assert sorted(done["live"]) == ["a5", "a6"], events
    assert not [e for e in events if e["event"] == "cache_miss"], events
    assert again.returncode == 0, again.stdout + again.stderr
    assert sorted(mock_api.live_agents(since=mark)) == ["a5", "a6"]
    started = [line for line in read_journal(killed.journal_path) if line["type"] == "started"]
    resumed = [line["agentId"] for line in started if line["label"] in ("a5", "a6")][-2:]
    spent = agents_spend(str(killed.run_dir), resumed).cost_usd
    assert spent and done["cost_usd"] == pytest.approx(spent, abs=1e-6), events
