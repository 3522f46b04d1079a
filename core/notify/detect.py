"""Which channels the environment asks for, when neither ``WFTOP_NOTIFY`` nor the config
names them.

The terminal is named by ``TERM_PROGRAM``, ``TERM``, ``KITTY_WINDOW_ID`` and the like.
Inside tmux those name tmux, so tmux is asked for the client's: its global environment
(``show-environment -g``: the variables of the terminal that started the server) and the
client's terminal type (``#{client_termtype}``, what the terminal answers to XTVERSION),
and whether it lets a sequence through (``allow-passthrough``, tmux 3.3 or later).

The choice: the bell; the OSC sequence the terminal shows as a notification (inside tmux
only where passthrough is on); ``tmux`` inside tmux; the desktop's own notification when no
terminal sequence was found and a desktop session is on this machine (not over ssh); the
``command`` when the config gives one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from wftop.core.compared import compared
from wftop.core.notify.channels import ChannelError, Runner, run_checked


@compared
@dataclass(frozen=True, eq=False, repr=False)
class Terminal:
    """What is known of the terminal a person sees."""

    program: str = ""
    """``TERM_PROGRAM`` (the client's, inside tmux)."""
    term: str = ""
    kitty: bool = False
    """``KITTY_WINDOW_ID`` is set."""
    termtype: str = ""
    """tmux's ``#{client_termtype}`` (``iTerm2 3.5.0``, ``kitty(0.35.2)``, ``ghostty 1.1``)."""
    tmux: bool = False
    passthrough: bool = False
    """Inside tmux: ``allow-passthrough`` is on."""
    notes: tuple[str, ...] = field(default=())
    """What could not be asked (one line each)."""


def osc_for(terminal: Terminal) -> str | None:
    """The OSC channel this terminal shows as a notification, if one is known."""
    program, term = terminal.program.lower(), terminal.term.lower()
    termtype = terminal.termtype.lower()
    if terminal.kitty or term == "xterm-kitty" or termtype.startswith("kitty"):
        return "osc99"
    if program == "ghostty" or term == "xterm-ghostty" or termtype.startswith("ghostty"):
        return "osc777"
    if program == "iterm.app" or termtype.startswith("iterm2"):
        return "osc9"
    if program == "wezterm" or termtype.startswith("wezterm"):
        return "osc9"
    if term.startswith(("foot", "rxvt-unicode")) or termtype.startswith("foot"):
        return "osc777"
    return None


def _env_line(text: str, name: str) -> str:
    for line in text.splitlines():
        if line.startswith(f"{name}="):
            return line.split("=", 1)[1]
    return ""


def terminal_of(env: Mapping[str, str], run: Runner) -> Terminal:
    """The terminal, asking tmux when ``$TMUX`` is set (``run`` runs ``tmux``)."""
    if not env.get("TMUX"):
        return Terminal(
            program=env.get("TERM_PROGRAM", ""),
            term=env.get("TERM", ""),
            kitty=bool(env.get("KITTY_WINDOW_ID")),
        )
    notes: list[str] = []
    target = ["-t", env["TMUX_PANE"]] if env.get("TMUX_PANE") else []
    try:
        shown = run_checked(["tmux", "show-environment", "-g"], None, run).output.decode(
            "utf-8", "replace"
        )
    except ChannelError as error:
        shown = ""
        notes.append(f"tmux show-environment: {error}")
    try:
        asked = run_checked(
            ["tmux", "display-message", "-p", *target, "#{client_termtype}\t#{allow-passthrough}"],
            None,
            run,
        ).output.decode("utf-8", "replace")
    except ChannelError as error:
        asked = ""
        notes.append(f"tmux display-message: {error}")
    termtype, _, passthrough = asked.strip("\n").partition("\t")
    return Terminal(
        program=_env_line(shown, "TERM_PROGRAM"),
        term=_env_line(shown, "TERM"),
        kitty=bool(_env_line(shown, "KITTY_WINDOW_ID")),
        termtype=termtype,
        tmux=True,
        passthrough=passthrough.strip() in ("1", "on", "all"),
        notes=tuple(notes),
    )


def local_desktop(env: Mapping[str, str], platform: str) -> bool:
    """A desktop session on this machine would show a notification (not over ssh)."""
    if env.get("SSH_CONNECTION") or env.get("SSH_TTY"):
        return False
    if platform == "darwin":
        return True
    return bool(
        env.get("DBUS_SESSION_BUS_ADDRESS") or env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")
    )


def choose(
    terminal: Terminal,
    *,
    env: Mapping[str, str],
    platform: str,
    has_desktop: bool,
    command: bool,
    tty: bool,
    bell: bool = True,
) -> tuple[str, ...]:
    """The channels to use when none are named.

    Args:
        has_desktop: a desktop notifier program is installed.
        command: the config gives a command.
        tty: wftop writes to a terminal (the TUI, or a watch run in one).
        bell: the config's ``bell`` (false: no bell).
    """
    chosen: list[str] = []
    osc = osc_for(terminal)
    shows = tty and osc is not None and (not terminal.tmux or terminal.passthrough)
    if tty and bell:
        chosen.append("bell")
    if shows and osc is not None:
        chosen.append(osc)
    if terminal.tmux:
        chosen.append("tmux")
    if has_desktop and local_desktop(env, platform) and not shows:
        chosen.append("desktop")
    if command:
        chosen.append("command")
    return tuple(chosen)
