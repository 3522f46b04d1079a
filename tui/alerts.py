"""The alerts a run's change of state raises: a death, a stall, the end of a live run.

Pure: `alert_for` compares a run's row before and after one change of the store; the app
shows what it returns (a toast, the bell) and keeps it in ``alerts``.
"""

from __future__ import annotations

from textual.notifications import SeverityLevel

from wftop.core.compared import record
from wftop.core.row import RunRow
from wftop.core.status import PARTIAL, Status
from wftop.tui.format import status_label

LIVE = frozenset({Status.RUNNING, Status.STALLED})


@record
class Alert:
    """A run changed state in a way a person wants to hear about."""

    ident: str
    before: str
    after: str
    message: str
    severity: SeverityLevel


def alert_for(before: RunRow, after: RunRow) -> Alert | None:
    """The alert for a status change: death, stall, or the end of a live run."""
    old, new = before.status, after.status
    if old == new:
        return None
    name = f"{after.name} ({after.run_id})" if after.name else after.run_id  # the id once
    if new is Status.DEAD and old in LIVE:
        workers = after.dead_workers or len(after.in_flight)
        plural = "s" if workers != 1 else ""
        detail = f" with {workers} worker{plural} in flight" if workers else ""
        message = f"{name} died{detail}"
        return Alert(after.ident, old.value, new.value, message, "error")
    if new is Status.STALLED and old is Status.RUNNING:
        message = f"{name} stalled: no growth in the stall window"
        return Alert(after.ident, old.value, new.value, message, "warning")
    if new in (Status.COMPLETED, Status.FAILED, Status.KILLED) and old in LIVE | {Status.DEAD}:
        shown = after.shown_status
        severities: dict[str, SeverityLevel] = {"completed": "information", PARTIAL: "warning"}
        severity = severities.get(shown, "error")
        message = f"{name} finished: {status_label(shown)}"
        if shown == PARTIAL:
            message += f", {len(after.failed_calls)} failed: r forecasts what a resume runs again"
        return Alert(after.ident, old.value, shown, message, severity)
    return None
