"""Helpers shared by the fault tests: wftop as a real process on a copy of the ``killed`` tree.

Rows that need a read to be refused run wftop without the capabilities that let root
bypass file modes (``setpriv``), so they hold when the suite runs as root too.
"""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import only_journal

TOP = Path(__file__).resolve().parent.parent
TIMEOUT = 60.0
"""Upper bound for one wftop process (they take well under a second)."""

SESSION = "e5c99c64-96da-45a1-841d-2b381f965487"
RUN = "wf_c4e8dc39-03f"

STARTED = b'{"type":"started","key":"v2:zz","agentId":"azz","label":"late"}\n'


def unprivileged() -> list[str]:
    """A prefix that makes file modes bind even for root (empty when not root)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: file modes cannot be enforced")
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner", "--"]


def wftop(
    root: Path, *args: str, prefix: list[str] | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    argv = [*(prefix or []), sys.executable, "-m", "tui", *args]
    argv += ["--no-default-root", "--root", str(root)]
    return subprocess.run(
        argv,
        cwd=TOP,
        env=env if env is not None else os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        errors="replace",
    )


def run_folder(root: Path) -> Path:
    return only_journal(root).parent


def read_lines(stream: Any, into: queue.Queue[str]) -> None:
    for line in stream:
        into.put(line)
