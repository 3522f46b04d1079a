"""Runs a person has seen (``a``, ``A``, ``wftop ack``), and what still needs them.

A run needs you when it is stalled, or dead, failed or partial with its last activity
within the attention window (`needs_you`), and you have not marked it seen in that state.
An acknowledgement holds the run's shown status and last activity (`state_of`): when either
changes (the run was resumed and died again, say), it needs you again. Kept in
``<state>/acks.json`` for every wftop process of the user; under ``--read-only`` for the
session only (`Acks` without a state dir).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final, NamedTuple

from wftop.core.model import PARTIAL, Status, iso_utc
from wftop.core.notify.statefile import StateTable

VERSION: Final = 1
KEEP: Final = 90 * 86400.0
"""Seconds an acknowledgement is kept."""
RECENT: Final = frozenset({Status.DEAD.value, Status.FAILED.value, PARTIAL})
"""Shown statuses that need you while recent (within the attention window)."""


class Seen(NamedTuple):
    """A run as an acknowledgement records it."""

    ident: str
    shown: str
    last_activity: float | None


def state_of(shown: str, last_activity: float | None) -> str:
    """What an acknowledgement holds of a run: ``dead@2026-05-01T10:00:00.123Z``."""
    return f"{shown}@{iso_utc(last_activity) or '-'}"


def needs_you(shown: str, last_activity: float | None, now: float, window: float) -> bool:
    """Stalled; or dead, failed or partial and last active within ``window`` seconds."""
    if shown == Status.STALLED.value:
        return True
    if shown in RECENT:
        return last_activity is None or now - last_activity <= window
    return False


class Acks:
    """The acknowledgements, read once (`load`) and checked without reading again.

    Args:
        state: the state dir; None keeps them for this session only.
    """

    def __init__(self, state: Path | None) -> None:
        self.table = StateTable(state, "acks", VERSION) if state is not None else None
        self.entries: dict[str, Any] = {}

    def load(self) -> Acks:
        if self.table is not None:
            self.entries = self.table.read()
        return self

    def seen(self, ident: str, shown: str, last_activity: float | None) -> bool:
        entry = self.entries.get(ident)
        return isinstance(entry, dict) and entry.get("state") == state_of(shown, last_activity)

    def ack(self, runs: Iterable[Seen], now: float) -> int:
        """Mark ``runs`` seen as they stand; how many were not seen so already."""
        wanted = {run.ident: state_of(run.shown, run.last_activity) for run in runs}

        def change(entries: dict[str, Any]) -> int:
            fresh = 0
            for ident, state in wanted.items():
                entry = entries.get(ident)
                if not (isinstance(entry, dict) and entry.get("state") == state):
                    fresh += 1
                entries[ident] = {"state": state, "at": now}
            for ident in [
                ident
                for ident, entry in entries.items()
                if not isinstance(entry, dict)
                or not isinstance(entry.get("at"), int | float)
                or now - entry["at"] > KEEP
            ]:
                del entries[ident]
            self.entries = dict(entries)
            return fresh

        if self.table is None:
            return change(self.entries)
        return self.table.update(change)
