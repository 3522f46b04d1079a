"""What a forecast says: each call's fate (served from cache, run live, at risk) and why, and
the whole `Forecast` of one strategy, in words and as JSON. The instant forecast
(`wftop.core.forecast.instant`) and the exact one (`wftop.core.forecast.exact`) both make it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import Any

from wftop.core.compared import compared
from wftop.core.forecast.costrange import CostRange


class Fate(StrEnum):
    CACHED = "cached"
    LIVE_IN_FLIGHT = "live_in_flight"
    """Re-runs, but does not end reuse (it was running when the run stopped)."""
    LIVE_ENDS_REUSE = "live_ends_reuse"
    """The first miss: re-runs and every later call runs live."""
    RERUN = "rerun"
    """Had a result, re-runs anyway because reuse already ended: wasted work."""
    LIVE = "live"
    """Had no result and reuse already ended."""
    AT_RISK = "at_risk"
    """Has a result, but the forecast cannot be sure the CLI will serve it from cache."""


REKEYED = "its prompt reads results of"
"""How the reason of a call re-keyed by a re-run result begins."""

_VALUES = {fate: fate.value for fate in Fate}
"""Each fate's value by fate: a dict look-up, where ``.value`` is a property of the enum
(a plan's JSON writes 100,000 of them: 0.039 -> 0.027 s)."""

LIVE_FATES = frozenset({Fate.LIVE_IN_FLIGHT, Fate.LIVE_ENDS_REUSE, Fate.RERUN, Fate.LIVE})
"""The fates of calls that will run (and be paid for) again."""


@dataclass(slots=True, unsafe_hash=True)
class CallFate:
    """One call's fate in a forecast. Never changed once made (`dataclasses.replace` makes
    another), but not frozen: a frozen dataclass sets each field through
    ``object.__setattr__``, and a plan makes one for each of 100,000 calls (half the
    forecast's walk)."""

    label: str
    key: str
    fate: Fate
    reason: str
    had_result: bool = False
    """The journal held a result for this call (re-running it repeats finished work)."""


@compared
@dataclass(frozen=True, eq=False, repr=False)
class Forecast:
    strategy: str
    calls: tuple[CallFate, ...]
    more_live: bool
    """Calls the journal has never seen may also run (the script had not returned, or a
    failed call re-runs and the calls its failure skipped run after it)."""
    first_miss: str | None
    rerun_tokens: int | None
    """Tokens the earlier attempts of the wasted re-runs cost (None when unknown)."""
    order: str
    """How the keying order was known: ``snapshot``, ``journal`` or ``rehearsal``."""
    notes: tuple[str, ...] = ()
    exact: bool = False
    """Rehearsed: the installed CLI itself served these calls from cache (or ran them)."""
    cli_version: str | None = None
    """The CLI build that rehearsed (exact forecasts only)."""
    unreached_calls: int | None = None
    """How many calls the journal never saw the script makes (a rehearsal that ran to its
    end counts them); None when unknown."""
    cost: CostRange | None = None
    """What its calls will cost, low to high (`wftop.core.forecast.costs`), once priced."""

    def labels(self, *fates: Fate) -> list[str]:
        if len(fates) == 1:
            return list(_by_fate(self.calls).get(fates[0], ()))
        among = self.calls if Fate.CACHED in fates else uncached(self.calls)
        return [call.label for call in among if call.fate in fates]

    # Each list is made once per forecast (its calls never change): a plan asks for them
    # a dozen times, and a forecast can hold 100,000 calls. Read them, never change them.

    @cached_property
    def cached(self) -> list[str]:
        return _by_fate(self.calls).get(Fate.CACHED, [])

    @cached_property
    def live(self) -> list[str]:
        found = _by_fate(self.calls)
        if sum(fate in found for fate in LIVE_FATES) <= 1:
            return next((found[fate] for fate in LIVE_FATES if fate in found), [])
        return self.labels(*LIVE_FATES)

    @cached_property
    def at_risk(self) -> list[str]:
        """Calls with a result that may be served from cache, or may run again."""
        return _by_fate(self.calls).get(Fate.AT_RISK, [])

    @cached_property
    def rerun(self) -> list[str]:
        """Live calls that already had a result: finished work done again."""
        return _rerun(self.calls)

    def to_json(self, *, calls: bool = True) -> dict[str, Any]:
        """The ``--json`` shape; ``calls``: with the fate and reason of every call (a plan
        lists them under its chosen forecast alone: 100,000 calls are 14 MB a forecast)."""
        shape = {
            "strategy": self.strategy,
            "exact": self.exact,
            "cli_version": self.cli_version,
            "cached": self.cached,
            "live": self.live,
            "at_risk": [
                {"label": c.label, "reason": c.reason}
                for c in uncached(self.calls)
                if c.fate is Fate.AT_RISK
            ]
            if self.at_risk
            else [],
            "rerun": self.rerun,
            "more_live": self.more_live,
            "first_miss": self.first_miss,
            "rerun_tokens": self.rerun_tokens,
            "order": self.order,
            "notes": list(self.notes),
            **(self.cost.to_json() if self.cost is not None else {}),
        }
        if calls:
            shape["calls"] = [
                {"label": c.label, "fate": _VALUES[c.fate], "reason": c.reason} for c in self.calls
            ]
        return shape

    @property
    def provenance(self) -> str:
        """Which forecast this is, as the plan marks it: ``estimate`` (from the journal), or
        ``exact, rehearsed with claude 2.1.332``."""
        if not self.exact:
            return "estimate"
        return f"exact, rehearsed with claude {self.cli_version or '(unknown version)'}"

    def summary(self) -> str:
        """``8 live (7 re-runs of finished work, ≈ 1,234 tokens)``; a range where calls are at
        risk: ``2–5 live …``."""
        risky = len(self.at_risk)
        text = f"{_span(len(self.live), risky)} live"
        if self.more_live:
            text += " + calls not yet reached"
        if self.rerun:
            tokens = f", ≈ {self.rerun_tokens:,} tokens" if self.rerun_tokens else ""
            text += f" ({len(self.rerun)} re-runs of finished work{tokens})"
        return f"{text}, {_span(len(self.cached), risky)} from cache"


class _Lists:
    """What is made of one tuple of calls (`_lists`): its labels by fate, the fates of
    the calls that do not come from cache and the labels of its re-runs of finished work,
    each made when first asked for (or handed over by the walk that made the calls)."""

    __slots__ = ("calls", "by_fate", "uncached", "rerun")

    def __init__(self, calls: tuple[CallFate, ...]) -> None:
        self.calls = calls
        self.by_fate: dict[Fate, list[str]] | None = None
        self.uncached: list[CallFate] | None = None
        self.rerun: list[str] | None = None


_last: list[_Lists] = []
"""The lists of the last two tuples of calls asked about, the latest first."""


def _lists(calls: tuple[CallFate, ...]) -> _Lists:
    """The lists of ``calls``, kept for the last two tuples asked about: a plan's forecasts
    share one tuple of 100,000 calls (two where the heal drops lines), and each asks for
    its cached, live and at-risk labels, its re-runs and its calls to price."""
    for at, lists in enumerate(_last):
        if lists.calls is calls:
            if at:
                _last[:] = [lists, _last[0]]
            return lists
    made = _Lists(calls)
    _last[:] = [made, *_last[:1]]
    return made


def _by_fate(calls: tuple[CallFate, ...]) -> dict[Fate, list[str]]:
    """The labels of ``calls`` by fate, in order, made in one pass (`_lists`). Read them,
    never change them."""
    lists = _lists(calls)
    found = lists.by_fate
    if found is None:
        found = lists.by_fate = {}
        for call in calls:
            labels = found.get(call.fate)
            if labels is None:
                labels = found[call.fate] = []
            labels.append(call.label)
    return found


def uncached(calls: tuple[CallFate, ...]) -> list[CallFate]:
    """The fates of ``calls`` that are not `Fate.CACHED`, in order (`_lists`): what a
    forecast prices, and where its re-runs are. Read them, never change them."""
    lists = _lists(calls)
    found = lists.uncached
    if found is None:
        cached = Fate.CACHED
        found = lists.uncached = [call for call in calls if call.fate is not cached]
    return found


def seed_lists(
    calls: tuple[CallFate, ...], by_fate: dict[Fate, list[str]], others: list[CallFate]
) -> None:
    """Keep ``by_fate`` as the labels of ``calls`` by fate (each fate with a label present,
    its labels in the order of ``calls``) and ``others`` as their `uncached` fates: made by
    whoever made the calls (the forecast's walk), not by another pass over them."""
    lists = _lists(calls)
    lists.by_fate, lists.uncached = by_fate, others


def _rerun(calls: tuple[CallFate, ...]) -> list[str]:
    """The labels of the calls of ``calls`` that had a result and run live (`_lists`): a
    plan's forecasts of one strategy each share their calls. Read them, never change them."""
    lists = _lists(calls)
    found = lists.rerun
    if found is None:
        found = lists.rerun = [
            call.label for call in uncached(calls) if call.had_result and call.fate in LIVE_FATES
        ]
    return found


def _span(sure: int, risky: int) -> str:
    """``3``, or ``3–5`` when ``risky`` calls may fall either way."""
    return f"{sure}–{sure + risky}" if risky else str(sure)
