"""A tmux server of a test's own: `TmuxServer` (its socket in a short folder of its own)."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.shortpath_kit import new_short_dir, remove

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

    def __init__(self, name: str) -> None:
        needs("tmux")
        self.socket = f"wftop-{name}-{uuid.uuid4().hex[:8]}"
        self.base = ["tmux", "-L", self.socket, "-f", os.devnull]
        self.dir: Path = new_short_dir("wftop-tmux-")
        """``TMUX_TMPDIR``, short: the socket's path must fit sun_path whatever the temp
        dir's length; `kill` removes it."""
        self.env = {**os.environ, "TMUX_TMPDIR": str(self.dir)}
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
        remove(self.dir)
