"""A tmux server of a test's own: `TmuxServer` (its socket and dir in the test's tmp dir)."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

WAIT = 30.0


def needs(*tools: str) -> None:
    """Skip where a tool is missing (under ``CI=true``: fail, the tmux tests must run)."""
    for tool in tools:
        if shutil.which(tool) is None:
            if os.environ.get("CI") == "true":
                pytest.fail(f"no {tool} on this machine (CI=true: the tmux tests must run)")
            pytest.skip(f"no {tool} on this machine")


class TmuxServer:
    """``tmux -L <socket> -f /dev/null``, outside any tmux the suite runs in."""

    def __init__(self, tmp_path: Path, name: str) -> None:
        needs("tmux")
        self.socket = f"wftop-{name}-{uuid.uuid4().hex[:8]}"
        self.base = ["tmux", "-L", self.socket, "-f", os.devnull]
        self.env = {**os.environ, "TMUX_TMPDIR": str(tmp_path)}
        self.env.pop("TMUX", None)

    def start(self, *session: str) -> None:
        """``new-session -d`` with ``session``'s options, and a job of the server's that
        ends it once this process has gone: a test killed mid-way (the suite's timeout)
        runs no teardown, and the server, the wftop in its pane, that wftop's engine and its
        watch would live on."""
        self("new-session", "-d", *session)
        guard = f"while kill -0 {os.getpid()} 2>/dev/null; do sleep 1; done"
        self("run-shell", "-b", f"{guard}; tmux -L {self.socket} kill-server")

    def __call__(self, *args: str) -> str:
        done = subprocess.run(
            [*self.base, *args],
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
            timeout=WAIT,
        )
        return done.stdout

    def kill(self) -> None:
        subprocess.run([*self.base, "kill-server"], env=self.env, check=False, capture_output=True)
