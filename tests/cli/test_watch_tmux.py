"""In a real tmux, as a user meets it: ``wftop watch --notify`` (or the TUI) in one window,
another window shown on an attached client, the run's real owner SIGKILLed: the first
window is flagged by its bell, the client's status line shows the notification, and a run
name holding ``#(…)`` and ``#[…]`` is shown as written (the command never runs).

The client is ``tmux attach`` under ``script`` (a client needs a terminal), and what tmux
draws on it is recorded in ``script``'s typescript.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.corpus import copy_tree
from tests.tmux_kit import TmuxServer, needs
from wftop.core.system.procs import default_table

WAIT = 30.0
HOSTILE = "mock-six #(touch PWNED)#[fg=red]"


@pytest.fixture
def tmux() -> Iterator[TmuxServer]:
    needs("script")
    run = TmuxServer("notify")
    try:
        run.start("-s", "notify", "-x", "100", "-y", "30", "-n", "watch", "sh")
        yield run
    finally:
        run.kill()


def planted(tmp_path: Path, pwned: Path) -> tuple[Path, subprocess.Popen[bytes]]:
    """The killed tree, its run named `HOSTILE` (the file it would touch: ``pwned``),
    written now, with a live owner."""
    root = copy_tree("killed", tmp_path)
    (script,) = root.glob("projects/*/*/workflows/scripts/*.js")
    name = HOSTILE.replace("PWNED", str(pwned))
    script.write_text(script.read_text().replace("name: 'mock-six'", f"name: '{name}'"))
    now = time.time()
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, (now, now))
    owner = subprocess.Popen(["sleep", "600"])
    journals = root.glob("projects/*/*/subagents/workflows/*/journal.jsonl")
    (session,) = {journal.parents[3].name for journal in journals}
    (root / "sessions").mkdir()
    start = default_table().start_time(owner.pid)
    entry = {"pid": owner.pid, "sessionId": session, "procStart": start}
    (root / "sessions" / f"{owner.pid}.json").write_text(json.dumps(entry))
    return root, owner


def until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


@pytest.mark.parametrize(
    ("view", "ready", "told"),
    [
        (["watch", "--notify"], "watching 1 run", "Run died"),
        ([], "▶ running", "✖ dead"),
    ],
    ids=["watch", "tui"],
)
def test_a_death_flags_the_window_and_shows_on_the_clients_status_line(
    tmux, tmp_path, view, ready, told
):
    pwned = tmux.dir / "pwned"  # short: the status line's message is cut at 100 columns
    root, owner = planted(tmp_path, pwned)
    env = {
        "WFTOP_NOTIFY": "bell,tmux",
        "WFTOP_STATE_DIR": str(tmp_path / "state"),
        "WFTOP_CACHE_DIR": str(tmp_path / "cache"),
        "WFTOP_CONFIG": str(tmp_path / "none.toml"),
        "PATH": os.environ["PATH"],
    }
    exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
    argv = [sys.executable, "-m", "wftop.cli", *view]
    argv += ["--no-default-root", "--root", str(root)]
    tmux("set-option", "-g", "monitor-bell", "on")
    tmux("set-option", "-g", "bell-action", "any")
    tmux("send-keys", "-t", "notify:watch", f"{exports} {shlex.join(argv)}", "Enter")
    tmux("new-window", "-t", "notify:", "-n", "other", "sh")
    typescript = tmp_path / "client.typescript"
    attach = shlex.join([*tmux.base, "attach", "-t", "notify"])
    client = subprocess.Popen(
        ["script", "-qfc", f"stty cols 100 rows 30; {attach}", str(typescript)],
        stdin=subprocess.PIPE,  # held open: an EOF would reach the shell shown as ^D
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=tmux.env,
    )
    try:
        until(lambda: "attached" in tmux("list-clients", "-F", "#{client_flags}"), "the client")
        pane = lambda: tmux("capture-pane", "-p", "-t", "notify:watch")  # noqa: E731
        until(lambda: ready in pane(), "the view to read the run")
        owner.kill()
        owner.wait()
        until(lambda: told in pane(), "the death shown")
        flags = lambda: tmux("list-windows", "-F", "#{window_name} #{window_bell_flag}")  # noqa: E731
        # the bell follows the line on the wire: under load tmux may show one before the other
        until(lambda: flags().split("\n")[:2] == ["watch 1", "other 0"], "the window flagged")
        shown = f"Run died: mock-six #(touch {pwned}"  # as written
        until(lambda: shown.encode() in typescript.read_bytes(), "the status line message")
        assert not pwned.exists()
    finally:
        owner.kill()
        client.kill()
        client.wait()
