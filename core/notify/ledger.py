"""Once per event, and not too often: what every wftop process of the user has told.

Two TUIs and a ``wftop watch --notify`` see the same run die; one of them tells it. The
ledger (``<state>/notify/sent.json``) records each event told (`Event.key`: its kind, its
run and the state it is about) and, per run and kind, when one was last told: an event
is claimed by the first process that asks, and a run's next event of that kind waits out
the cooldown (300 s by default). Under ``--read-only`` the ledger is this process's own
(`MemoryLedger`). Entries older than a week are dropped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final, Protocol

from wftop.core.notify.events import Event
from wftop.core.notify.statefile import StateTable

KEEP: Final = 7 * 86400.0
"""Seconds an entry is kept."""
VERSION: Final = 1


class Ledger(Protocol):
    def claim(self, event: Event, cooldown: float) -> bool:
        """True: tell ``event`` now (and it is recorded as told); False: it was told, or
        its run's last one of that kind is within ``cooldown`` seconds."""


def _claim(entries: dict[str, Any], event: Event, cooldown: float) -> bool:
    sent = entries.setdefault("sent", {})
    last = entries.setdefault("last", {})
    if not isinstance(sent, dict) or not isinstance(last, dict):
        entries.clear()
        return _claim(entries, event, cooldown)
    if event.key in sent:
        return False
    run = f"{event.kind.value}|{event.ident}"
    before = last.get(run)
    if isinstance(before, int | float) and 0 <= event.at - before < cooldown:
        return False
    sent[event.key] = event.at
    last[run] = event.at
    for table in (sent, last):
        for key in [key for key, at in table.items() if not isinstance(at, int | float)]:
            del table[key]
        for key in [key for key, at in table.items() if event.at - at > KEEP]:
            del table[key]
    return True


class MemoryLedger:
    """This process's own ledger."""

    def __init__(self) -> None:
        self.entries: dict[str, Any] = {}

    def claim(self, event: Event, cooldown: float) -> bool:
        return _claim(self.entries, event, cooldown)


class StateLedger:
    """The ledger every wftop process of the user shares, in the state dir."""

    def __init__(self, state: Path) -> None:
        self.table = StateTable(state / "notify", "sent", VERSION)

    def claim(self, event: Event, cooldown: float) -> bool:
        return self.table.update(lambda entries: _claim(entries, event, cooldown))
