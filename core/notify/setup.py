"""A notifier made from the settings and the environment: the one way views make one.

The channels are those ``WFTOP_NOTIFY`` names, else those of the config's
``[notifications] channels``, else those the environment asks for (`detect.choose`). A
channel that cannot work here (a terminal sequence with no terminal to write to, no
desktop notifier installed, an OSC inside tmux that does not pass it on) is said once in
a note. Making one asks tmux a question or two: call it off the UI's loop.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from wftop.core.compared import compared
from wftop.core.notify.channels import (
    Channel,
    Command,
    Runner,
    Terminal,
    Tmux,
    Writer,
    run_program,
)
from wftop.core.notify.desktop import Desktop, desktop_showers, library_installed
from wftop.core.notify.detect import choose, terminal_of
from wftop.core.notify.ledger import MemoryLedger, StateLedger
from wftop.core.notify.notifier import Notifier, Report, file_log
from wftop.core.notify.settings import ENV_VAR, NotifySettings, channels_from_env

TERMINAL_CHANNELS = ("bell", "osc9", "osc99", "osc777")


@compared
@dataclass(frozen=True, eq=False, repr=False)
class Made:
    notifier: Notifier
    notes: tuple[str, ...]
    """What could not be set up as asked (one line each)."""


def make_notifier(
    settings: NotifySettings,
    *,
    env: Mapping[str, str],
    write: Writer | None,
    state: Path | None,
    report: Report,
    bell: bool = True,
    run: Runner = run_program,
    which: Callable[[str], str | None] = shutil.which,
    platform: str = sys.platform,
    library: Callable[[], bool] = library_installed,
) -> Made:
    """The notifier for a view.

    Args:
        write: writes to the terminal the view runs in (None: no terminal).
        state: the state dir (None, under ``--read-only``: nothing is written, and what was
            told is known to this process only).
        report: where a channel's failure is said (once).
        bell: the config's ``bell`` (false: no bell unless a channel list names it).
        library: whether ``desktop-notifier`` is installed (`wftop.core.notify.desktop`).
    """
    named = channels_from_env(env.get(ENV_VAR))
    if named is None:
        named = settings.channels
    terminal = terminal_of(env, run) if named is None or _asks_terminal(named, env) else None
    showers = desktop_showers(platform, which, run, installed=library)
    notes: list[str] = list(terminal.notes if terminal is not None else ())
    if named is None:
        assert terminal is not None
        names = choose(
            terminal,
            env=env,
            platform=platform,
            has_desktop=bool(showers),
            command=bool(settings.command),
            tty=write is not None,
            bell=bell,
        )
    else:
        names = named
    wrap = terminal is not None and terminal.tmux
    channels: list[Channel] = []
    for name in names:
        if name in TERMINAL_CHANNELS:
            if write is None:
                notes.append(f"{name}: no terminal to write to")
                continue
            if wrap and name != "bell" and terminal is not None and not terminal.passthrough:
                notes.append(
                    f"{name}: tmux does not pass it on to the terminal"
                    " (set -g allow-passthrough on)"
                )
            channels.append(Terminal(name, write, wrap=wrap and name != "bell"))
        elif name == "tmux":
            if not env.get("TMUX"):
                notes.append("tmux: not inside tmux ($TMUX is not set)")
                continue
            channels.append(Tmux(run))
        elif name == "desktop":
            if not showers:
                notes.append(f"desktop: no desktop notifier on this machine ({_wanted(platform)})")
                continue
            channels.append(Desktop(showers))
        elif name == "command":
            if not settings.command:
                notes.append("command: the config's [notifications] has no command")
                continue
            channels.append(Command(settings.command, run))
    ledger = StateLedger(state) if state is not None else MemoryLedger()
    log = file_log(state) if state is not None else None
    notifier = Notifier(settings, channels, ledger, report=report, log=log)
    return Made(notifier, tuple(notes))


def _asks_terminal(names: tuple[str, ...], env: Mapping[str, str]) -> bool:
    """Whether tmux must be asked about passthrough (an OSC named, inside tmux)."""
    return bool(env.get("TMUX")) and any(name.startswith("osc") for name in names)


def _wanted(platform: str) -> str:
    command = "osascript" if platform == "darwin" else "notify-send (libnotify)"
    return f"install {command}, or wftop[desktop]"
