"""The facts of one run as the supervisor's decision reads them: what it finds on disk.

Why the run stopped: the plan's stop cause (the kind of its failed calls when it has some,
else its session's; ``killed`` for a dead run whose session recorded no error), and when the
CLI had scheduled its next try (``retryInMs`` after its record, in the session's tail or a
failed call's transcript). The guard's verdict and the forecast come from
the resume plan, the resumes the supervisor already made from the resume log (its
requests say ``supervise: <cause>``), the dollars from the pricer.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Protocol

from wftop.core.forensics.limits import TAIL_RECORDS
from wftop.core.forensics.session_transcript import read_worker_events
from wftop.core.model import Run
from wftop.core.read.agent_transcript import transcript_path
from wftop.core.read.errors import ErrorEvent
from wftop.core.read.snapshot import parse_iso_time
from wftop.core.resume.guard import QUIET_SECONDS
from wftop.core.resume.plan import Plan
from wftop.core.resume.records import RequestStatus
from wftop.core.resume.store import ResumeStore
from wftop.core.supervise.decide import UsdRange

REQUEST_PREFIX: Final = "supervise: "
"""How a resume request the supervisor made begins its reason (then the cause)."""


def request_reason(cause: str | None) -> str:
    return f"{REQUEST_PREFIX}{cause or 'no known cause'}"


def ours(status: RequestStatus) -> bool:
    """The request was made by a supervisor."""
    return bool(status.transitions) and status.transitions[0].reason.startswith(REQUEST_PREFIX)


def request_cause(status: RequestStatus) -> str:
    return status.transitions[0].reason.removeprefix(REQUEST_PREFIX) if status.transitions else ""


@dataclass(frozen=True)
class Stop:
    """Why a run stopped, as the decision reads it."""

    cause: str | None
    evidence: str | None = None
    at: float | None = None
    resets_at: float | None = None
    retry_at: float | None = None


def _retry_at(events: Iterable[ErrorEvent]) -> float | None:
    """When the CLI would have tried again: its last record's time plus its ``retryInMs``."""
    latest = None
    for event in events:
        at = parse_iso_time(event.timestamp)
        if event.retry_in_ms is not None and at is not None:
            latest = max(latest or 0.0, at + event.retry_in_ms / 1000)
    return latest


def failed_call_events(run: Run) -> list[list[ErrorEvent]]:
    """The error records of each failed call's latest attempt (its agent transcript's tail)."""
    failed = set(run.failed_labels)
    found = []
    for call in run.fold.calls.values():
        if call.label not in failed or not call.agent_ids:
            continue
        path = transcript_path(run.folder.path, call.agent_ids[-1])
        if path is not None:
            found.append(read_worker_events(path, tail_records=TAIL_RECORDS))
    return found


def why_stopped(run: Run, plan: Plan) -> Stop:
    """The plan's stop cause (the kind of the run's failed calls when it has some, else its
    session's), and when the CLI had scheduled its next try."""
    events = [event for found in failed_call_events(run) for event in found]
    if os.path.isfile(run.folder.transcript):
        events += read_worker_events(run.folder.transcript, tail_records=TAIL_RECORDS)
    retry_at = _retry_at(events)
    cause = plan.stop_cause
    if cause is None:
        return Stop(None, retry_at=retry_at)
    return Stop(cause.cause, words(cause.evidence), cause.at, cause.resets_at, retry_at)


WHERE: Final = re.compile(r"^\S.*?:\d+: ", re.S)


def words(evidence: str | None) -> str | None:
    """Evidence without the file and line it was read at (``<path>:<line>: ``)."""
    return None if evidence is None else WHERE.sub("", evidence, count=1)


@dataclass(frozen=True)
class PastResumes:
    """The resumes the supervisor made for one run and one cause, one after another."""

    attempts: int = 0
    last_end: float | None = None
    last_state: str | None = None
    in_flight: RequestStatus | None = None
    """The run's request that is launching or running (the supervisor's or not)."""


def past_resumes(store: ResumeStore, run_id: str, cause: str | None) -> PastResumes:
    """Count, newest first, the supervisor's launched requests for ``cause`` until one of
    someone else's or for another cause (a request the guard blocked before any launch
    is passed over)."""
    transitions, _problems = store.history(run_id)
    requests = list(dict.fromkeys(transition.request for transition in transitions))
    statuses = [status for r in requests if (status := store.status(run_id, r)) is not None]
    in_flight = next((status for status in reversed(statuses) if status.active), None)
    attempts, last_end, last_state = 0, None, None
    wanted = cause or "no known cause"
    for status in reversed(statuses):
        if status.active:
            continue
        if not ours(status) or request_cause(status) != wanted:
            break
        if status.attempts == 0:
            continue
        attempts += 1
        if last_end is None:
            last_end = parse_iso_time(status.transitions[-1].time)
            last_state = status.state.value
    return PastResumes(attempts, last_end, last_state, in_flight)


class Pricer(Protocol):
    """What resumes cost: the forecast of a plan, and what the agents of a resume spent."""

    def forecast(self, plan: Plan) -> UsdRange | None: ...

    def over_cap(self, plan: Plan, max_usd: float | None) -> str | None: ...

    def spent(self, folder: str, agent_ids: list[str]) -> float | None: ...


def quiet_at(run: Run) -> float | None:
    """When a refusal for recent growth lifts."""
    return None if run.last_activity is None else run.last_activity + QUIET_SECONDS
