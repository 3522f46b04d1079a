"""``wftop resume --dry-run --json`` on real trees, without launching anything."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from tests.corpus import copy_tree


def dry_run(root, run_id, *extra, env=None):
    merged = {**os.environ, "WFTOP_STATE_DIR": str(root.parent / "state"), **(env or {})}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "wftop.cli",
            "resume",
            run_id,
            "--dry-run",
            "--json",
            "--no-default-root",
            "--root",
            str(root),
            "--claude",
            "/nonexistent/claude",
            *extra,
        ],
        capture_output=True,
        text=True,
        env=merged,
        timeout=60,
    )
    assert done.returncode != 1, done.stderr
    return done.returncode, json.loads(done.stdout) if done.stdout else None


def aged(root):
    past = time.time() - 600
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, (past, past))
    return root


def test_config_flags_and_binary_appear_in_the_plan(tmp_path):
    root = aged(copy_tree("mid-failure", tmp_path))
    config = tmp_path / "config.toml"
    config.write_text('resume_flags = ["--model", "opus"]\n')
    code, plan = dry_run(root, "wf_6838482f-c9a", env={"WFTOP_CONFIG": str(config)})
    assert code == 3  # the script named by the run is not on this machine
    assert plan["argv"][-4:] == ["--model", "opus", "--", plan["argv"][-1]]
    assert plan["argv"][0] == "/nonexistent/claude"
    assert set(plan["forecasts"]) == {"resume-owner", "relocate", "surgical"}
    assert plan["forecasts"]["surgical"]["live"] == ["a3", "a5", "a6"]
    assert plan["recommended"] == "surgical"


def test_the_calls_fates_are_listed_once_under_the_chosen_forecast(tmp_path):
    """A plan of 100,000 calls printed 55 MB when each of its four forecasts listed every
    call: ``forecast`` lists them, each of ``forecasts`` has the rest of its fields."""
    root = aged(copy_tree("mid-failure", tmp_path))
    code, plan = dry_run(root, "wf_6838482f-c9a", "--strategy", "relocate")
    assert code == 3
    calls = plan["forecast"].pop("calls")
    assert [(call["label"], call["fate"]) for call in calls] == [
        ("a1", "cached"),
        ("a2", "cached"),
        ("a3", "live_ends_reuse"),
        ("a4", "rerun"),
        ("a5", "rerun"),
        ("a6", "rerun"),
    ]
    assert all("calls" not in forecast for forecast in plan["forecasts"].values())
    assert plan["forecasts"]["relocate"] == plan["forecast"]
    assert plan["forecasts"]["surgical"]["live"] == ["a3", "a5", "a6"]


def test_completed_run_is_refused_but_a_fresh_relaunch_is_not(tmp_path):
    root = aged(copy_tree("clean", tmp_path))
    code, plan = dry_run(root, "wf_6bc9feb7-808")
    assert code == 3
    assert plan["guard"] == "completed with no failed calls: nothing to resume"
    code, fresh = dry_run(root, "wf_6bc9feb7-808", "--strategy", "fresh")
    assert fresh["guard"] != plan["guard"]
    assert "resumeFromRunId" not in fresh["argv"][-1]
    assert fresh["forecast"]["cached"] == []


def test_conflicting_config_flag_is_refused_even_with_force(tmp_path):
    root = aged(copy_tree("killed", tmp_path))
    config = tmp_path / "config.toml"
    config.write_text('resume_flags = ["--resume", "x"]\n')
    code, plan = dry_run(root, "wf_c4e8dc39-03f", "--force", env={"WFTOP_CONFIG": str(config)})
    assert code == 3
    assert "conflicts with the resume command" in plan["guard"]


def test_a_completed_run_is_refused_even_forced_with_the_reason(tmp_path):
    root = aged(copy_tree("clean", tmp_path))
    code, plan = dry_run(root, "wf_6bc9feb7-808", "--force")
    assert code == 3
    assert plan["refusal"] == {
        "reason": "completed with no failed calls: nothing to resume",
        "fix": "nothing to fix; R (or --strategy fresh) runs the script again from the start",
        "forceable": False,
        "force_risk": None,
    }
    assert plan["stop_cause"] is None


def test_the_plan_says_why_a_killed_run_stopped(tmp_path):
    root = aged(copy_tree("killed", tmp_path))
    code, plan = dry_run(root, "wf_c4e8dc39-03f")
    assert plan["stop_cause"]["cause"] == "clean_or_unknown"
    assert "killed or crashed" in plan["stop_cause"]["evidence"]
    assert plan["stop_cause"]["still_there"] is False
    gone = "/home/dev/work/kill-resume/proj"
    assert plan["refusal"]["reason"] == f"the session's working directory is gone: {gone}"
    assert plan["refusal"]["fix"] == f"recreate {gone} (the agents' tools run there)"
    assert plan["refusal"]["forceable"] is False  # a launch there could not start


def test_the_same_run_under_two_roots_is_ambiguous_until_root_picks_one(tmp_path):
    first = aged(copy_tree("killed", tmp_path / "one"))
    second = aged(copy_tree("killed", tmp_path / "two"))
    env = {**os.environ, "WFTOP_STATE_DIR": str(tmp_path / "state")}
    base = [sys.executable, "-m", "wftop.cli", "resume", "wf_c4e8dc39-03f", "--dry-run", "--json"]
    both = subprocess.run(
        [*base, "--no-default-root", "--root", str(first), "--root", str(second)],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert both.returncode == 2 and both.stdout == ""
    message = both.stderr.strip()
    assert "ambiguous, 2 candidates" in message and "\n" not in message
    for root in (first, second):
        assert f"root {root} session e5c99c64-96da-45a1-841d-2b381f965487" in message
    picked = subprocess.run(
        [*base, "--root", str(second)],
        capture_output=True, text=True, env={**env, "CLAUDE_CONFIG_DIR": str(first)}, timeout=60,
    )  # fmt: skip
    assert picked.returncode == 3, picked.stderr  # the cwd of the copied tree is gone
    assert json.loads(picked.stdout)["env"] == {"CLAUDE_CONFIG_DIR": str(second)}


def test_the_plan_reads_its_run_with_results_unpacked(tmp_path):
    """``--dry-run``'s one read of the run keeps results as parsed (`JournalFold.packs`); a
    resume, which lives as long as the run it follows, keeps them packed."""
    import argparse

    from wftop.cli.commands.resume import find_run

    root = copy_tree("killed", tmp_path)
    run_id = next(root.glob("projects/*/*/subagents/workflows/wf_*")).name
    for dry_run in (True, False):
        args = argparse.Namespace(run_id=run_id, root=[str(root)], session=None, dry_run=dry_run)
        found = find_run(args, [str(root)])
        assert not isinstance(found, str) and found.fold.packs is not dry_run
