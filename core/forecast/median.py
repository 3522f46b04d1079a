"""The median of what a run's calls spent (`median_of`): by dollars, then tokens, among the
priced ones when any is, counted as a stable sort of them all would place it, with no sort
of them all.

A run's calls share few distinct spends where a book keeps each once (its thin transcripts
spend alike: long runs of one object), and as many as they are where each call's transcript
spent its own (a real run's 100,000 calls). The distinct spends are counted and placed by
dollars alone, a sort of numbers; tokens are read only among those whose dollars are the
median's, where a sort by dollars then tokens tells them apart.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from itertools import accumulate, compress, count, islice
from operator import attrgetter, is_not, ne

from wftop.core.cost.tokens import Spend

_COST = attrgetter("cost_usd")


def weight(spend: Spend) -> tuple[float, int]:
    """Where a spend is placed: its dollars (none: 0), then its tokens."""
    return (spend.cost_usd or 0.0, spend.tokens.total)


SAMPLE = 1024
"""Neighbours looked at to tell long runs of one spend from short ones."""


def _counted(done: list[Spend]) -> tuple[list[Spend], list[int]]:
    """The distinct spends of ``done`` in the order they first come, and how many times
    each comes: counted run by run where the first `SAMPLE` neighbours are mostly one
    spend, else one by one."""
    changes = sum(map(is_not, islice(done, SAMPLE), islice(done, 1, SAMPLE + 1)))
    if changes * 2 > min(len(done), SAMPLE + 1) - 1:  # short runs
        times = Counter(map(id, done))
        distinct = dict(zip(map(id, done), done, strict=True))
        return list(distinct.values()), [times[at] for at in distinct]
    starts = [0, *compress(count(1), map(is_not, done, islice(done, 1, None)))]
    runs: dict[int, int] = {}
    first: dict[int, Spend] = {}
    for start, end in zip(starts, [*starts[1:], len(done)], strict=True):
        spend = done[start]
        at = id(spend)
        runs[at] = runs.get(at, 0) + end - start
        first.setdefault(at, spend)
    return list(first.values()), list(runs.values())


def median_of(done: list[Spend]) -> Spend | None:
    """The median of ``done`` by dollars, then tokens (`weight`), among the priced ones
    when any is (an unpriced call has no place among dollars); None when empty: the spend
    at the middle (the lower of two) of ``done`` sorted stably so."""
    spends, times = _counted(done)
    priced = [place for place, spend in enumerate(spends) if spend.cost_usd is not None]
    if priced and len(priced) < len(spends):
        spends, times = [spends[at] for at in priced], [times[at] for at in priced]
    if not spends:
        return None
    costs = list(map(_COST, spends)) if priced else [0.0] * len(spends)
    middle = (sum(times) - 1) // 2
    if any(map(ne, costs, costs)):  # a NaN: placed as a sort of the weights places it
        order = sorted(range(len(spends)), key=lambda at: weight(spends[at]))
        return spends[order[bisect_right(list(accumulate(times[at] for at in order)), middle)]]
    order = sorted(range(len(spends)), key=costs.__getitem__)
    reached = list(accumulate(map(times.__getitem__, order)))
    place = bisect_right(reached, middle)
    cost = costs[order[place]]
    start, end = place, place + 1
    while start and costs[order[start - 1]] == cost:
        start -= 1
    while end < len(order) and costs[order[end]] == cost:
        end += 1
    left = middle - (reached[start - 1] if start else 0)
    for at in sorted(order[start:end], key=lambda at: spends[at].tokens.total):
        left -= times[at]
        if left < 0:
            return spends[at]
    raise AssertionError("the middle is among the spends")  # pragma: no cover
