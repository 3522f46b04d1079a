"""Runs a person has seen (``a``, ``A``, ``wftop ack``), and what still needs them.

A run needs you when it is stalled, or dead, failed or partial with its last activity
within the attention window (`needs_you`), and you have not marked it seen in that state.
An acknowledgement holds the run's shown status and last activity: when either changes (the
run was resumed and died again, say), it needs you again. Moments are compared to within
`SAME` (a row read back from JSON holds its time to the millisecond). Kept in
``<state>/acks.json`` for every wftop process of the user; under ``--read-only`` for the
session only (`Acks` without a state dir).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

from wftop.core.attention import SAME, RunState, needs_you
from wftop.core.notify.statefile import StateTable

__all__ = ["Acks", "RunState", "needs_you"]

VERSION: Final = 1
KEEP: Final = 90 * 86400.0
"""Seconds an acknowledgement is kept."""


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

    def seen(self, run: RunState) -> bool:
        return _same(self.entries.get(run.ident), run)

    def ack(self, runs: Iterable[RunState], now: float) -> int:
        """Mark ``runs`` seen as they stand; how many were not seen so already."""
        wanted = {run.ident: run for run in runs}

        def change(entries: dict[str, Any]) -> int:
            fresh = 0
            for ident, run in wanted.items():
                fresh += not _same(entries.get(ident), run)
                entries[ident] = {"shown": run.shown, "activity": run.last_activity, "at": now}
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


def _same(entry: Any, run: RunState) -> bool:
    """The acknowledgement ``entry`` is of the run as it stands now."""
    if not isinstance(entry, dict) or entry.get("shown") != run.shown:
        return False
    then, now = entry.get("activity"), run.last_activity
    if then is None or now is None:
        return then is None and now is None
    return isinstance(then, int | float) and abs(then - now) <= SAME
