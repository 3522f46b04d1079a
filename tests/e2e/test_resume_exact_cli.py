"""``wftop resume --dry-run --exact`` with the real CLI, then the real resume it predicts.

The dry run rehearses with the installed ``claude`` (against wftop's own mock, offline) and
prints the exact forecast; ``wftop resume --exact --yes`` then launches the real resume against
the test's mock, its tripwire following that forecast: the calls it served from cache are the
ones the dry run said, no call it promised ran live, and the dry run wrote nothing in the
user's tree.
"""

from __future__ import annotations

import json
import time

import pytest

from tests.e2e.test_rehearsal import digest, place, wftop
from wftop.mockapi.cliproc import cli_env, cli_version

pytestmark = pytest.mark.realcli

RUN = "wf_6838482f-c9a"
"""The ``mid-failure`` tree's run: a3 failed; the default resume re-runs a4, a5, a6 too."""


@pytest.mark.parametrize(
    ("strategy", "cached"), [("resume-owner", ["a1", "a2"]), ("surgical", ["a1", "a2", "a4"])]
)
def test_the_dry_run_prints_the_exact_forecast_and_the_resume_keeps_to_it(
    claude_bin, mock_api, cli_home, tmp_path, strategy, cached
):
    place("mid-failure", cli_home)
    env = {**cli_env(cli_home, mock_api.url), "WFTOP_STATE_DIR": str(tmp_path / "state")}
    common = ["--no-default-root", "--root", str(cli_home.config_dir), "--claude", claude_bin]
    common += ["--strategy", strategy, "--exact"]
    before = digest(cli_home.root)
    began = time.monotonic()
    dry = wftop(env, "resume", RUN, "--dry-run", "--json", *common)
    seconds = time.monotonic() - began
    assert dry.returncode == 0, dry.stderr
    assert digest(cli_home.root) == before, "the dry run wrote in the user's tree"
    plan = json.loads(dry.stdout)
    forecast = plan["forecast"]
    print(
        f"dry run --exact {strategy}: {seconds:.2f} s, rehearsal {plan['rehearsal']['seconds']} s"
    )
    assert (forecast["exact"], forecast["cli_version"]) == (True, cli_version(claude_bin))
    assert forecast["cached"] == cached and forecast["at_risk"] == []

    text = wftop(env, "resume", RUN, "--dry-run", *common)
    assert (
        f"({strategy} (exact, rehearsed with claude {forecast['cli_version']})" not in text.stdout
    )
    (row,) = [
        line for line in text.stdout.splitlines() if line.startswith(f"         → {strategy}")
    ]
    assert row[57:66].strip() == "exact"
    assert f"(exact, rehearsed with claude {forecast['cli_version']})" in text.stdout

    done = wftop(env, "resume", RUN, "--yes", "--json", *common)
    assert done.returncode == 0, done.stdout + done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert not [event for event in events if event["event"] == "cache_miss"]
    last = events[-1]
    assert last["event"] == "done" and last["state"] == "completed"
    assert last["misses"] == []
    assert sorted(set(last["cached"])) == cached
