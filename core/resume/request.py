"""One resume request as the user hears of it: the `Request` a `ResumePolicy` carries out
(`wftop.core.resume.policy`), the events it tells, and what is left to do on the run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wftop.core.compared import compared
from wftop.core.model import Run
from wftop.core.resume.attempt import Attempt
from wftop.core.resume.guard import NOTHING_TO_RESUME
from wftop.core.resume.machine import ResumeState
from wftop.core.resume.plan import Plan
from wftop.core.resume.table import labels_text

FOLLOWED = frozenset({ResumeState.LAUNCHING, ResumeState.RUNNING})
"""States in which the relaunched process is followed."""


@compared
@dataclass(frozen=True, eq=False, repr=False)
class Event:
    """Something the user hears about: ``data`` for ``--json``, ``text`` for a person."""

    data: dict[str, Any]
    text: str

    @property
    def kind(self) -> str:
        return str(self.data["event"])


@compared
@dataclass(eq=False, repr=False)
class Request:
    """One request of the user, as the policy carries it out."""

    plan: Plan
    """The plan being carried out (the relocated one after a fallback)."""
    state: ResumeState | None
    """Where the request stands (None: it could not be recorded, see ``reason``)."""
    reason: str
    request_id: str | None = None
    attempt: Attempt | None = None
    """The launch being followed (the last one, once the request ended)."""
    reattached: bool = False
    """Another request of the run was in flight: this one follows it."""
    misses: list[str] = field(default_factory=list)
    spent: str = ""
    """Once it ended: what it cost beside the forecast (`spent_words`), as the done event
    says it."""

    @property
    def in_flight(self) -> bool:
        return self.attempt is not None and self.state in FOLLOWED

    @property
    def ended(self) -> bool:
        return not self.in_flight


def state_event(state: ResumeState, reason: str) -> Event:
    data = {"event": "state", "state": state.value, "reason": reason}
    return Event(data, f"{state.word}: {reason}")


def what_is_left(plan: Plan) -> str:
    """What is left to do on the run a plan was made for, in one line.

    ``completed · nothing to resume``; or the failed calls and, per strategy, what it
    would run again; or empty when the run can simply be resumed (or is not finished).
    """
    if plan.verdict.reason == NOTHING_TO_RESUME:
        return "completed · nothing to resume"
    failed = plan.run.failed_labels
    if not failed:
        return ""
    reruns = [
        f"{name} runs {labels_text(forecast.live)}"
        for name, forecast in plan.forecasts.items()
        if set(failed) & set(forecast.live)
    ]
    what = " · ".join(reruns) or "no strategy re-runs them"
    return f"failed calls: {', '.join(failed)} · {what}"


def agents_after(run: Run, lines: int) -> list[str]:
    """The agents of the attempts started after journal line ``lines`` of ``run``."""
    return [
        agent
        for call in run.fold.ordered_calls()
        for agent, line in zip(call.agent_ids, call.attempt_lines, strict=False)
        if line > lines
    ]


def refused(reason: str) -> Event:
    return Event({"event": "refused", "guard": reason}, f"wftop: refused: {reason}")


def miss(label: str) -> Event:
    return Event(
        {"event": "cache_miss", "label": label},
        f"⚠ cache miss: {label} is re-running although the forecast served it from cache",
    )
