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
