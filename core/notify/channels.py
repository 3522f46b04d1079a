"""The channels a notification goes out on, each behind a seam tests replace.

A terminal channel (``bell``, ``osc9``, ``osc99``, ``osc777``) hands its bytes to a
`Writer` (the TUI's driver, or a headless watch's terminal); the others run a program
through a `Runner`: an argv list, the stdin bytes, a timeout, never a shell. A channel
that cannot deliver raises `ChannelError` with one line saying why.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from wftop.core.compared import compared
from wftop.core.notify import payload
from wftop.core.notify.events import Event
from wftop.core.text.jsonout import dumps_masked

TIMEOUT: Final = 10.0
"""Seconds a channel's program may take before it is killed and the channel failed."""

Writer = Callable[[bytes], None]
"""Writes bytes to the terminal wftop runs in."""


@compared
@dataclass(frozen=True, eq=False, repr=False)
class Ran:
    """How a program a channel ran ended."""

    code: int
    output: bytes = b""
    """Its stdout."""
    errors: bytes = b""
    """Its stderr."""


Runner = Callable[[Sequence[str], bytes | None, float], Ran]
"""Runs an argv with these stdin bytes (None: none) within a timeout; raises `OSError`
when it cannot start and `subprocess.TimeoutExpired` when it took too long."""


def run_program(argv: Sequence[str], stdin: bytes | None, timeout: float) -> Ran:
    """The real `Runner`: no shell, a session of its own, stdout and stderr kept."""
    done = subprocess.run(
        list(argv),
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        timeout=timeout,
        check=False,
        start_new_session=True,
    )
    return Ran(done.returncode, done.stdout, done.stderr)


class ChannelError(Exception):
    """A channel could not deliver; the message says why in one line."""


class Channel(Protocol):
    name: str

    def send(self, event: Event) -> None: ...


class Terminal:
    """BEL or an OSC sequence, written to the terminal (wrapped for tmux when ``wrap``)."""

    def __init__(self, name: str, write: Writer, *, wrap: bool = False) -> None:
        self.name = name
        self.write = write
        self.wrap = wrap

    def bytes_for(self, event: Event) -> bytes:
        if self.name == "bell":
            return payload.bell()
        if self.name == "osc9":
            data = payload.osc9(event.title, event.text)
        elif self.name == "osc99":
            data = payload.osc99(event.title, event.text, event.key)
        else:
            data = payload.osc777(event.title, event.text)
        return payload.tmux_passthrough(data) if self.wrap else data

    def send(self, event: Event) -> None:
        try:
            self.write(self.bytes_for(event))
        except (OSError, ValueError) as error:
            raise ChannelError(f"cannot write to the terminal ({error})") from None


def run_checked(argv: Sequence[str], stdin: bytes | None, run: Runner) -> Ran:
    """Run one channel program; `ChannelError` when it cannot start, hangs or fails."""
    program = os.path.basename(argv[0])
    try:
        ran = run(argv, stdin, TIMEOUT)
    except subprocess.TimeoutExpired:
        raise ChannelError(f"{program} took more than {TIMEOUT:g} s (killed)") from None
    except OSError as error:
        raise ChannelError(f"cannot run {program} ({error.strerror or error})") from None
    if ran.code != 0:
        said = ran.errors.decode("utf-8", "replace").strip().splitlines()
        why = payload.clean(said[-1], 120) if said else "no message"
        raise ChannelError(f"{program} exited with {ran.code}: {why}")
    return ran


class Tmux:
    """``tmux display-message`` on every client attached to the server ``$TMUX`` names."""

    def __init__(self, run: Runner, *, option: str | None = None) -> None:
        self.name = "tmux"
        self.run = run
        self.option = option or f"@wftop_notice_{os.getpid()}"

    def clients(self) -> list[str]:
        listed = run_checked(["tmux", "list-clients", "-F", "#{client_name}"], None, self.run)
        names = listed.output.decode("utf-8", "replace").splitlines()
        return [name for name in names if name and not name.startswith("-")]

    def send(self, event: Event) -> None:
        argv = payload.tmux_display(event.title, event.text, self.option, self.clients())
        run_checked(argv, None, self.run)


class Command:
    """A program from the config, given the event as one JSON object on its stdin."""

    def __init__(self, argv: Sequence[str], run: Runner) -> None:
        self.name = "command"
        self.argv = tuple(argv)
        self.run = run

    @staticmethod
    def stdin_for(event: Event) -> bytes:
        return dumps_masked(event.to_json()) + b"\n"

    def send(self, event: Event) -> None:
        run_checked(self.argv, self.stdin_for(event), self.run)


def desktop_argv(
    platform: str, which: Callable[[str], str | None]
) -> Callable[[str, str], list[str]] | None:
    """How this platform shows a desktop notification: ``osascript`` on macOS,
    ``notify-send`` where it is installed; None where neither is (the fallback: no
    desktop channel)."""
    if platform == "darwin" and which("osascript"):
        return payload.osascript
    if platform != "darwin" and which("notify-send"):
        return payload.notify_send
    return None
