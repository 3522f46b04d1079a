"""Tokens and dollars: what a message, an agent, a call, a run or a session spent.

`Tokens` is the breakdown every surface shows (``input``, ``output``, ``cache_read``,
``cache_write_5m``, ``cache_write_1h``); `Spend` adds the dollars and the models whose
price is unknown. A spend with any message of an unpriced model has no dollar figure
(``cost_usd`` None, never 0): its tokens are still counted, and the model is named in
``unpriced_models``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

TOKEN_FIELDS = ("input", "output", "cache_read", "cache_write_5m", "cache_write_1h")


def _count(value: object) -> int:
    """A token count read from disk: a non-negative int, else 0."""
    if type(value) is int:  # what a parsed line holds: no instance checks
        return value if value > 0 else 0
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def usage_counts(usage: Mapping[str, Any]) -> list[int]:
    """The tokens of an Anthropic ``usage`` object as the CLI writes it, as `Tokens`' five
    counts in the order of its fields.

    ``cache_creation_input_tokens`` is the total written to the cache; its ``cache_creation``
    split says how much of it was written with the 1-hour TTL and how much with the 5-minute
    one. Without a split (older builds) the whole write is a 5-minute one, the API's default
    TTL; what the split does not account for is too.
    """
    get = usage.get
    written = _count(get("cache_creation_input_tokens"))
    split = get("cache_creation")
    hour = five = 0
    if type(split) is dict or isinstance(split, Mapping):  # a parsed line's is a dict
        hour = _count(split.get("ephemeral_1h_input_tokens"))
        five = _count(split.get("ephemeral_5m_input_tokens"))
    return [
        _count(get("input_tokens")),
        _count(get("output_tokens")),
        _count(get("cache_read_input_tokens")),
        max(five, written - hour),
        hour,
    ]


@dataclass(frozen=True, slots=True)
class Tokens:
    """Tokens of one or more API requests, by what they are billed as."""

    input: int = 0
    """Input tokens neither read from nor written to the prompt cache."""
    output: int = 0
    cache_read: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0

    @classmethod
    def of_usage(cls, usage: Mapping[str, Any]) -> Tokens:
        """The tokens of an Anthropic ``usage`` object as the CLI writes it (`usage_counts`)."""
        return cls(*usage_counts(usage))

    def counts(self) -> tuple[int, int, int, int, int]:
        """The five counts, in the order of the fields."""
        return (self.input, self.output, self.cache_read, self.cache_write_5m, self.cache_write_1h)

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(
            self.input + other.input,
            self.output + other.output,
            self.cache_read + other.cache_read,
            self.cache_write_5m + other.cache_write_5m,
            self.cache_write_1h + other.cache_write_1h,
        )

    def most(self, other: Tokens) -> Tokens:
        """Each count the larger of the two (one message written over several lines)."""
        return Tokens(
            max(self.input, other.input),
            max(self.output, other.output),
            max(self.cache_read, other.cache_read),
            max(self.cache_write_5m, other.cache_write_5m),
            max(self.cache_write_1h, other.cache_write_1h),
        )

    @property
    def total(self) -> int:
        return (
            self.input + self.output + self.cache_read + self.cache_write_5m + self.cache_write_1h
        )

    def to_json(self) -> dict[str, int]:
        return {
            "input": self.input,
            "output": self.output,
            "cache_read": self.cache_read,
            "cache_write_5m": self.cache_write_5m,
            "cache_write_1h": self.cache_write_1h,
        }

    @classmethod
    def from_json(cls, data: Any) -> Tokens:
        if not isinstance(data, Mapping):
            return cls()
        return cls(*(_count(data.get(name)) for name in TOKEN_FIELDS))


NO_TOKENS = Tokens()


@dataclass(frozen=True, slots=True)
class Spend:
    """What some requests cost: their tokens, and their dollars where every model is priced."""

    tokens: Tokens = NO_TOKENS
    cost_usd: float | None = 0.0
    """Dollars; None when a message's model has no price (`unpriced_models`)."""
    unpriced_models: tuple[str, ...] = ()
    """Models without a price, sorted; empty when ``cost_usd`` is a number."""
    messages: int = 0
    """API responses counted (each message once)."""
    missing: int = 0
    """Attempts whose transcript is gone or cannot be read: they spent what nobody can tell,
    so the tokens and dollars are a lower bound (`lower_bound`)."""

    @property
    def lower_bound(self) -> bool:
        """The figures leave out attempts whose transcript is missing: at least this much."""
        return self.missing > 0

    def __add__(self, other: Spend) -> Spend:
        unpriced = tuple(sorted(set(self.unpriced_models) | set(other.unpriced_models)))
        cost = (
            None
            if unpriced or self.cost_usd is None or other.cost_usd is None
            else self.cost_usd + other.cost_usd
        )
        return Spend(
            self.tokens + other.tokens,
            cost,
            unpriced,
            self.messages + other.messages,
            self.missing + other.missing,
        )

    def to_json(self) -> dict[str, Any]:
        """``cost_usd`` (rounded to a millionth of a dollar), ``tokens``, ``unpriced_models``,
        ``missing_transcripts`` and ``cost_is_lower_bound``."""
        return {
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6),
            "tokens": self.tokens.to_json(),
            "unpriced_models": list(self.unpriced_models),
            "missing_transcripts": self.missing,
            "cost_is_lower_bound": self.lower_bound,
        }

    def dollars_text(self) -> str:
        """`dollars`, marked ``≥`` when transcripts are missing (``≥ $0.0181``)."""
        return at_least(dollars(self.cost_usd, self.unpriced_models), self.lower_bound)

    @property
    def missing_note(self) -> str:
        """`` (2 transcripts missing: at least this)``, or nothing."""
        return missing_note(self.missing)


NOTHING = Spend()
MISSING = Spend(missing=1)
"""An attempt whose transcript is gone: nothing counted, and the sum a lower bound."""


def total(spends: Iterable[Spend]) -> Spend:
    """The sum of ``spends`` (nothing spent for none)."""
    found = NOTHING
    for spend in spends:
        found = found + spend
    return found


def at_least(text: str, lower_bound: bool) -> str:
    """``text`` marked ``≥`` when it is a lower bound (a ``$?`` stays as it is)."""
    return f"≥ {text}" if lower_bound and not text.startswith("$?") else text


def missing_note(missing: int) -> str:
    """`` (2 transcripts missing: at least this)``, or nothing when none is."""
    if not missing:
        return ""
    return f" ({missing} transcript{'' if missing == 1 else 's'} missing: at least this)"


def spent_words(spent: Spend, forecast: str | None) -> str:
    """What a resume cost beside its forecast: ``spent $0.0449 (forecast ≥ $0.0222, calls
    after a5 unknown)``."""
    text = f"spent {spent.dollars_text()}{spent.missing_note}"
    return f"{text} (forecast {forecast})" if forecast else text


def dollars(cost: float | None, unpriced: Iterable[str] = ()) -> str:
    """``$12.40`` (``$0.1316`` below a dollar, ``< $0.0001`` below that), or
    ``$? (claude-foo unpriced)`` when a model has no price."""
    if cost is None:
        names = ", ".join(unpriced)
        return f"$? ({names} unpriced)" if names else "$?"
    if 0 < abs(cost) < 0.0001:
        return "< $0.0001"
    if abs(cost) < 1:
        return f"${cost:.4f}"
    return f"${cost:,.2f}"


def exact_total(spends: Iterable[Spend]) -> Spend:
    """The sum of ``spends`` with the dollars added exactly (`math.fsum`, correctly rounded):
    the same in whatever order they come, so a run's total read whole equals the one kept
    as its journal grew (`wftop.core.cost.tally.SpendTally`)."""
    tokens, messages, missing, unknown = NO_TOKENS, 0, 0, False
    costs: list[float] = []
    unpriced: set[str] = set()
    for spend in spends:
        tokens = tokens + spend.tokens
        messages += spend.messages
        missing += spend.missing
        unpriced.update(spend.unpriced_models)
        if spend.cost_usd is None:
            unknown = True
        else:
            costs.append(spend.cost_usd)
    cost = None if unknown or unpriced else math.fsum(costs)
    return Spend(tokens, cost, tuple(sorted(unpriced)), messages, missing)
