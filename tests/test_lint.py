"""The suite fails when lint or strict typing of ``core`` fails."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).parent.parent


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *argv], cwd=TOP, capture_output=True, text=True, timeout=300
    )


def test_ruff_is_clean():
    done = run("ruff", "check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_core_passes_strict_mypy():
    done = run("mypy")
    assert done.returncode == 0, done.stdout + done.stderr
