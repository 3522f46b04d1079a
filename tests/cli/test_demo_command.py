"""``wftop demo`` works without a terminal and leaves nothing behind."""

from __future__ import annotations

import os
import subprocess
import sys


def test_demo_lists_the_bundled_real_runs_and_cleans_up(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path)}  # not the machine's: others write there too
    done = subprocess.run(
        [sys.executable, "-m", "wftop.cli", "demo"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()[1:]
    assert sorted(row.split()[1] for row in rows) == ["completed", "dead", "dead", "partial"]
    assert any(row.rstrip().endswith("a5") for row in rows)
    assert list(tmp_path.glob("wftop-demo-*")) == []


def test_each_bundled_run_is_named_after_its_scenario():
    """Names and projects come from the bundled trees (tests/make_bundled.py ran each scenario
    with a script and a working directory of its name), not one mock-six in proj for all."""
    done = subprocess.run(
        [sys.executable, "-m", "wftop.cli", "demo"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    rows = {tuple(row.split()[1:4]) for row in done.stdout.splitlines()[1:]}
    names = {(status, name) for status, name, _run in rows}
    assert names == {
        ("completed", "clean-run"),
        ("dead", "killed-mid-run"),
        ("dead", "killed-in-parallel"),
        ("partial", "failed-agent"),
    }
    projects = {row.split()[4] for row in done.stdout.splitlines()[1:]}
    assert projects == {"clean", "killed", "killed-in-parallel", "mid-failure"}
