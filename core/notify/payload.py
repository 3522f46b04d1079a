"""The exact bytes and argv each channel sends, from an event's title and text.

Every text is hostile (a run's name is written by a script a model authored): it passes
`wftop.core.text.gate.shown` (secrets masked, every control character shown as text), so
no BEL, ESC or ST (``ESC \\``, U+009C) can end an OSC body early or start a sequence of
its own. The sequences are those Claude Code's own notifier writes:

* BEL: ``\\a`` (tmux flags the window: ``monitor-bell``);
* OSC 9 (iTerm2, WezTerm): ``ESC ] 9 ; <title>: <text> BEL``;
* OSC 99 (kitty): ``ESC ] 99 ; i=<id>:d=0:p=title ; <title> ESC \\`` then
  ``ESC ] 99 ; i=<id>:d=1:p=body ; <text> ESC \\``;
* OSC 777 (Ghostty, foot, urxvt): ``ESC ] 777 ; notify ; <title> ; <text> BEL`` (a ``;`` in
  the title would end it: shown as ``,``);
* inside tmux, with ``allow-passthrough`` on: ``ESC P tmux ; <sequence, every ESC doubled>
  ESC \\``.

``tmux display-message`` expands its message as a format, where ``#(…)`` runs a shell
command: the text is set as the value of a user option and the format shown is only
``#{@option}``, whose value is not expanded again; every ``#`` is doubled because the status
line draws ``#[…]`` as a style, and an argument that ends in ``;`` (which tmux takes as
the end of a command) ends in ``\\;``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Final

from wftop.core.text.gate import shown

LONGEST: Final = 240
"""Characters of a notification's text (a run's name may be long)."""
BEL: Final = b"\x07"
ESC: Final = b"\x1b"
ST: Final = b"\x1b\\"
DISPLAY_MS: Final = 8000
"""How long ``tmux display-message`` shows a notification."""


def clean(text: str, longest: int = LONGEST) -> str:
    """``text`` as a notification shows it: one line, masked, gated, at most ``longest``."""
    line = shown(text)
    return line if len(line) <= longest else line[: longest - 1] + "…"


def bell() -> bytes:
    return BEL


def osc9(title: str, text: str) -> bytes:
    return b"\x1b]9;" + f"{clean(title)}: {clean(text)}".encode() + BEL


def osc99(title: str, text: str, key: str) -> bytes:
    """Kitty's notification in two parts (title, then body) under one id made of ``key``."""
    ident = "wftop-" + hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    head = f"\x1b]99;i={ident}:d=0:p=title;{clean(title)}".encode() + ST
    body = f"\x1b]99;i={ident}:d=1:p=body;{clean(text)}".encode() + ST
    return head + body


def osc777(title: str, text: str) -> bytes:
    heading = clean(title).replace(";", ",")
    return f"\x1b]777;notify;{heading};{clean(text)}".encode() + BEL


def tmux_passthrough(sequence: bytes) -> bytes:
    """``sequence`` wrapped so that tmux hands it to the outer terminal."""
    return b"\x1bPtmux;" + sequence.replace(ESC, ESC + ESC) + ST


def tmux_text(text: str) -> str:
    """A text as a tmux option's value for the status line: ``#`` doubled, a final ``;``
    escaped."""
    value = text.replace("#", "##")
    return value[:-1] + "\\;" if value.endswith(";") else value


def tmux_display(title: str, text: str, option: str, clients: Sequence[str]) -> list[str]:
    """One ``tmux`` command line: set ``option`` to the text, show ``#{option}`` on every
    client in ``clients`` (or the one tmux picks, when none is named), unset it."""
    value = tmux_text(f"{clean(title)}: {clean(text)}")
    argv = ["tmux", "set-option", "-g", option, value]
    for client in clients or [""]:
        argv += [";", "display-message", "-d", str(DISPLAY_MS)]
        if client:
            argv += ["-c", client]
        argv.append("#{" + option + "}")
    return [*argv, ";", "set-option", "-gu", option]


def notify_send(title: str, text: str) -> list[str]:
    """``notify-send`` (libnotify, Linux and BSDs): the body is markup to many servers, so
    ``&``, ``<`` and ``>`` are escaped."""
    return ["notify-send", "--app-name=wftop", "--", clean(title), markup_text(clean(text))]


def markup_text(text: str) -> str:
    """``text`` as a notification server that reads its body as markup shows it as written:
    ``&``, ``<`` and ``>`` escaped."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def osascript(title: str, text: str) -> list[str]:
    """macOS: the text reaches AppleScript as arguments of ``on run``, never as its source."""
    return [
        "osascript",
        "-e",
        "on run argv",
        "-e",
        "display notification (item 2 of argv) with title (item 1 of argv)",
        "-e",
        "end run",
        clean(title),
        clean(text),
    ]
