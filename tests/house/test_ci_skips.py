"""Under ``CI=true`` a test that needs a missing tool fails instead of skipping."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
REMOTE_TEST = (
    "tests/core/test_remote_link.py::test_two_hosts_stream_their_runs_and_a_live_append_arrives"
)


def run_without_ssh(ci: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CI": ci, "PATH": str(Path(sys.executable).parent)}  # no ssh there
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", REMOTE_TEST]
    return subprocess.run(argv, cwd=TOP, env=env, capture_output=True, text=True, timeout=300)


def test_without_ssh_the_remote_tests_skip_and_under_ci_they_fail():
    skipped = run_without_ssh("false")
    assert skipped.returncode == 0 and "no OpenSSH client" in skipped.stdout, skipped.stdout
    failed = run_without_ssh("true")
    assert failed.returncode != 0 and "CI=true: the remote tests must run" in failed.stdout
