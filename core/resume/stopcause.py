"""Why a run stopped, and whether that is probably still so: `wftop scan`'s cause, for the plan.

The cause is the one `wftop.core.forensics` finds in the run's session (rate limit,
usage limit and its reset time, expired login, network, overload, a machine that slept,
…); a dead or killed run whose session recorded none was killed or crashed. A cause that
is probably still there (a usage limit whose reset is still ahead of the clock, a login
that expired, an outage minutes ago) gets a warning, so that a resume does not walk into
the same wall.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from wftop.core.calls import dominant_failure
from wftop.core.compared import compared
from wftop.core.forensics.causes import CLEARS
from wftop.core.forensics.report import build_report
from wftop.core.model import Run, Status, iso_utc
from wftop.core.read.errors import Cause
from wftop.core.system.procs import ProcessTable

KILLED: Final = Cause.CLEAN_OR_UNKNOWN.value
"""The cause of a dead (or killed) run whose session recorded no error: nothing recorded one
(the evidence says the process was killed or crashed)."""

KILLED_CLEARS: Final = "nothing to clear: resume"
KILLED_EVIDENCE: Final = "the process ended without recording an error: killed or crashed"

LINGERS: Final[dict[Cause, float]] = {
    Cause.RATE_LIMITED: 60.0,
    Cause.API_OVERLOAD: 300.0,
    Cause.API_5XX: 300.0,
    Cause.NETWORK: 120.0,
    Cause.STALLED: 120.0,
    Cause.USAGE_LIMIT: 5 * 3600.0,
}
"""Seconds after its evidence that a passing cause is probably still there (a usage limit
with no reset time recorded is taken to last one five-hour window)."""

ALWAYS: Final[dict[Cause, str]] = {
    Cause.AUTH_EXPIRED: "the login had expired: sign in again first, "
    "or the resume fails the same way",
    Cause.CONTEXT_TOO_LONG: "the session's context was too long: a resume of the same session "
    "hits it again (relocate or surgical start a new one)",
}
"""Causes nothing but the user clears: always warned about."""

STOPPED: Final = frozenset({Status.DEAD, Status.KILLED, Status.FAILED, Status.COMPLETED})


@compared
@dataclass(frozen=True, eq=False, repr=False)
class StopCause:
    """Why the run stopped, with the evidence, what clears it, and a warning if it lingers."""

    cause: str
    evidence: str | None
    clears: str
    at: float | None
    """When the evidence was written (epoch seconds), if it says."""
    resets_at: float | None = None
    """When a usage limit lifts, if the CLI recorded it."""
    warning: str | None = None
    """Set when the cause is probably still there."""

    @property
    def still_there(self) -> bool:
        return self.warning is not None

    def to_json(self) -> dict[str, Any]:
        """The ``stop_cause`` object of ``wftop resume --dry-run --json``."""
        return {
            "cause": self.cause,
            "evidence": self.evidence,
            "clears": self.clears,
            "at": iso_utc(self.at),
            "resets_at": iso_utc(self.resets_at),
            "still_there": self.still_there,
            "warning": self.warning,
        }

    def line(self) -> str:
        """One line for the plan: the cause, and its evidence or what clears it."""
        return f"{self.cause.replace('_', ' ')}: {self.evidence or self.clears}"


def _epoch(stamp: str | None) -> float | None:
    if not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp).timestamp()
    except ValueError:
        return None


def _minutes(seconds: float) -> str:
    minutes = max(1, round(seconds / 60))
    return f"{minutes} min" if minutes < 120 else f"{minutes / 60:.1f} h"


def lingering(cause: Cause, at: float | None, resets_at: float | None, now: float) -> str | None:
    """The warning for a cause that is probably still there at ``now``, else None."""
    if cause in ALWAYS:
        return ALWAYS[cause]
    if cause is Cause.USAGE_LIMIT and resets_at is not None:
        if resets_at <= now:
            return None
        return (
            f"the usage limit resets at {iso_utc(resets_at)} ({_minutes(resets_at - now)} "
            "from now): a resume before then hits it again"
        )
    window = LINGERS.get(cause)
    if window is None or at is None or now - at > window:
        return None
    ago = _minutes(now - at)
    if cause is Cause.USAGE_LIMIT:
        return f"the usage limit was hit {ago} ago and no reset time was recorded: check it first"
    return f"{cause.value.replace('_', ' ')} {ago} ago: it may still be there; wait before resuming"


def stop_cause(run: Run, *, processes: ProcessTable, now: float) -> StopCause | None:
    """Why ``run`` stopped: the kind of its failed calls (`wftop.core.calls.run_cause`, as
    ``stats`` says it) when it has some, else its session's cause (None while it runs, or when
    its session transcript is gone)."""
    if run.status not in STOPPED:
        return None
    failure = dominant_failure(run)
    if failure is not None:
        kind = Cause(failure.kind)
        return StopCause(
            kind.value,
            failure.evidence,
            CLEARS[kind],
            failure.at,
            failure.resets_at,
            lingering(kind, failure.at, failure.resets_at, now),
        )
    if run.status is Status.COMPLETED or not os.path.isfile(run.folder.transcript):
        return None
    report = build_report(
        run.folder.transcript, owner=run.owner, processes=processes, with_runs=False
    )
    verdict = report.verdict
    event = verdict.event
    at = _epoch(event.timestamp) if event is not None else None
    if verdict.cause is Cause.CLEAN_OR_UNKNOWN:
        if run.status not in (Status.DEAD, Status.KILLED):
            return None
        evidence = KILLED_EVIDENCE + (f" ({verdict.note})" if verdict.note else "")
        return StopCause(KILLED, evidence, KILLED_CLEARS, None)
    resets_at = event.resets_at if event is not None else None
    return StopCause(
        verdict.cause.value,
        verdict.evidence,
        verdict.clears,
        at,
        resets_at,
        lingering(verdict.cause, at, resets_at, now),
    )
