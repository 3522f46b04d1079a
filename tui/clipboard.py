"""Where ``y`` copies to besides OSC 52: the tmux buffer, and the system clipboard.

OSC 52 (Textual's ``copy_to_clipboard``) reaches the terminal's clipboard, but tmux
drops it unless ``set-clipboard`` is on. So, inside tmux (``$TMUX`` set), the text is
also loaded into tmux's paste buffer with ``tmux load-buffer -``, and where a system
clipboard command exists (``pbcopy``, ``wl-copy``, ``xclip``, ``xsel``, ``clip.exe``)
it gets the text too. Every command is an argv list fed on stdin, never a shell, and
runs off the event loop (the copy screen calls `copy_elsewhere` from a thread worker).

Seams: ``which`` (is the command there) and ``run`` (feed it the text, say if it worked).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass

TIMEOUT = 3.0
"""Seconds a clipboard command may take."""


@dataclass(frozen=True)
class Target:
    name: str
    """What the notification calls it."""
    argv: tuple[str, ...]
    needs: str = ""
    """An environment variable that must be set for the command to have a clipboard."""


TMUX = Target("tmux buffer", ("tmux", "load-buffer", "-"), needs="TMUX")
SYSTEM = (
    Target("pbcopy", ("pbcopy",)),
    Target("wl-copy", ("wl-copy",), needs="WAYLAND_DISPLAY"),
    Target("xclip", ("xclip", "-selection", "clipboard"), needs="DISPLAY"),
    Target("xsel", ("xsel", "--clipboard", "--input"), needs="DISPLAY"),
    Target("clip.exe", ("clip.exe",)),
)
"""System clipboard commands, the first one present is used."""


def run_command(argv: list[str], data: bytes) -> bool:
    """Feed ``data`` to ``argv`` on stdin; True when it exits 0 in time."""
    try:
        done = subprocess.run(  # noqa: S603 - an argv list of fixed commands, no shell
            argv,
            input=data,
            stdout=subprocess.DEVNULL,  # xclip keeps running to serve the selection
            stderr=subprocess.DEVNULL,
            timeout=TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def copy_elsewhere(
    text: str,
    env: Mapping[str, str],
    *,
    which: Callable[[str], str | None] = shutil.which,
    run: Callable[[list[str], bytes], bool] = run_command,
) -> list[str]:
    """Copy ``text`` to the tmux buffer (inside tmux) and the first system clipboard
    command there is; the names of those that took it."""
    data = text.encode()

    def feed(target: Target) -> bool:
        if target.needs and not env.get(target.needs):
            return False
        path = which(target.argv[0])
        return path is not None and run([path, *target.argv[1:]], data)

    used = [TMUX.name] if feed(TMUX) else []
    system = next((target.name for target in SYSTEM if feed(target)), None)
    return used + [system] if system else used


def copied_via(used: list[str]) -> str:
    """``OSC 52 + tmux buffer`` and the like, for the notification's title."""
    return " + ".join(["OSC 52", *used])
