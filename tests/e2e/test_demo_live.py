"""``wftop demo --no-tui --resume``: the full demo, headless, with the real CLI.

A real run is killed while a5 is in flight, the plan forecasts a1–a4 from cache, the resume
that wftop launches (with the demo's environment) reaches only the loopback mock, which sees
exactly a5 and a6 live; the run ends completed and the temporary dir is gone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.realcli


def demo(claude_bin: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
    env["WFTOP_CLAUDE"] = claude_bin
    return subprocess.run(
        [sys.executable, "-m", "wftop.cli", "demo", "--no-tui", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_live_demo_kills_plans_and_resumes_only_a5_a6(claude_bin):
    before = set(Path(tempfile.gettempdir()).glob("wftop-demo-*"))
    done = demo(claude_bin, "--resume")
    assert done.returncode == 0, done.stderr + done.stdout
    out = done.stdout
    assert "✖ dead" in out and "a5" in out
    assert "guard      ok" in out
    assert "live calls: a5, a6" in out
    assert "mock: sub-agents run live by the resume: a5, a6" in out
    assert out.rstrip().splitlines()[-1].startswith("✔ completed")
    assert "SIGKILL" in done.stderr
    assert set(Path(tempfile.gettempdir()).glob("wftop-demo-*")) == before


def test_live_demo_without_resume_prints_the_forecast(claude_bin):
    done = demo(claude_bin)
    assert done.returncode == 0, done.stderr + done.stdout
    assert "a1, a2, a3, a4 from cache; a5 live; then the calls not reached yet" in done.stdout
    assert "guard      ok" in done.stdout
