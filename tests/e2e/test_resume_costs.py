"""What a resume really cost lies inside what its plan forecast, with the real CLI.

A run of six.js by the real CLI against the mock, each agent answering with a usage of its own,
is killed while a5 is in flight; then for each strategy the plan's forecast (``resume
--dry-run --json``, and with ``--exact`` the rehearsal's) is held against what the real resume
spent (``resume --yes --json``'s ``done`` event, read from the new transcripts). a5 and a6
answer as a2 does: the run's median call, which is what the estimate says a call that has not
returned will cost.
"""

from __future__ import annotations

import json

import pytest

from tests.e2e.test_rehearsal import wftop
from tests.make_costs import usage
from tests.realcli import load_script, run_workflow, six_agents
from wftop.mockapi.cliproc import cli_env
from wftop.mockapi.scenario import age_tree

pytestmark = pytest.mark.realcli

MEDIAN = usage(800, 95, read=15000, five=2000)
USAGE = {
    "a1": usage(120, 34),
    "a2": MEDIAN,
    "a3": usage(5000, 900, hour=40000),
    "a4": usage(900, 120, read=20000, five=3000),
    "a5": MEDIAN,
    "a6": MEDIAN,
}


def killed_run(claude_bin, mock_api, cli_home):
    agents = six_agents(**{name: {"usage": spent} for name, spent in USAGE.items()})
    agents["a5"]["hang_attempts"] = [1]
    run = run_workflow(
        claude_bin,
        mock_api,
        cli_home,
        load_script("six.js"),
        agents,
        kill_when_agent=("a5", 1),
        kill_after_s=1.0,
    )
    assert run.killed and run.run_id
    age_tree(cli_home.root, 300)
    return run.run_id


def inside(actual: float, cost: dict) -> bool:
    high = cost["high"]
    return cost["low"] - 1e-6 <= actual and (high is None or actual <= high + 1e-6)


@pytest.mark.parametrize("strategy", ["resume-owner", "relocate", "surgical"])
@pytest.mark.parametrize("exact", [False, True], ids=["estimate", "exact"])
def test_the_actual_cost_of_a_resume_lies_inside_its_forecast(
    claude_bin, mock_api, cli_home, tmp_path, strategy, exact
):
    run_id = killed_run(claude_bin, mock_api, cli_home)
    env = {**cli_env(cli_home, mock_api.url), "WFTOP_STATE_DIR": str(tmp_path / "state")}
    common = ["--no-default-root", "--root", str(cli_home.config_dir), "--claude", claude_bin]
    common += ["--strategy", strategy, *(["--exact"] if exact else [])]
    dry = wftop(env, "resume", run_id, "--dry-run", "--json", *common)
    assert dry.returncode == 0, dry.stderr
    plan = json.loads(dry.stdout)
    forecast = plan["forecast"]
    assert plan["price_data"]["package"] == "genai-prices" and plan["price_data"]["version"]
    assert forecast["exact"] is exact and forecast["live"] == ["a5"]
    if exact:  # the rehearsal ran the whole script: a6 is counted, the range is closed
        assert forecast["cost_usd"]["high"] is not None
    else:  # calls after a5 are unknown without a rehearsal or an earlier completed run
        assert forecast["cost_usd"]["high"] is None
    done = wftop(env, "resume", run_id, "--yes", "--json", *common)
    assert done.returncode == 0, done.stdout + done.stderr
    last = json.loads(done.stdout.splitlines()[-1])
    assert last["event"] == "done" and last["state"] == "completed"
    assert sorted(last["live"]) == ["a5", "a6"]
    assert last["forecast"] == {key: forecast[key] for key in last["forecast"]}
    actual = last["cost_usd"]
    assert actual is not None and actual > 0
    assert inside(actual, forecast["cost_usd"]), (actual, forecast["cost_usd"])
    assert last["tokens"]["cache_write_5m"] == 2 * 2000
