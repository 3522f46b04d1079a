"""The resume moment as a table: one row per strategy (from cache · live · at risk · tokens ·
dollars · estimate or exact), the selected and the recommended rows marked, and the plain line
under it saying what the selected strategy does and its calls by fate.

Cells are plain strings: the command line prints them, the TUI draws them (each gates them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from wftop.core.compared import compared
from wftop.core.cost.tokens import dollars
from wftop.core.forecast.fates import Forecast
from wftop.core.resume.launcher import Strategy
from wftop.core.resume.plan import Plan

DOES = {
    "resume-owner": "resumes the owner session's conversation",
    "relocate": "continues in a new session, on a copy of the journal",
    "surgical": "continues in a new session, on a copy without the failed calls' failed lines",
    "fresh": "starts a new run of the same script: nothing comes from cache",
}
"""What each strategy does, in the words of the plain line."""

HEADINGS = ("strategy", "cache", "live", "risk", "tokens", "forecast", "dollars")


def _span(sure: int, risky: int, more: bool = False) -> str:
    """``4``, ``3–4`` when calls at risk may fall either way, ``1+`` when more may come."""
    text = f"{sure}–{sure + risky}" if risky else str(sure)
    return f"{text}+" if more else text


@compared
@dataclass(frozen=True, eq=False, repr=False)
class StrategyRow:
    """One strategy's row: its cells as text, and whether it is selected or recommended."""

    strategy: str
    selected: bool
    recommended: bool
    cached: str
    live: str
    at_risk: str
    tokens: str
    dollars: str
    kind: str
    """``exact`` (rehearsed) or ``estimate``."""

    @property
    def cells(self) -> tuple[str, ...]:
        """The cells in the order of `HEADINGS` (the recommended strategy marked ``*``)."""
        name = f"{self.strategy}*" if self.recommended else self.strategy
        return (name, self.cached, self.live, self.at_risk, self.tokens, self.kind, self.dollars)


def strategy_row(forecast: Forecast, selected: bool, recommended: bool) -> StrategyRow:
    risky = len(forecast.at_risk)
    cost = forecast.cost
    counted = forecast.more_live and forecast.unreached_calls is not None
    live = len(forecast.live) + ((forecast.unreached_calls or 0) if counted else 0)
    return StrategyRow(
        strategy=forecast.strategy,
        selected=selected,
        recommended=recommended,
        cached=_span(len(forecast.cached), risky),
        live=_span(live, risky, forecast.more_live and not counted),
        at_risk=str(risky),
        tokens=cost.tokens_text() if cost is not None else "?",
        dollars=cost.dollars_text() if cost is not None else "$?",
        kind="exact" if forecast.exact else "estimate",
    )


def strategy_rows(plan: Plan) -> list[StrategyRow]:
    """One row per strategy the plan forecast, in the plan's order."""
    return [
        strategy_row(forecast, name == plan.strategy.value, name == plan.recommended.value)
        for name, forecast in plan.forecasts.items()
    ]


def cold_cache_words(plan: Plan) -> str:
    """What a cold owner cache adds to a resume of the owner's session (`` (writing it again
    adds $0.0311)``), or nothing."""
    more = plan.cold_cache
    if more is None or plan.strategy is not Strategy.RESUME_OWNER:
        return ""
    return f" (writing it again adds {dollars(more.cost_usd, more.unpriced_models)})"


def _reached(forecast: Forecast) -> str:
    """``then 1 call not reached yet`` (the rehearsal counted it), or ``then the calls not
    reached yet``."""
    count = forecast.unreached_calls
    if count is None:
        return "then the calls not reached yet"
    return f"then {count} call{'' if count == 1 else 's'} not reached yet"


LISTED = 12
"""Up to this many labels, a line names each; more are counted and named by their ranges."""

RANGES = 4
"""Of more labels, a line names this many ranges at most: the first ones and the last."""

_NUMBERED = re.compile(r"(.*?)(0|[1-9][0-9]*)")
_DIGITS = frozenset("0123456789")
"""The last character of every label `_NUMBERED` matches (any other is not looked at)."""


def labels_text(labels: Sequence[str]) -> str:
    """``a1, a2, a5``; more than `LISTED` labels counted, with the ranges of numbered labels
    that follow each other (``100,004 calls (w-0–w-99999, a1–a4)``) and, past `RANGES`
    ranges, the first ones, how many calls are between and the last one (``5,000 calls
    (x-7, y-2, q-4, … 4,996 more, z-9)``)."""
    if len(labels) <= LISTED:
        return ", ".join(labels)
    starts: list[int] = []  # where each span begins; it ends where the next one begins
    follows: str | None = None  # the label that would continue the last span
    prefix, number = "", 0
    for at, label in enumerate(labels):  # a label that follows costs a test and its text
        if label == follows:
            number += 1
            follows = f"{prefix}{number + 1}"
            continue
        starts.append(at)
        numbered = _NUMBERED.fullmatch(label) if label[-1:] in _DIGITS else None
        if numbered is None:
            follows = None
            continue
        prefix, number = numbered.group(1), int(numbered.group(2))
        follows = f"{prefix}{number + 1}"
    ends = [*starts[1:], len(labels)]
    many = len(starts) > RANGES  # only the first ranges and the last are named
    shown = [*range(RANGES - 1), len(starts) - 1] if many else range(len(starts))
    named = [
        _span_text(labels[starts[at]], labels[ends[at] - 1], ends[at] - starts[at]) for at in shown
    ]
    if many:
        between = starts[-1] - starts[RANGES - 1]  # the labels of the spans not named
        named = [*named[: RANGES - 1], f"… {between:,} more", named[-1]]
    return f"{len(labels):,} calls ({', '.join(named)})"


def _span_text(first: str, last: str, count: int) -> str:
    return first if count == 1 else f"{first}, {last}" if count == 2 else f"{first}–{last}"


def fates_line(forecast: Forecast) -> str:
    """What the strategy does and its calls by fate: ``resume-owner resumes the owner
    session's conversation: a1, a2 from cache; a5 live (a5 re-runs finished work); then the
    calls not reached yet``; an exact forecast says what rehearsed it. A long list of
    labels is counted, its ranges named (`labels_text`)."""
    rerun = forecast.rerun
    fates = [
        f"{labels_text(forecast.cached)} from cache" if forecast.cached else "",
        f"{labels_text(forecast.live)} live" if forecast.live else "",
        f"{labels_text(rerun)} {'re-runs' if len(rerun) == 1 else 're-run'} finished work"
        if rerun
        else "",
        f"{labels_text(forecast.at_risk)} at risk" if forecast.at_risk else "",
        _reached(forecast) if forecast.more_live else "",
    ]
    what = DOES.get(forecast.strategy, forecast.strategy)
    line = f"{forecast.strategy} {what}: {'; '.join(f for f in fates if f) or 'no calls'}"
    if forecast.exact:
        line += f" ({forecast.provenance})"
    return line
