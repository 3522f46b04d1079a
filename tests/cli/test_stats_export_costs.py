"""``wftop stats`` and ``wftop export`` say what runs and calls spent, and what was spent twice."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.corpus import tree

COSTS = tree("costs")
RUN_ID = json.loads((COSTS / "facts.json").read_text())["run_id"]
MILLION = 1_000_000
# claude-opus-5-5: $4 input, $20 output, $0.20 cache read, $5 / $8 a 5-minute / 1-hour write.
A1 = (1200 * 4 + 340 * 20 + 15000 * 8) / MILLION
A2 = (800 * 4 + 95 * 20 + 15000 * 0.2 + 2000 * 5) / MILLION


def wftop(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wftop.cli", *args, "--no-default-root"],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ),
    )


def test_stats_json_spent_and_spent_twice_per_run_and_in_total():
    resumed = tree("mid-failure-resumed")
    done = wftop("stats", "--json", "--root", str(COSTS), "--root", str(resumed))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    runs = {row["root"]: row for row in data["per_run"]}
    costs, again = runs[str(COSTS)], runs[str(resumed)]
    assert costs["cost_usd"] is None and costs["unpriced_models"] == ["claude-unreleased-0"]
    assert costs["tokens"] == {
        "input": 2350,
        "output": 502,
        "cache_read": 24000,
        "cache_write_5m": 2000,
        "cache_write_1h": 15000,
    }
    # The resume re-ran a4, which had returned: one answer of 10 input and 20 output tokens.
    assert again["reran_completed"] == 1
    assert again["rerun_cost_usd"] == pytest.approx((10 * 4 + 20 * 20) / MILLION)
    assert again["cost_usd"] == pytest.approx(9 * (10 * 4 + 20 * 20) / MILLION)
    assert data["cost_usd"] is None and data["unpriced_models"] == ["claude-unreleased-0"]
    assert data["tokens"]["input"] == 2350 + 90
    assert data["rerun_cost_usd"] == pytest.approx(again["rerun_cost_usd"])
    assert data["session_cost_usd"] == pytest.approx(
        costs["session_cost_usd"] + again["session_cost_usd"]
    )


def test_stats_text_says_what_was_spent():
    done = wftop("stats", "--root", str(tree("mid-failure-resumed")))
    assert done.returncode == 0, done.stderr
    assert "COST" in done.stdout.splitlines()[0]
    assert "spent: $0.0040 by the runs' calls" in done.stdout
    assert "30 tokens spent twice ($0.0004)" in done.stdout


def test_export_json_has_the_cost_of_the_run_and_of_each_call():
    done = wftop("export", RUN_ID, "--format", "json", "--root", str(COSTS))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    first, second = data["calls"][0], data["calls"][1]
    assert first["cost_usd"] == pytest.approx(A1) and first["tokens"]["cache_write_1h"] == 15000
    assert second["cost_usd"] == pytest.approx(A2)
    assert data["calls"][3]["cost_usd"] is None  # a4 answered as an unpriced model
    assert data["calls"][3]["unpriced_models"] == ["claude-unreleased-0"]
    assert data["cost_usd"] is None and data["tokens"]["output"] == 502


def test_export_markdown_says_what_each_call_spent():
    done = wftop("export", RUN_ID, "--root", str(COSTS))
    assert done.returncode == 0, done.stderr
    assert "- spent by its calls: $? (claude-unreleased-0 unpriced) · 43,852 tokens" in done.stdout
    assert f"spent: ${A1:.4f} · 16,540 tokens" in done.stdout
