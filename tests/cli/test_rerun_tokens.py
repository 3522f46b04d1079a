"""``rerun_tokens`` in ``wftop ls --json`` and ``wftop stats`` (real processes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.corpus import tree


def wftop(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wftop.cli", *args], capture_output=True, text=True, timeout=60
    )


def roots(*names: str) -> list[str]:
    out = ["--no-default-root"]
    for name in names:
        out += ["--root", str(tree(name))]
    return out


def test_ls_json_says_the_tokens_spent_on_re_runs():
    done = wftop("ls", "--json", "--no-cache", *roots("mid-failure-resumed", "clean"))
    assert done.returncode == 0, done.stderr
    spent = {row["run_id"]: row["rerun_tokens"] for row in json.loads(done.stdout)}
    assert spent == {"wf_6838482f-c9a": 30, "wf_6bc9feb7-808": 0}


def test_ls_json_from_the_rows_cache_keeps_them(tmp_path):
    args = ("ls", "--json", *roots("mid-failure-resumed"))
    env = {"WFTOP_CACHE_DIR": str(tmp_path)}
    for _ in range(2):  # written, then read from the cache
        done = subprocess.run(
            [sys.executable, "-m", "wftop.cli", *args],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, **env},
        )
        assert [row["rerun_tokens"] for row in json.loads(done.stdout)] == [30]


def test_stats_per_run_and_in_total():
    done = wftop("stats", "--json", *roots("mid-failure-resumed", "clean", "killed"))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["rerun_tokens"] == 30
    per_run = {
        run["run_id"]: (run["reran_completed"], run["rerun_tokens"]) for run in data["per_run"]
    }
    assert per_run["wf_6838482f-c9a"] == (1, 30)
    text = wftop("stats", *roots("mid-failure-resumed")).stdout
    assert "1 runs, 1 calls, 30 tokens spent twice" in text


def test_stats_says_partial_for_a_run_completed_with_failed_calls():
    text = wftop("stats", *roots("mid-failure")).stdout.splitlines()
    assert text[1].split()[2] == "partial"
    (run,) = json.loads(wftop("stats", "--json", *roots("mid-failure")).stdout)["per_run"]
    assert (run["status"], run["failed_calls"]) == ("completed", ["a3"])
