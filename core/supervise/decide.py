"""Whether the supervisor resumes a run now: a pure function of the facts and the clock.

The facts of one run at one moment (`Facts`: its status, why it stopped, the guard's
verdict, the forecast's dollars, the resumes the supervisor already made for this failure)
and the user's settings (`Settings`: the caps, the backoff, the attempts) go through
`GATES`, an ordered table: the first gate that has something to say decides (`Decision`),
and a run no gate stops is launched. Nothing here reads the disk, the clock or the
network: the clock is ``now`` (and the end of the local day, ``day_ends``), the jitter
of the backoff is handed in, and a TCP probe's answer is one of the facts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Final

from wftop.core.cost.tokens import dollars
from wftop.core.supervise.rules import (
    ATTEMPTS_DEFAULT,
    BACKOFF_DEFAULT,
    PROBE_EVERY,
    RESET_MARGIN,
    USAGE_WINDOW,
    Clears,
    Jitter,
    backoff_delay,
    clears,
)

CANDIDATES: Final = frozenset({"dead", "partial", "failed", "killed"})
"""Shown statuses of a run a resume may bring back (a running or stalled run has an owner,
a completed one nothing left to do, a superseded one a continuation)."""


class Action(StrEnum):
    NOTHING = "nothing"
    """Not a run to resume (running, completed, superseded): no line is written."""
    WAIT = "waiting"
    REFUSE = "refused"
    LAUNCH = "launched"
    FOLLOW = "follow"
    """A resume the supervisor launched is in flight: follow it to its end."""


@dataclass(frozen=True)
class UsdRange:
    """A forecast in dollars; ``high`` None when it has no upper bound."""

    low: float
    high: float | None

    def text(self) -> str:
        high = "open" if self.high is None else dollars(self.high)
        return f"{dollars(self.low)}–{high}"


@dataclass(frozen=True)
class Facts:
    """One run, as the supervisor found it."""

    run: str
    status: str
    """The shown status (``dead``, ``partial``, ``running``, …)."""
    cause: str | None = None
    """The stop cause's kind (`wftop.core.supervise.rules.RULES`), None when none is known."""
    evidence: str | None = None
    cause_at: float | None = None
    """When the evidence was written."""
    stopped_at: float | None = None
    """The run's last activity."""
    resets_at: float | None = None
    """When a usage limit lifts, if the CLI recorded it."""
    retry_at: float | None = None
    """When the CLI had scheduled its next try (its last ``retryInMs`` after its record)."""
    api_host: str | None = None
    """``host:port`` of the API the run used (for ``network``)."""
    reachable: bool | None = None
    """A TCP connection to ``api_host`` succeeded just now (None: not probed)."""
    guard_ok: bool = True
    guard_reason: str = "ok"
    guard_forceable: bool = True
    quiet_at: float | None = None
    """When a refusal for recent growth lifts (the run's last write plus the quiet time)."""
    fresh_ok: bool | None = None
    """A fresh relaunch of the run's script would pass the guard (None: not asked)."""
    strategy: str | None = None
    """The strategy the plan recommends."""
    forecast: UsdRange | None = None
    """The dollars the recommended resume will cost (None: no forecast could be made)."""
    over_cap: str | None = None
    """Why that forecast does not fit the per-run cap (the resume budget's check); None
    when it fits (or there is no cap)."""
    fresh_forecast: UsdRange | None = None
    fresh_over_cap: str | None = None
    in_flight: str | None = None
    """The request id of a resume of the run that is launching or running."""
    in_flight_ours: bool = False
    attempts: int = 0
    """Resumes the supervisor made for this run and this cause, one after another."""
    last_end: float | None = None
    """When the latest of those ended."""
    last_state: str | None = None
    """How the latest of those ended (``completed_with_failures``, ``launch_failed``, …)."""
    spent_today: float = 0.0
    """Dollars of the supervisor's launches since local midnight (a launch still running
    counts its forecast's high end)."""


@dataclass(frozen=True)
class Settings:
    max_usd: float | None = None
    """The per-run cap; None: no cap, nothing is launched."""
    daily_usd: float | None = None
    """The cap on a day's launches; None: none."""
    backoff: float = BACKOFF_DEFAULT
    attempts: int = ATTEMPTS_DEFAULT
    fallback_fresh: bool = False


@dataclass(frozen=True)
class Decision:
    action: Action
    reason: str
    until: float | None = None
    """When to look again (WAIT), if a moment is known."""
    strategy: str | None = None
    """LAUNCH: ``fresh`` for the fallback, else None (the plan's recommended strategy)."""
    notify: bool = False
    """A person should hear of it."""
    forecast: UsdRange | None = None


@dataclass(frozen=True)
class Moment:
    """The clock, as the gates read it."""

    now: float
    day_ends: float
    """The next local midnight: the day's total starts again then."""
    jitter: Jitter


Gate = Callable[[Facts, Settings, Moment], Decision | None]


def _candidate(facts: Facts, _settings: Settings, _at: Moment) -> Decision | None:
    if facts.status in CANDIDATES:
        return None
    return Decision(Action.NOTHING, f"{facts.status}: nothing to resume")


def _ours_in_flight(facts: Facts, _settings: Settings, _at: Moment) -> Decision | None:
    if facts.in_flight is None or not facts.in_flight_ours:
        return None
    return Decision(Action.FOLLOW, f"its resume {facts.in_flight} is in flight: follow it")


def _in_flight(facts: Facts, _settings: Settings, _at: Moment) -> Decision | None:
    if facts.in_flight is None:
        return None
    return Decision(
        Action.WAIT, f"a resume started elsewhere ({facts.in_flight}) is in flight: wait for it"
    )


def _never(facts: Facts, _settings: Settings, _at: Moment) -> Decision | None:
    if clears(facts.cause) is not Clears.NEVER:
        return None
    cause = facts.cause or "no known cause"
    return Decision(
        Action.REFUSE,
        f"stopped by {cause}: not a cause it clears by itself; a person resumes it",
        notify=True,
    )


def _fresh(facts: Facts, settings: Settings, why: str) -> Decision | None:
    """The fresh fallback, when ``--fallback fresh`` allows it and its cap holds."""
    if not settings.fallback_fresh or not facts.fresh_ok:
        return None
    over = _no_cap(facts.fresh_forecast, settings) or facts.fresh_over_cap
    if over is not None:
        return Decision(
            Action.REFUSE,
            f"{why}; fresh fallback: {over}",
            notify=True,
            forecast=facts.fresh_forecast,
        )
    return Decision(
        Action.LAUNCH,
        f"{why}: --fallback fresh relaunches its script",
        strategy="fresh",
        forecast=facts.fresh_forecast,
    )


def _cannot_resume(facts: Facts, settings: Settings, _at: Moment) -> Decision | None:
    if facts.last_state == "launch_failed":
        why = "its last resume could not be launched"
    elif not facts.guard_ok and not facts.guard_forceable:
        why = f"the guard refuses: {facts.guard_reason}"
    else:
        return None
    return _fresh(facts, settings, why) or Decision(Action.REFUSE, why, notify=True)


def _attempts(facts: Facts, settings: Settings, _at: Moment) -> Decision | None:
    if facts.attempts < settings.attempts:
        return None
    return Decision(
        Action.REFUSE,
        f"{facts.attempts} of {settings.attempts} resumes for {facts.cause} used: "
        "it stops here; a person resumes it",
        notify=True,
    )


def _no_cap(forecast: UsdRange | None, settings: Settings) -> str | None:
    if settings.max_usd is not None:
        return None
    shown = "no forecast" if forecast is None else f"forecast {forecast.text()}"
    return f"no cap (--max-usd, or [supervise] max_usd): it launches nothing ({shown})"


def _run_cap(facts: Facts, settings: Settings, _at: Moment) -> Decision | None:
    over = _no_cap(facts.forecast, settings) or facts.over_cap
    if over is None:
        return None
    return Decision(Action.REFUSE, over, notify=True)


def _daily_cap(facts: Facts, settings: Settings, at: Moment) -> Decision | None:
    if settings.daily_usd is None or facts.forecast is None or facts.forecast.high is None:
        return None
    total = facts.spent_today + facts.forecast.high
    if total <= settings.daily_usd:
        return None
    return Decision(
        Action.WAIT,
        f"today's launches {dollars(facts.spent_today)} + forecast {dollars(facts.forecast.high)} "
        f"over --daily-usd {dollars(settings.daily_usd)}: wait for the next day",
        until=at.day_ends,
    )


def _backoff_until(facts: Facts, settings: Settings, at: Moment) -> float:
    if facts.attempts == 0:
        anchor = facts.cause_at or facts.stopped_at or at.now
    else:
        anchor = facts.last_end or facts.stopped_at or at.now
    delay = backoff_delay(settings.backoff, facts.attempts, at.jitter(facts.run, facts.attempts))
    until = anchor + delay
    return max(until, facts.retry_at) if facts.retry_at is not None else until


def _clears(facts: Facts, settings: Settings, at: Moment) -> Decision | None:
    way = clears(facts.cause)
    if way is Clears.BACKOFF:
        until = _backoff_until(facts, settings, at)
        attempt = facts.attempts + 1
        why = f"{facts.cause}: backoff before resume {attempt} of {settings.attempts}"
    elif way is Clears.RESET and facts.resets_at is not None:
        until = facts.resets_at + RESET_MARGIN
        why = "usage_limit: until its reset plus a margin"
    elif way is Clears.RESET:
        anchor = facts.cause_at or facts.stopped_at or at.now
        until = anchor + USAGE_WINDOW + RESET_MARGIN
        why = "usage_limit with no reset time recorded: one five-hour window"
    elif way is Clears.CONNECT and not facts.reachable:
        host = facts.api_host or "the API host"
        return Decision(
            Action.WAIT,
            f"network: no TCP connection to {host} yet",
            until=at.now + PROBE_EVERY,
        )
    else:
        return None
    if until <= at.now:
        return None
    return Decision(Action.WAIT, why, until=until)


def _guard_passes(facts: Facts, _settings: Settings, _at: Moment) -> Decision | None:
    if facts.guard_ok:
        return None
    return Decision(
        Action.WAIT,
        f"the guard refuses: {facts.guard_reason}",
        until=facts.quiet_at,
    )


def _launch(facts: Facts, _settings: Settings, _at: Moment) -> Decision:
    cause = facts.cause or "no known cause"
    way = clears(facts.cause)
    cleared = {
        Clears.BACKOFF: "its backoff is over",
        Clears.RESET: "its usage limit has reset",
        Clears.CONNECT: f"{facts.api_host or 'the API host'} answers",
        Clears.AT_ONCE: "nothing to wait for",
    }.get(way, "cleared")
    return Decision(
        Action.LAUNCH,
        f"stopped by {cause}, {cleared}: resume {facts.attempts + 1} ({facts.strategy})",
    )


GATES: Final[tuple[tuple[str, Gate], ...]] = (
    ("none of its resumes in flight", _ours_in_flight),
    ("a run to resume", _candidate),
    ("no resume in flight", _in_flight),
    ("a cause it clears by itself", _never),
    ("a resume can be launched", _cannot_resume),
    ("attempts left", _attempts),
    ("the per-run cap", _run_cap),
    ("the cause has cleared", _clears),
    ("the day's cap", _daily_cap),
    ("the guard", _guard_passes),
)
"""Checked in this order; the first that returns a decision decides (else: launch)."""


def decide(facts: Facts, settings: Settings, at: Moment) -> Decision:
    """What to do with the run now: the first gate's decision, else launch; with the
    forecast it was made with (the fresh one's for the fresh fallback)."""
    decision = next(
        (found for _name, gate in GATES if (found := gate(facts, settings, at)) is not None),
        None,
    ) or _launch(facts, settings, at)
    if decision.forecast is None and decision.action is not Action.NOTHING:
        return replace(decision, forecast=facts.forecast)
    return decision
