"""``y`` inside tmux: the tmux buffer and the system clipboard besides OSC 52."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid

import pytest

from tests.shortpath_kit import new_short_dir, remove
from tests.tui_kit import SIZE, build, finished, settle
from wftop.tui import clipboard


def fake_which(present: set[str]):  # type: ignore[no-untyped-def]
    return lambda name: f"/bin/{name}" if name in present else None


def recording(ok: bool = True):  # type: ignore[no-untyped-def]
    calls: list[tuple[list[str], bytes]] = []

    def run(argv: list[str], data: bytes) -> bool:
        calls.append((argv, data))
        return ok

    return calls, run


def test_inside_tmux_the_text_goes_to_its_buffer_and_one_system_clipboard():
    calls, run = recording()
    env = {"TMUX": "/tmp/tmux-1/default,1,0", "DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}
    which = fake_which({"tmux", "wl-copy", "xclip"})
    used = clipboard.copy_elsewhere("wf_cd4c7489-d27", env, which=which, run=run)
    assert used == ["tmux buffer", "wl-copy"]
    assert calls == [
        (["/bin/tmux", "load-buffer", "-"], b"wf_cd4c7489-d27"),
        (["/bin/wl-copy"], b"wf_cd4c7489-d27"),
    ]
    assert clipboard.copied_via(used) == "OSC 52 + tmux buffer + wl-copy"


def test_outside_tmux_or_without_a_display_nothing_is_run():
    calls, run = recording()
    which = fake_which({"tmux", "xclip", "wl-copy"})
    assert clipboard.copy_elsewhere("x", {}, which=which, run=run) == []
    assert calls == []


def test_a_command_that_fails_is_not_named_and_the_next_is_tried():
    calls: list[list[str]] = []

    def run(argv: list[str], data: bytes) -> bool:
        calls.append(argv)
        return argv[0] != "/bin/xclip"

    env = {"DISPLAY": ":0"}
    used = clipboard.copy_elsewhere("x", env, which=fake_which({"xclip", "xsel"}), run=run)
    assert used == ["xsel"]
    assert calls == [
        ["/bin/xclip", "-selection", "clipboard"],
        ["/bin/xsel", "--clipboard", "--input"],
    ]


async def test_y_says_where_the_text_was_copied(tui_root, tui_processes, monkeypatch):
    monkeypatch.setattr(clipboard, "copy_elsewhere", lambda text, env, **_kw: ["tmux buffer"])
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("y", "enter")
        await finished(app)
        await pilot.pause()
        titles = [note.title for note in app.toasts]
        assert titles == ["Copied run id (OSC 52 + tmux buffer)"]


@pytest.mark.skipif(shutil.which("tmux") is None, reason="no tmux on this machine")
def test_a_real_tmux_server_holds_the_copied_text(monkeypatch):
    socket = f"wftop-test-{uuid.uuid4().hex[:8]}"
    sockets = new_short_dir("wftop-tmux-")  # the socket's path fits sun_path
    monkeypatch.setenv("TMUX_TMPDIR", str(sockets))
    tmux = ["tmux", "-L", socket]
    try:
        subprocess.run([*tmux, "new-session", "-d", "-s", "copy"], check=True)
        path = subprocess.run(
            [*tmux, "display-message", "-p", "#{socket_path}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        env = {"TMUX": f"{path},{os.getpid()},0"}
        monkeypatch.setenv("TMUX", env["TMUX"])  # tmux finds its server through $TMUX
        used = clipboard.copy_elsewhere("wftop resume wf_cd4c7489-d27", env)
        assert used[:1] == ["tmux buffer"]
        shown = subprocess.run(
            [*tmux, "show-buffer"], check=True, capture_output=True, text=True
        ).stdout
        assert shown == "wftop resume wf_cd4c7489-d27"
    finally:
        subprocess.run([*tmux, "kill-server"], check=False)
        remove(sockets)
