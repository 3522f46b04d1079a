"""What the resume plan screen says, as Rich markup, in sections: the header (run, strategy,
session, argv), why the run stopped, the forecast, the hazards; and, docked under them, the
verdict (or the request in flight, or its outcome) with the keys that act on it.

Everything read from disk is masked (`wftop.core.text.redact`) and escaped.
"""

from __future__ import annotations

from rich.markup import escape

from wftop.core.forecast.cachewarm import cache_text
from wftop.core.resume.launcher import Strategy
from wftop.core.resume.machine import ResumeState
from wftop.core.resume.plan import Plan
from wftop.core.resume.policy import Request, what_is_left
from wftop.core.text.redact import redact

KEYS_FOLLOWING = "s stop the relaunch · esc close (the run goes on)"


def shown(text: str) -> str:
    """Text from disk as markup: secrets masked (`wftop.core.text.redact`), then escaped."""
    return escape(redact(text))


def header_text(plan: Plan, now: float) -> list[str]:
    run = plan.run
    fresh = plan.strategy is Strategy.FRESH
    what = "Relaunch fresh" if fresh else "Resume"
    choice = (
        "a new run of the same script, nothing from cache"
        if fresh
        else f"recommended: {plan.recommended.value}   (1 resume-owner · 2 relocate · 3 surgical)"
    )
    return [
        f"[b]{what}[/b] {shown(run.name or '(unnamed)')}  {run.run_id}  ({run.shown_status})",
        f"strategy  [b]{plan.strategy.value}[/b]   {choice}",
        f"session   {plan.session_id}"
        + ("" if plan.session_id == run.session_id else f"  (new; owner {run.session_id})"),
        *([] if fresh else [f"          owner's {cache_text(plan.cache_warm_until, now)}"]),
        f"cwd       {shown(plan.cwd or '-')}",
        f"argv      {shown(' '.join(plan.argv[:-1]))} <prompt>",
    ]


def cause_text(plan: Plan) -> list[str]:
    """Why the run stopped, and a warning while that is probably still so."""
    cause = plan.stop_cause
    if cause is None:
        return []
    lines = [f"stopped   {shown(cause.line())}"]
    if cause.warning:
        lines.append(f"[yellow]⚠ {shown(cause.warning)}[/]")
    return lines


def exact_text(plan: Plan, rehearsal: str) -> list[str]:
    """Which forecast the plan shows for its strategy (the others are estimates): ``exact,
    rehearsed with claude X``, or ``estimate`` and what its rehearsal is doing
    (``rehearsal``: running, or why there is none)."""
    if plan.strategy is Strategy.FRESH:
        return []
    line = f"forecast  {plan.strategy.value}: {plan.forecast.provenance}"
    if plan.forecast.exact or not rehearsal:
        return [line]
    return [f"{line} · {shown(rehearsal)}"]


def forecast_text(plan: Plan) -> list[str]:
    lines = []
    for name, forecast in plan.forecasts.items():
        mark = "▶" if name == plan.strategy.value else " "
        lines.append(f"{mark} {name:<13} {shown(forecast.summary())}")
        lines.append(f"    live: {shown(', '.join(forecast.live) or '-')}")
    if plan.recommended is Strategy.SURGICAL and plan.strategy is not Strategy.FRESH:
        lines.append(
            "  surgical continues in a new session; the owner session's conversation "
            "does not receive the result"
        )
    return lines


def plan_text(plan: Plan, now: float, rehearsal: str = "") -> str:
    """The scrolling body of the plan: header (with the owner's cache at ``now``), why it
    stopped, which forecast (``rehearsal``: see `exact_text`), the forecast, hazards."""
    lines = [*header_text(plan, now), *cause_text(plan), ""]
    lines += [*exact_text(plan, rehearsal), *forecast_text(plan)]
    for hazard in plan.hazards:
        lines.append(f"[yellow]hazard[/] {hazard.code}: {shown(hazard.message)}")
    return "\n".join(lines)


def verdict_text(plan: Plan) -> str:
    """The guard's verdict, how to clear a refusal, and the keys that act on it."""
    verdict = plan.verdict
    colour = "green" if verdict.ok else "red"
    lines = [f"[{colour}]guard  {shown(verdict.reason)}[/]"]
    for line in verdict.advice():
        lines.append(shown(line.replace("--force:", "f (--force):")))
    left = what_is_left(plan)
    if left and not verdict.ok:
        lines.append(f"left: {shown(left)}")
    fresh = plan.strategy is Strategy.FRESH
    keys = []
    if verdict.ok:
        keys.append("enter relaunch" if fresh else "enter resume")
    elif verdict.forceable:
        keys.append("f force…")
    if not fresh:
        keys.append("1/2/3 strategy")
    lines.append(" · ".join([*keys, "esc close", "? keys"]))
    return "\n".join(lines)


def request_text(request: Request, after: Plan | None) -> str:
    """The request in flight (its state), or its outcome and what is left to do."""
    state = request.state
    if request.in_flight or state is None:
        name = "resume" if state is None else state.word
        return f"[b]{name}[/b]  {shown(request.reason)}\n{KEYS_FOLLOWING} · ? keys"
    colour = "green" if state is ResumeState.COMPLETED else "red"
    lines = [f"[{colour}]outcome  {state.word}[/]  {shown(request.reason)}"]
    left = what_is_left(after) if after is not None else ""
    if left:
        lines.append(f"left     {shown(left)}")
    elif after is not None and after.verdict.ok:
        lines.append("left     the run can be resumed again: esc, then r plans it")
    lines.append("esc close · ? keys")
    return "\n".join(lines)


def progress_text(request: Request) -> str:
    """What the relaunched run did so far: calls run live, returned, served from cache."""
    if request.attempt is None:
        return ""
    done = request.attempt.progress
    return (
        f"live: {', '.join(done.started) or '-'}   returned: {len(done.returned)}"
        f"   from cache: {', '.join(done.cached) or '-'}"
        + (f"\ncache misses: {', '.join(request.misses)}" if request.misses else "")
    )
