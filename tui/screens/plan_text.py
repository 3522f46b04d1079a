"""What the resume plan screen says, as Textual `Content`, in sections: the header (run, strategy,
session, argv), why the run stopped, the forecast, the hazards; and, docked under them, the
verdict (or the request in flight, or its outcome) with the keys that act on it.

Everything read from disk is masked and gated (`wftop.core.text.gate.shown`) and never read
as markup: each line is put together from plain pieces and (text, style) pieces.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from textual.content import Content

from wftop.core.forecast.cachewarm import cache_text
from wftop.core.resume.launcher import Strategy
from wftop.core.resume.machine import ResumeState
from wftop.core.resume.plan import Plan
from wftop.core.resume.request import Request, what_is_left
from wftop.core.resume.table import cold_cache_words
from wftop.core.resume.tripwire import Progress
from wftop.core.text.gate import shown
from wftop.tui.widgets.plan_table import table_lines

KEYS_FOLLOWING = "s stop the relaunch · esc close (the run goes on)"


@dataclass(frozen=True)
class Followed:
    """A resume request as it stood when the worker that steps it last looked.

    The policy's `Request` is changed by each step; it stays with the worker that steps it,
    and the screen is handed this copy instead (made in that worker, never changed again).
    """

    plan: Plan
    state: ResumeState | None
    reason: str
    in_flight: bool
    misses: tuple[str, ...]
    progress: Progress | None
    """What the relaunched run did so far (None: nothing was launched)."""
    watched: frozenset[str] | None = None
    """The calls the tripwire expects from the cache (None: nothing was launched)."""
    spent: str = ""
    """Once it ended: what it cost beside the forecast (`Request.spent`)."""

    @property
    def ended(self) -> bool:
        return not self.in_flight

    @classmethod
    def of(cls, request: Request) -> Followed:
        attempt = request.attempt
        progress = copy.deepcopy(attempt.progress) if attempt is not None else None
        return cls(
            request.plan,
            request.state,
            request.reason,
            request.in_flight,
            tuple(request.misses),
            progress,
            frozenset(attempt.watch.cached) if attempt is not None else None,
            request.spent,
        )


Piece = str | tuple[str, str] | Content
"""Plain text, (text, style), or `Content` made of them: never read as markup."""


def lines_of(*lines: Piece | list[Piece]) -> Content:
    """Lines of pieces as one `Content` (a line is a piece or a list of them)."""
    return Content("\n").join(
        Content.assemble(*(line if isinstance(line, list) else [line])) for line in lines
    )


def header_text(plan: Plan, now: float) -> list[Piece | list[Piece]]:
    run = plan.run
    fresh = plan.strategy is Strategy.FRESH
    what = "Relaunch fresh" if fresh else "Resume"
    choice = (
        "a new run of the same script, nothing from cache"
        if fresh
        else f"recommended: {plan.recommended.value}   (1 resume-owner · 2 relocate · 3 surgical)"
    )
    cache = cache_text(plan.cache_warm_until, now)
    return [
        [
            (what, "bold"),
            f" {shown(run.name or '(unnamed)')}  {shown(run.run_id)}  ({run.shown_status})",
        ],
        ["strategy  ", (plan.strategy.value, "bold"), f"   {choice}"],
        shown(
            f"session   {plan.session_id}"
            + ("" if plan.session_id == run.session_id else f"  (new; owner {run.session_id})")
        ),
        *([] if fresh else [f"          owner's {cache}{cold_cache_words(plan)}"]),
        f"cwd       {shown(plan.cwd or '-')}",
        f"argv      {shown(' '.join(plan.argv[:-1]))} <prompt>",
    ]


def cause_text(plan: Plan) -> list[Piece | list[Piece]]:
    """Why the run stopped, and a warning while that is probably still so."""
    cause = plan.stop_cause
    if cause is None:
        return []
    lines: list[Piece | list[Piece]] = [f"stopped   {shown(cause.line())}"]
    if cause.warning:
        lines.append((f"⚠ {shown(cause.warning)}", "yellow"))
    return lines


def exact_text(plan: Plan, rehearsal: str) -> list[Piece | list[Piece]]:
    """Which forecast the plan shows for its strategy (the others are estimates): ``exact,
    rehearsed with claude X``, or ``estimate`` and what its rehearsal is doing
    (``rehearsal``: running, or why there is none)."""
    if plan.strategy is Strategy.FRESH:
        return []
    line = f"forecast  {plan.strategy.value}: {shown(plan.forecast.provenance)}"
    if plan.forecast.exact or not rehearsal:
        return [line]
    return [f"{line} · {shown(rehearsal)}"]


def forecast_text(plan: Plan, width: int) -> list[Piece | list[Piece]]:
    """The table of strategies (`wftop.tui.widgets.plan_table`) in ``width`` cells, and the
    line under it."""
    lines: list[Piece | list[Piece]] = [[line] for line in table_lines(plan, width)]
    if plan.recommended is Strategy.SURGICAL and plan.strategy is not Strategy.FRESH:
        lines.append(
            "  surgical continues in a new session; the owner session's conversation "
            "does not receive the result"
        )
    return lines


def plan_text(plan: Plan, now: float, rehearsal: str = "", width: int = 100) -> Content:
    """The scrolling body of the plan, ``width`` cells wide: header (with the owner's cache
    at ``now``), why it stopped, which forecast (``rehearsal``: see `exact_text`), the table
    of strategies, hazards."""
    lines = [*header_text(plan, now), *cause_text(plan), ""]
    lines += [*exact_text(plan, rehearsal), *forecast_text(plan, width)]
    for hazard in plan.hazards:
        lines.append([("hazard", "yellow"), f" {hazard.code}: {shown(hazard.message)}"])
    return lines_of(*lines)


def verdict_text(plan: Plan, *, off: str = "") -> Content:
    """The guard's verdict, how to clear a refusal, and the keys that act on it (``off``: why
    launching is off, said instead of the keys that launch)."""
    verdict = plan.verdict
    colour = "green" if verdict.ok else "red"
    lines: list[Piece | list[Piece]] = [(f"guard  {shown(verdict.reason)}", colour)]
    for line in verdict.advice():
        lines.append(shown(line.replace("--force:", "f (--force):")))
    left = what_is_left(plan)
    if left and not verdict.ok:
        lines.append(f"left: {shown(left)}")
    fresh = plan.strategy is Strategy.FRESH
    keys = []
    if off:
        lines.append((f"launching is off: {shown(off)}", "yellow"))
    elif verdict.ok:
        keys.append("enter relaunch" if fresh else "enter resume")
    elif verdict.forceable:
        keys.append("f force…")
    if not fresh:
        keys.append("1/2/3 strategy")
    lines.append(" · ".join([*keys, "esc close", "? keys"]))
    return lines_of(*lines)


def request_text(request: Followed, after: Plan | None) -> Content:
    """The request in flight (its state), or its outcome and what is left to do."""
    state = request.state
    if request.in_flight or state is None:
        name = "resume" if state is None else state.word
        return lines_of(
            [(name, "bold"), f"  {shown(request.reason)}"], f"{KEYS_FOLLOWING} · ? keys"
        )
    colour = "green" if state is ResumeState.COMPLETED else "red"
    lines: list[Piece | list[Piece]] = [
        [(f"outcome  {state.word}", colour), f"  {shown(request.reason)}"]
    ]
    if request.spent:  # spent $0.0449 (forecast …): what it cost beside the forecast
        lines.append(shown(request.spent.replace("spent ", "spent    ", 1)))
    left = what_is_left(after) if after is not None else ""
    if left:
        lines.append(f"left     {shown(left)}")
    elif after is not None and after.verdict.ok:
        lines.append("left     the run can be resumed again: esc, then r plans it")
    lines.append("esc close · ? keys")
    return lines_of(*lines)


BEFORE_HEADING: list[Piece] = [
    ("forecast made before the launch", "bold"),
    " (what happened is below it)",
]
"""Over the plan of a resume that ended: its forecast as it was made, never one made again of
the finished run (which would read as if everything came from cache)."""


def before_text(request: Followed, now: float, rehearsal: str = "", width: int = 100) -> Content:
    """The plan a resume that ended was launched on, headed as such."""
    body = plan_text(request.plan, now, rehearsal, width)
    return lines_of(BEFORE_HEADING).append("\n").append(body)


def outcome_text(request: Followed) -> Content:
    """What a resume that ended did, under the forecast it was launched on."""
    done = progress_text(request)
    if not done.plain:
        return done
    return lines_of("", ("what happened", "bold")).append("\n").append(done)


def progress_text(request: Followed) -> Content:
    """What the relaunched run did so far: calls run live, returned, served from cache."""
    done = request.progress
    if done is None:
        return Content("")
    lines: list[Piece | list[Piece]] = [
        f"live: {shown(', '.join(done.started) or '-')}   returned: {len(done.returned)}"
        f"   from cache: {shown(', '.join(done.cached) or '-')}"
    ]
    if request.misses:
        lines.append(f"cache misses: {shown(', '.join(request.misses))}")
    return lines_of(*lines)
