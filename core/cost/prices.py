"""Dollars for tokens, from the price data `genai-prices` ships inside it.

Never the network: wftop only reads the snapshot bundled with the installed package, and
never starts its price update. The package (and pydantic under it) is imported on first
use, which takes about 0.15 s: a command or a view that shows no dollars never pays it,
and the TUI prices in its workers, off the event loop.

A message is priced at the prices in force when it was answered (its record's
``timestamp``). Within one model and one set of prices without tiers, the price of a sum
of usages is the sum of their prices, so such messages are added up and priced once (a
transcript of thousands of messages costs one lookup per message, not one calculation);
prices with tiers (a long-context rate that applies to the whole request past a
threshold) price each message alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from wftop.core.cost.tokens import NO_TOKENS, Spend, Tokens

PACKAGE = "genai-prices"
PROVIDER = "anthropic"
SYNTHETIC = "<synthetic>"
"""The model of the messages the CLI writes itself (an API error): nothing was billed."""


def price_data() -> dict[str, str | None]:
    """Which price data prices: ``{"package": "genai-prices", "version": "0.2.5"}`` (the
    version None when the package is missing). Read from the install, not imported."""
    return {"package": PACKAGE, "version": _version()}


@cache
def _version() -> str | None:
    try:
        return version(PACKAGE)
    except PackageNotFoundError:
        return None


def price_data_line() -> str:
    """``prices: genai-prices 0.2.5 (offline)`` for ``--version`` and the help screen."""
    found = _version()
    return f"prices: {PACKAGE} {found} (offline)" if found else f"prices: {PACKAGE} not installed"


@cache
def _model(model: str) -> Any | None:
    """The price data's entry of ``model`` (None: not a model it knows)."""
    from genai_prices import data_snapshot

    try:
        _provider, info = data_snapshot.get_snapshot().find_provider_model(
            model, None, PROVIDER, None
        )
    except LookupError:
        return None
    return info


def known(model: str) -> bool:
    """Whether the price data has a price for ``model`` (the CLI's own messages cost
    nothing and count as known)."""
    return model == SYNTHETIC or _model(model) is not None


def _usage(tokens: Tokens) -> Any:
    from genai_prices import Usage

    writes = tokens.cache_write_5m + tokens.cache_write_1h
    return Usage(
        input_tokens=tokens.input + tokens.cache_read + writes,
        output_tokens=tokens.output,
        cache_read_tokens=tokens.cache_read,
        cache_write_tokens=writes,
        cache_write_5m_tokens=tokens.cache_write_5m,
        cache_write_1h_tokens=tokens.cache_write_1h,
    )


def _linear(model_price: Any) -> bool:
    from genai_prices.types import TieredPrices

    return not any(isinstance(value, TieredPrices) for value in vars(model_price).values())


@dataclass
class Bill:
    """Messages added one by one, priced at the end (`spend`)."""

    _groups: dict[int, tuple[Any, Tokens]] = field(default_factory=dict)
    _priced: Decimal = Decimal(0)
    _tokens: Tokens = NO_TOKENS
    _unpriced: set[str] = field(default_factory=set)
    _messages: int = 0

    def add(self, model: str | None, tokens: Tokens, when: float | None = None) -> None:
        """One message of ``model`` answered at ``when`` (seconds since the epoch; None:
        now) that used ``tokens``."""
        self._messages += 1
        self._tokens += tokens
        if model == SYNTHETIC:
            return
        info = _model(model) if model else None
        if info is None:
            self._unpriced.add(model or "(no model)")
            return
        moment = datetime.fromtimestamp(when, tz=UTC) if when is not None else datetime.now(UTC)
        model_price = info.get_prices(moment)
        if not _linear(model_price):
            self._priced += model_price.calc_price(_usage(tokens))["total_price"]
            return
        kept = self._groups.get(id(model_price))
        self._groups[id(model_price)] = (
            model_price,
            tokens if kept is None else kept[1] + tokens,
        )

    def spend(self) -> Spend:
        priced = self._priced
        for model_price, tokens in self._groups.values():
            priced += model_price.calc_price(_usage(tokens))["total_price"]
        if self._unpriced:
            return Spend(self._tokens, None, tuple(sorted(self._unpriced)), self._messages)
        return Spend(self._tokens, float(priced), (), self._messages)


def price(model: str | None, tokens: Tokens, when: float | None = None) -> Spend:
    """What one message cost."""
    bill = Bill()
    bill.add(model, tokens, when)
    return bill.spend()
