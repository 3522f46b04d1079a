"""Dollars for tokens, from the price data `genai-prices` ships inside it.

Never the network: wftop only reads the snapshot bundled with the installed package, and
never starts its price update. The package (and pydantic under it) is imported on first
use, which takes about 0.15 s: a command or a view that shows no dollars never pays it,
and the TUI prices in its workers, off the event loop.

A message is priced at the prices in force when it was answered (its record's
``timestamp``). Under one set of prices without tiers, the price of a sum of usages is the
sum of their prices: the package prices a million tokens of each kind once (`rates`), and
a transcript's messages are added up and multiplied by those (a transcript of thousands of
messages costs a lookup per message, not one calculation each). Prices with tiers (a
long-context rate that applies to the whole request past a threshold) price each message
alone.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal
from functools import cache
from typing import Any

from wftop.core.cost.ratebook import RateBook, Rates, Schedule, on_day
from wftop.core.cost.tokens import Spend, Tokens
from wftop.core.system.installed import installed_version

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
    return installed_version(PACKAGE)  # not importlib.metadata's 20 ms where the install is plain


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


_rate_book: list[RateBook] = []
"""The book of rates messages are priced from where it holds them (`keep_rates`)."""


def keep_rates(book: RateBook | None) -> None:
    """Price each message from ``book`` where it holds its model's schedule, and keep there
    what the package says of the others (`wftop.core.cost.ratebook`); None: ask the package
    each time. A spend book does this for the process that makes it, and a listing without
    one (`rates_for`)."""
    _rate_book[:] = [] if book is None else [book]


def _by_day(info: Any) -> bool:
    """Whether the package's prices of a model are the same all day, any day (no constraint
    but a start date, which `StartDateConstraint.active` compares by UTC day)."""
    from genai_prices.types import ModelPrice, StartDateConstraint

    prices = info.prices
    if isinstance(prices, ModelPrice):
        return True
    return all(
        price.constraint is None or type(price.constraint) is StartDateConstraint
        for price in prices
    )


def schedule_of(info: Any) -> Schedule:
    """The schedule of a model whose prices change at most by day (`_by_day`): from which
    day each of its prices applies, in the package's order, and its rates (`rates`)."""
    from genai_prices.types import ModelPrice

    prices = info.prices
    if isinstance(prices, ModelPrice):
        return ((None, rates(prices)),)
    return tuple(
        (
            None if price.constraint is None else price.constraint.start_date.isoformat(),
            rates(price.prices),
        )
        for price in prices
    )


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


MILLION = 1_000_000
UNIT_TOKENS = (
    Tokens(input=MILLION),
    Tokens(output=MILLION),
    Tokens(cache_read=MILLION),
    Tokens(cache_write_5m=MILLION),
    Tokens(cache_write_1h=MILLION),
)
"""A million tokens of each kind, in the order of `Tokens`' fields."""

_rates: dict[int, tuple[Any, tuple[Decimal, ...] | None]] = {}


def rates(model_price: Any) -> tuple[Decimal, ...] | None:
    """Dollars per million tokens of each kind (`UNIT_TOKENS`) under ``model_price``, priced
    by the package; None when its prices have tiers (then a message is priced alone)."""
    kept = _rates.get(id(model_price))
    if kept is None or kept[0] is not model_price:
        from genai_prices.types import TieredPrices

        tiered = any(isinstance(value, TieredPrices) for value in vars(model_price).values())
        found = (
            None
            if tiered
            else tuple(model_price.calc_price(_usage(unit))["total_price"] for unit in UNIT_TOKENS)
        )
        kept = (model_price, found)
        _rates[id(model_price)] = kept
    return kept[1]


def _priced(counts: Sequence[int], per_million: tuple[Decimal, ...]) -> Decimal:
    """What tokens of each kind (``counts``, in the order of `Tokens`' fields) cost at
    ``per_million``."""
    return (
        sum(
            (
                Decimal(count) * rate
                for count, rate in zip(counts, per_million, strict=True)
                if count
            ),
            Decimal(0),
        )
        / MILLION
    )


class Bill:
    """Messages added one by one, priced at the end (`spend`). Tokens are counted as five
    numbers in the order of `Tokens`' fields (`count`): a `Tokens` made for each message and
    each sum cost more than the rest of a message's pricing."""

    __slots__ = ("_groups", "_priced", "_totals", "_unpriced", "_messages")

    def __init__(self) -> None:
        self._groups: dict[Rates, list[int]] = {}
        """Counts by the rates they are priced at (a sum priced once: `_priced`)."""
        self._priced = Decimal(0)
        self._totals = [0, 0, 0, 0, 0]
        self._unpriced: set[str] = set()
        self._messages = 0

    def add(self, model: str | None, tokens: Tokens, when: float | None = None) -> None:
        """One message of ``model`` answered at ``when`` (seconds since the epoch; None:
        now) that used ``tokens``."""
        self.count(model, tokens.counts(), when)

    def count(self, model: str | None, counts: Sequence[int], when: float | None = None) -> None:
        """`add`, the message's tokens given as their five counts (`Tokens.counts`)."""
        self._messages += 1
        totals = self._totals
        for place, number in enumerate(counts):
            totals[place] += number
        if model == SYNTHETIC:
            return
        book = _rate_book[0] if _rate_book and model else None
        schedule = None if book is None or not model else book.schedule(model)
        per_million = None
        if schedule is not None:
            if not schedule:  # the package prices no such model
                self._unpriced.add(model or "(no model)")
                return
            with contextlib.suppress(OverflowError, ValueError, OSError):
                per_million = on_day(schedule, _moment(when).date().isoformat())
        if per_million is None:
            info = _model(model) if model else None
            if info is None:
                if book is not None and model:
                    book.put(model, ())
                self._unpriced.add(model or "(no model)")
                return
            model_price = info.get_prices(_moment(when))
            per_million = rates(model_price)
            if book is not None and model and schedule is None and _by_day(info):
                learned = schedule_of(info)
                if any(found is not None for _, found in learned):  # else nothing to spare
                    book.put(model, learned)
            if per_million is None:
                tokens = Tokens(*counts)
                self._priced += model_price.calc_price(_usage(tokens))["total_price"]
                return
        kept = self._groups.get(per_million)
        if kept is None:
            self._groups[per_million] = list(counts)
        else:
            for place, number in enumerate(counts):
                kept[place] += number

    def spend(self) -> Spend:
        tokens = Tokens(*self._totals)
        if self._unpriced:
            return Spend(tokens, None, tuple(sorted(self._unpriced)), self._messages)
        priced = self._priced
        for per_million, counts in self._groups.items():
            priced += _priced(counts, per_million)
        return Spend(tokens, float(priced), (), self._messages)


def _moment(when: float | None) -> datetime:
    return datetime.fromtimestamp(when, tz=UTC) if when is not None else datetime.now(UTC)


def price(model: str | None, tokens: Tokens, when: float | None = None) -> Spend:
    """What one message cost."""
    bill = Bill()
    bill.add(model, tokens, when)
    return bill.spend()
