"""How the supervisor tells a person: a small seam that channels plug into.

A `Note` is what a person should hear (a run refused by itself, a resume that finished,
a run the supervisor gave up on). `Notifier` is the seam; `LogNotifier` writes one line
per note to a stream (the supervisor's stderr: a service's journal, or the terminal it
runs in); `ChannelNotifier` hands each note to wftop's notification channels
(`wftop.core.notify`: the bell, the terminal, tmux, the desktop, a command) as a
``supervisor`` event; `Fanout` does both. Tests record the notes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from wftop.core.model import iso_utc
from wftop.core.notify.events import supervisor_event
from wftop.core.notify.notifier import Notifier as Channels


@dataclass(frozen=True)
class Note:
    at: float
    run: str
    decision: str
    """The audit decision it is about (``refused``, ``finished``, …)."""
    text: str

    def line(self) -> str:
        return f"{iso_utc(self.at)} {self.run} {self.decision}: {self.text}"


class Notifier(Protocol):
    def notify(self, note: Note) -> None: ...


class LogNotifier:
    """Writes each note as one line (``write`` is handed the line, without a newline)."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write

    def notify(self, note: Note) -> None:
        self.write(f"wftop supervise: notify: {note.line()}")


class ChannelNotifier:
    """Each note on the notification channels, as a ``supervisor`` event (off by the
    config's ``[notifications] supervisor = false``); told once across wftop's processes.
    The channels' notifier is made with no cooldown: the audit log already writes a
    decision only when it changes, and a run's refusal must not be held back because its
    resume's end was told a minute before."""

    def __init__(self, channels: Channels) -> None:
        self.channels = channels

    def notify(self, note: Note) -> None:
        self.channels.submit(supervisor_event(note.run, note.decision, note.text, note.at))


class Fanout:
    """Each note to every notifier, in turn."""

    def __init__(self, *notifiers: Notifier) -> None:
        self.notifiers = notifiers

    def notify(self, note: Note) -> None:
        for notifier in self.notifiers:
            notifier.notify(note)
