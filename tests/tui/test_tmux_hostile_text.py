"""In a real tmux, a label holding OSC 52 does not set tmux's buffer when the run screen, the
agent's transcript screen and the resume plan draw it.

tmux takes an application's OSC 52 into a paste buffer when ``set-clipboard`` is ``on``
(checked first: a ``printf`` of the planted sequence in a pane does set one). wftop then runs
in a pane of its own over `tests.hostile_kit`'s tree, the pane's raw output recorded with
``pipe-pane``; after each screen ``tmux list-buffers`` must still be empty, and the recording
must hold none of the planted sequences raw.
"""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import pytest

from tests.hostile_kit import MARK, MARK64, RUN, hostile_tree, raw_leaks
from tests.tmux_kit import TmuxServer

TOP = Path(__file__).resolve().parents[2]
WAIT = 30.0


@pytest.fixture
def tmux():  # type: ignore[no-untyped-def]
    run = TmuxServer("hostile")
    try:
        run.start("-s", "gate", "-x", "200", "-y", "50", "sh")
        run("set-option", "-g", "set-clipboard", "on")
        yield run
    finally:
        run.kill()


def wait_for(run, target: str, text: str) -> str:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + WAIT
    while True:
        shown = run("capture-pane", "-p", "-t", target)
        if text in shown:
            return shown
        assert time.monotonic() < deadline, f"never showed {text!r}:\n{shown}"
        time.sleep(0.1)


def buffers(run) -> str:  # type: ignore[no-untyped-def]
    return run("list-buffers", "-F", "#{buffer_name}: #{buffer_sample}")


def test_osc52_in_a_label_never_sets_the_tmux_buffer(tmux, tmp_path, tui_home):
    # tmux does take an application's OSC 52 here: the planted bytes, printed raw, set a buffer
    tmux("send-keys", "-t", "gate", f"printf '\\033]52;c;{MARK64}\\007'", "Enter")
    deadline = time.monotonic() + WAIT
    while MARK not in buffers(tmux):
        assert time.monotonic() < deadline, "tmux ignored OSC 52: the test could not fail"
        time.sleep(0.1)
    tmux("delete-buffer")
    assert buffers(tmux) == ""

    tree = hostile_tree(tmp_path / "tree")
    record = tmp_path / "pane.raw"
    config = tmp_path / "config.toml"
    config.write_text("exact_forecast = false\n")  # the plan rehearses nothing
    env = {
        "HOME": str(tui_home),
        "WFTOP_CONFIG": str(config),
        "WFTOP_STATE_DIR": str(tmp_path / "state"),
        "WFTOP_CACHE_DIR": str(tmp_path / "cache"),
        "TERM": "xterm-256color",
    }
    command = " ".join(
        [
            "env",
            *(shlex.quote(f"{key}={value}") for key, value in env.items()),
            shlex.quote(sys.executable),
            "-m",
            "wftop.cli",
            "--no-default-root",
            "--root",
            shlex.quote(str(tree.root)),
        ]
    )
    tmux("new-window", "-t", "gate", "-n", "wftop", "-c", str(TOP))
    tmux("pipe-pane", "-o", "-t", "gate:wftop", f"cat >> {shlex.quote(str(record))}")
    tmux("send-keys", "-t", "gate:wftop", f"exec {command}", "Enter")
    target = "gate:wftop"
    wait_for(tmux, target, RUN)  # its name is the script file's, which holds the planted bytes
    tmux("send-keys", "-t", target, "Enter")
    shown = wait_for(tmux, target, "parity")  # the run screen
    assert "␛]52;c;" in shown
    tmux("send-keys", "-t", target, "G")  # the hostile call, its agent id and label
    time.sleep(0.5)
    assert buffers(tmux) == "", "the run screen set the tmux buffer"
    tmux("send-keys", "-t", target, "k", "Enter")  # a5: its last words
    wait_for(tmux, target, "last words")
    assert buffers(tmux) == "", "the transcript screen set the tmux buffer"
    tmux("send-keys", "-t", target, "Escape")
    wait_for(tmux, target, "parity")
    tmux("send-keys", "-t", target, "r")
    wait_for(tmux, target, "guard")
    assert buffers(tmux) == "", "the resume plan set the tmux buffer"
    tmux("send-keys", "-t", target, "Escape")
    tmux("send-keys", "-t", target, "q")
    time.sleep(0.5)
    assert buffers(tmux) == ""
    raw = record.read_bytes()
    assert b"HOSTILE" in raw  # the recording holds what was drawn
    assert raw_leaks(raw) == []
