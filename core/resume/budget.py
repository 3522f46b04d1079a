"""A budget for a resume: ``wftop resume --max-usd N`` (and the supervisor) refuse a plan whose
forecast may cost more than ``N`` dollars, the way the guard refuses, and ``--force`` does not
override it. A forecast fits only when its high end is known and at most the budget: an open
range (calls not reached yet, nothing saying what they cost) or a model without a price does
not fit any budget.
"""

from __future__ import annotations

from wftop.core.cost.tokens import dollars
from wftop.core.forecast.fates import Forecast
from wftop.core.resume.guard import Verdict, refuse

FIX = "raise --max-usd, pick a strategy whose forecast fits (--strategy), or rehearse it (--exact)"


def over_budget(forecast: Forecast, max_usd: float, source: str = "--max-usd") -> str | None:
    """Why ``forecast`` does not fit a budget of ``max_usd`` dollars (set by ``source``); None
    when it fits."""
    budget = f"the budget of {dollars(max_usd)} ({source})"
    cost = forecast.cost
    name = f"the {forecast.strategy} forecast"
    if cost is None:
        return f"{name} has no dollar figure: it cannot be held to {budget}"
    if cost.unpriced_models:
        return f"{name} is {cost.dollars_text()}: it cannot be held to {budget}"
    high = cost.high_usd
    if high is None:
        return f"{name} is open-ended ({cost.dollars_text()}): it may exceed {budget}"
    if high > max_usd:
        return f"{name} may cost up to {dollars(high)} ({cost.dollars_text()}), above {budget}"
    return None


def budget_verdict(forecast: Forecast, max_usd: float | None, verdict: Verdict) -> Verdict:
    """``verdict``, or the budget's refusal when the forecast does not fit (a refusal the
    guard could not be forced past stays the guard's)."""
    if max_usd is None or (not verdict.ok and not verdict.forceable):
        return verdict
    reason = over_budget(forecast, max_usd)
    if reason is None:
        return verdict
    return refuse(reason, FIX, forceable=False)
