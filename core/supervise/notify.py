"""How the supervisor tells a person: a small seam that channels plug into.

A `Note` is what a person should hear (a run refused by itself, a resume that finished,
a run the supervisor gave up on). `Notifier` is the seam; `LogNotifier`, the default,
writes one line per note to a stream (the supervisor's stderr: a service's journal, or
the terminal it runs in). Desktop and terminal channels plug in here as further
notifiers; tests record the notes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from wftop.core.model import iso_utc


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
