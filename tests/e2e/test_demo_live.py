"""``wftop demo --no-tui --resume``: the full demo, headless, with the real CLI.

A real run is killed while a5 is in flight, the plan forecasts a1–a4 from cache, the resume
that wftop launches (with the demo's environment) reaches only the loopback mock, which sees
exactly a5 and a6 live; the run ends completed and the temporary dir is gone.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.realcli


def demo(claude_bin: str, temp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The demo with ``temp`` as its temporary dir (other processes of the machine make
    their own ``wftop-demo-*`` dirs in the system one)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
    env["WFTOP_CLAUDE"] = claude_bin
    env["TMPDIR"] = str(temp)
    return subprocess.run(
        [sys.executable, "-m", "wftop.cli", "demo", "--no-tui", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_live_demo_kills_plans_and_resumes_only_a5_a6(claude_bin, tmp_path):
    done = demo(claude_bin, tmp_path, "--resume")
    assert done.returncode == 0, done.stderr + done.stdout
    out = done.stdout
    assert "✖ dead" in out and "a5" in out
    assert "guard      ok" in out
    assert "live calls: a5, a6" in out
    assert "mock: sub-agents run live by the resume: a5, a6" in out
    assert out.rstrip().splitlines()[-1].startswith("✔ completed")
    assert "SIGKILL" in done.stderr
    assert list(tmp_path.glob("wftop-demo-*")) == []


def test_live_demo_without_resume_prints_the_forecast(claude_bin, tmp_path):
    done = demo(claude_bin, tmp_path)
    assert done.returncode == 0, done.stderr + done.stdout
    assert "a1, a2, a3, a4 from cache; a5 live; then the calls not reached yet" in done.stdout
    assert "guard      ok" in done.stdout
