"""The records of a run's resume log: one transition per line, and a request's state.

A `Transition` is one line of ``<state>/resume/<runId>.jsonl`` (``to_json`` writes it,
``from_record`` validates a parsed one), with the launch facts known at that point in
its `TransitionDetails`. A `RequestStatus` is where one request stands, rebuilt from its
transitions. ``wftop.core.resume.store`` reads and appends them. Nothing here imports UI code.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Final

import orjson

from wftop.core.compared import compared
from wftop.core.resume.states import ACTIVE_STATES, ResumeEvent, ResumeState


@compared
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class TransitionDetails:
    """Facts about a launch, recorded with a transition when they are known."""

    pid: int | None = None
    """Pid of the detached runner."""
    proc_start: str | None = None
    """The runner's start time (field 22 of /proc/<pid>/stat)."""
    strategy: str | None = None
    argv: tuple[str, ...] | None = None
    cwd: str | None = None
    session_id: str | None = None
    log_path: str | None = None
    status_path: str | None = None
    exit_code: int | None = None
    forecast_cached: tuple[str, ...] | None = None
    """The calls the forecast the launch followed served from cache (its tripwire's), by
    label, secrets masked."""
    journal_lines: int | None = None
    """Lines the followed journal held at launch: what the launch wrote comes after them."""


_DETAIL_NAMES: Final = tuple(field.name for field in fields(TransitionDetails))
_LIST_NAMES: Final = frozenset({"argv", "forecast_cached"})


@compared
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Transition:
    """One line of a run's resume log."""

    time: str
    """ISO-8601 UTC."""
    request: str
    attempt: int
    """Launch attempts made for the request once this transition happened."""
    from_state: ResumeState | None
    """None for the line that creates the request."""
    to_state: ResumeState
    event: ResumeEvent | None
    reason: str
    details: TransitionDetails = TransitionDetails()

    def to_json(self) -> bytes:
        record: dict[str, Any] = {
            "time": self.time,
            "request": self.request,
            "attempt": self.attempt,
            "from": self.from_state,
            "to": self.to_state,
            "event": self.event,
            "reason": self.reason,
        }
        for name in _DETAIL_NAMES:
            value = getattr(self.details, name)
            if value is not None:
                record[name] = list(value) if isinstance(value, tuple) else value
        return orjson.dumps(record) + b"\n"

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Transition:
        """Validate one parsed log line.

        Raises:
            ValueError: A field is missing or has the wrong type.
        """
        source, event = record.get("from"), record.get("event")
        time_, request, attempt, reason = (
            record.get("time"),
            record.get("request"),
            record.get("attempt"),
            record.get("reason"),
        )
        if not (isinstance(time_, str) and isinstance(request, str) and isinstance(reason, str)):
            msg = "expected string 'time', 'request' and 'reason'"
            raise ValueError(msg)
        if not isinstance(attempt, int) or isinstance(attempt, bool) or attempt < 0:
            msg = f"expected a non-negative integer 'attempt', got {attempt!r}"
            raise ValueError(msg)
        values: dict[str, Any] = {}
        for name in _DETAIL_NAMES:
            value = record.get(name)
            if name in _LIST_NAMES and isinstance(value, list):
                value = tuple(str(part) for part in value)
            values[name] = value
        return cls(
            time=time_,
            request=request,
            attempt=attempt,
            from_state=None if source is None else ResumeState(source),
            to_state=ResumeState(str(record.get("to"))),
            event=None if event is None else ResumeEvent(event),
            reason=reason,
            details=TransitionDetails(**values),
        )


@compared
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class RequestStatus:
    """Where the latest (or a given) request of a run stands, rebuilt from the log."""

    run_id: str
    request: str
    state: ResumeState
    attempts: int
    """Launches made so far for this request."""
    transitions: tuple[Transition, ...]

    @property
    def active(self) -> bool:
        """Launching or running: a process may be alive; re-attach, never relaunch."""
        return self.state in ACTIVE_STATES

    def fact(self, name: str) -> Any:
        """Latest known value of a `TransitionDetails` field for the current attempt."""
        for transition in reversed(self.transitions):
            if transition.attempt != self.attempts:
                break
            value = getattr(transition.details, name)
            if value is not None:
                return value
        return None
