"""What resumes cost, as the supervisor weighs them: the forecasts' dollars and the budget check.

The forecast's range is the plan's (`wftop.core.forecast.costs`: the exact rehearsal's when
the plan was rehearsed), the per-run cap is the check ``wftop resume --max-usd`` makes
(`wftop.core.resume.budget.over_budget`), and what a resume spent is what its agents'
transcripts say (`wftop.core.cost.runs.agents_spend`).
"""

from __future__ import annotations

from wftop.core.cost.runs import agents_spend
from wftop.core.resume.budget import over_budget
from wftop.core.resume.plan import Plan
from wftop.core.supervise.decide import UsdRange


class ForecastPricer:
    def forecast(self, plan: Plan) -> UsdRange | None:
        """The plan's forecast in dollars; None when it has none (or a model has no price)."""
        cost = plan.forecast.cost
        if cost is None or cost.unpriced_models or cost.low.cost_usd is None:
            return None
        return UsdRange(cost.low.cost_usd, cost.high_usd)

    def over_cap(self, plan: Plan, max_usd: float | None) -> str | None:
        """Why the plan's forecast does not fit ``max_usd``; None when it does (or no cap)."""
        return None if max_usd is None else over_budget(plan.forecast, max_usd)

    def spent(self, folder: str, agent_ids: list[str]) -> float | None:
        """What the agents of a resume spent, from their transcripts (None: unpriced)."""
        return agents_spend(folder, agent_ids).cost_usd
