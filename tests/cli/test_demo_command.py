"""``wftop demo`` works without a terminal and leaves nothing behind."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path


def test_demo_lists_the_bundled_real_runs_and_cleans_up():
    before = set(Path(tempfile.gettempdir()).glob("wftop-demo-*"))
    done = subprocess.run(
        [sys.executable, "-m", "wftop.cli", "demo"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()[1:]
    assert sorted(row.split()[1] for row in rows) == ["completed", "dead", "dead", "partial"]
    assert any(row.rstrip().endswith("a5") for row in rows)
    assert set(Path(tempfile.gettempdir()).glob("wftop-demo-*")) == before
