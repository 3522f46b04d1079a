"""In a real tmux, as a first-time user meets it: ``wftop`` with no Claude config dir opens,
says where it looked and what to try, whole at 60 columns, and shows the runs of the config
dir when Claude Code's first run makes it, without a restart (through the shared engine)."""

from __future__ import annotations

import shlex
import shutil
import sys
import time
from pathlib import Path

import pytest

from tests.corpus import tree
from tests.tmux_kit import TmuxServer

TOP = Path(__file__).resolve().parents[2]
WAIT = 30.0


@pytest.fixture
def tmux():  # type: ignore[no-untyped-def]
    run = TmuxServer("first-run")
    try:
        run.start("-s", "first", "-x", "60", "-y", "30", "sh")
        yield run
    finally:
        run.kill()


def wait_for(run, text: str) -> str:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + WAIT
    while True:
        shown = run("capture-pane", "-p", "-t", "first")
        if text in " ".join(shown.split()):
            return shown
        assert time.monotonic() < deadline, f"never showed {text!r}:\n{shown}"
        time.sleep(0.1)


def test_wftop_with_no_config_dir_opens_says_where_it_looked_and_follows_it_appearing(
    tmux, tmp_path, tui_home
):
    env = {
        "HOME": str(tui_home),
        "WFTOP_STATE_DIR": str(tmp_path / "state"),
        "WFTOP_CACHE_DIR": str(tmp_path / "cache"),
        "WFTOP_ENGINE_LINGER": "1",
        "TERM": "xterm-256color",
    }
    command = " ".join(
        ["env", *(shlex.quote(f"{key}={value}") for key, value in env.items())]
        + [shlex.quote(sys.executable), "-m", "wftop.cli"]
    )
    tmux("send-keys", "-t", "first", f"cd {shlex.quote(str(TOP))} && {command}", "Enter")
    shown = wait_for(tmux, "To see wftop at work: wftop demo.")
    said = " ".join(shown.split())
    assert "No ~/.claude here: Claude Code has not run on this machine yet." in said
    assert "Another config dir: wftop --root DIR." in said
    assert all(len(line) <= 60 for line in shown.splitlines())
    root = tui_home / ".claude"
    root.mkdir()
    wait_for(tmux, "No Workflow runs under ~/.claude yet.")
    shutil.copytree(tree("killed") / "projects", root / "projects", symlinks=True)
    shown = wait_for(tmux, "mock-six")
    assert "✖ dead" in shown
    assert "wftop demo" not in shown
    tmux("send-keys", "-t", "first", "q")
