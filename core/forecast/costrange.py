"""What a forecast's calls will cost, low to high: `CostRange` (made in
`wftop.core.forecast.costs`, held by `wftop.core.forecast.instant.Forecast`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wftop.core.compared import compared
from wftop.core.cost.tokens import Spend, dollars


@compared
@dataclass(frozen=True, eq=False, repr=False)
class CostRange:
    """A forecast's dollars and tokens, low to high."""

    low: Spend
    high: Spend | None
    """None: open (calls not reached yet, and nothing says what they cost)."""
    basis: str
    """Where the calls not reached come from: ``rehearsal``, ``run wf_…`` or ``""``."""
    open_after: str | None = None
    """The label after which calls are unknown, when the range is open."""

    @property
    def unpriced_models(self) -> tuple[str, ...]:
        found = set(self.low.unpriced_models)
        if self.high is not None:
            found |= set(self.high.unpriced_models)
        return tuple(sorted(found))

    @property
    def high_usd(self) -> float | None:
        return None if self.high is None else self.high.cost_usd

    def to_json(self) -> dict[str, Any]:
        """``cost_usd`` {``low``, ``high``} (``high`` null when open; the whole null when a
        model is unpriced), ``tokens`` {``low``, ``high``}, ``unpriced_models``."""
        unpriced = self.unpriced_models
        cost: dict[str, float | None] | None = None
        if not unpriced:
            low = self.low.cost_usd
            cost = {
                "low": None if low is None else round(low, 6),
                "high": None if self.high_usd is None else round(self.high_usd, 6),
            }
        return {
            "cost_usd": cost,
            "tokens": {
                "low": self.low.tokens.total,
                "high": None if self.high is None else self.high.tokens.total,
            },
            "unpriced_models": list(unpriced),
            "cost_basis": self.basis or None,
        }

    def dollars_text(self) -> str:
        """``$0.13–$0.20``, ``≈ $0.13``, ``≥ $0.42, calls after a5 unknown`` or ``$? (…)``."""
        unpriced = self.unpriced_models
        if unpriced:
            return dollars(None, unpriced)
        low = dollars(self.low.cost_usd)
        if self.high is None:
            after = f", calls after {self.open_after} unknown" if self.open_after else ""
            return f"≥ {low}{after}"
        high = dollars(self.high.cost_usd)
        return f"≈ {low}" if high == low else f"{low}–{high}"

    def tokens_text(self) -> str:
        low = f"{self.low.tokens.total:,}"
        if self.high is None:
            return f"≥ {low}"
        high = f"{self.high.tokens.total:,}"
        return low if high == low else f"{low}–{high}"
