"""What the index and the other hosts hand the app, and what the app makes of it.

The messages the cold start, the follow worker and the host links post to the app's
loop (each carries a change set made off the loop), the runs keyed by ident in a worker,
and the alerts a status change raises (death, stall, the end of a live run).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message
from textual.notifications import SeverityLevel

from wftop.core.index.changeset import ChangeSet
from wftop.core.model import PARTIAL, Run, Status
from wftop.tui.format import status_label

if TYPE_CHECKING:
    from wftop.core.remote.link import Update

LIVE = frozenset({Status.RUNNING, Status.STALLED})


@dataclass(frozen=True)
class Alert:
    """A run changed state in a way a person wants to hear about."""

    ident: str
    before: str
    after: str
    message: str
    severity: SeverityLevel


def ready(changes: ChangeSet) -> ChangeSet:
    """The change set, with what every list asks of its runs made already (each `Run`
    keeps it): called where the message is made, in a worker, so that the first re-sort or
    refilter of 20,000 runs, or drawing a row of 50,000 calls, does not make it on the loop."""
    for run in (*changes.added, *changes.changed):
        run.ident, run.shown_status, run.project_short, run.call_counts  # noqa: B018
    return changes


class IndexLoaded(Message):
    """The cold start finished; every run arrives as ``added``, and keyed by ident (keyed
    in the worker: the loop only takes the dicts)."""

    def __init__(self, changes: ChangeSet) -> None:
        super().__init__()
        self.changes = ready(changes)
        self.keyed = Keyed.of(changes.added)


@dataclass(frozen=True)
class Keyed:
    """Runs by ident, and those of them `needs_a_look` says attention may count."""

    runs: dict[str, Run]
    needy: dict[str, Run]

    @classmethod
    def of(cls, runs: Iterable[Run]) -> Keyed:
        keyed = {run.ident: run for run in runs}
        return cls(keyed, {ident: run for ident, run in keyed.items() if needs_a_look(run)})


def needs_a_look(run: Run) -> bool:
    """Stalled, dead or partial (completed with failed calls): the runs `WftopApp.attention`
    counts (the dead and partial ones while recent)."""
    return run.status is Status.STALLED or run.shown_status in (Status.DEAD, PARTIAL)


class IndexBatch(Message):
    """The newest runs, read ahead of the cold start so the first screen has rows."""

    def __init__(self, changes: ChangeSet) -> None:
        super().__init__()
        self.changes = ready(changes)


class HostsUpdated(Message):
    """Change sets and states from the other hosts' links, in the order they came."""

    def __init__(self, updates: list[Update]) -> None:
        super().__init__()
        self.updates = updates
        for update in updates:
            ready(update.changes)


class IndexChanged(Message):
    """A change set the index made in the follow worker, ready to apply."""

    def __init__(self, changes: ChangeSet) -> None:
        super().__init__()
        self.changes = ready(changes)


class IndexProgressed(Message):
    """The cold start has read this many runs so far."""

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IndexProgressed)


def alert_for(before: Run, after: Run) -> Alert | None:
    """The alert for a status change: death, stall, or the end of a live run."""
    old, new = before.status, after.status
    if old == new:
        return None
    name = after.name or after.run_id
    if new is Status.DEAD and old in LIVE:
        workers = len(after.dead_workers)
        plural = "s" if workers != 1 else ""
        detail = f" with {workers} worker{plural} in flight" if workers else ""
        message = f"{name} ({after.run_id}) died{detail}"
        return Alert(after.ident, old.value, new.value, message, "error")
    if new is Status.STALLED and old is Status.RUNNING:
        message = f"{name} ({after.run_id}) stalled: no growth in the stall window"
        return Alert(after.ident, old.value, new.value, message, "warning")
    if new in (Status.COMPLETED, Status.FAILED, Status.KILLED) and old in LIVE | {Status.DEAD}:
        shown = after.shown_status
        severities: dict[str, SeverityLevel] = {"completed": "information", PARTIAL: "warning"}
        severity = severities.get(shown, "error")
        message = f"{name} ({after.run_id}) finished: {status_label(shown)}"
        if shown == PARTIAL:
            message += f", {len(after.failed_labels)} failed: resumable (surgical)"
        return Alert(after.ident, old.value, shown, message, severity)
    return None
