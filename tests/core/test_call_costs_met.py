"""A plan prices its calls as the default forecast's walk met them (`MetCalls`): those it
served from cache by their last agents, looked up in the spend book in C, and only the
others one by one. What each call's last attempt spent, the calls priced apart and the
median are those of one pass over the calls in order, on trees the real CLI wrote, and
the pricing reads no call served from cache again (values compared and reads counted, not
time: a plan of 100,000 calls walked them all once more to price them)."""

from __future__ import annotations

from pathlib import Path
from random import Random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.core.test_spend_folders import NOW, costs_of, last_spends, the_run
from tests.corpus import copy_tree
from wftop.core.cost.spendbook import SpendBook
from wftop.core.cost.tokens import Spend, Tokens
from wftop.core.cost.usage import Spends
from wftop.core.forecast.costs import CallCosts, _median, call_costs, median_of
from wftop.core.forecast.inputs import gather
from wftop.core.forecast.instant import MetCalls, predict
from wftop.core.read.foldcall import Call

TREES = ["killed", "mid-failure", "costs", "api-errors-429", "resumed", "killed-in-parallel"]


class Read(Call):
    """A call that counts the reads of its agents."""

    __slots__ = ()
    reads = 0

    @property  # type: ignore[override]
    def agent_ids(self) -> tuple[str, ...]:
        Read.reads += 1
        return Call.agent_ids.__get__(self)  # type: ignore[attr-defined,no-any-return]

    @agent_ids.setter
    def agent_ids(self, value: tuple[str, ...]) -> None:
        Call.agent_ids.__set__(self, value)  # type: ignore[attr-defined]


def priced_as_met(run: Any, state: Path) -> tuple[MetCalls, CallCosts]:
    """The calls as the walk met them, and their pricing from them with the book in
    ``state`` (a listing or a plan before it kept the transcripts' spends there)."""
    met = MetCalls()
    predict(gather(run, cli_version=(2, 1, 332)), "resume-owner", met)
    return met, call_costs(run, Spends(SpendBook(state, clock=lambda: NOW)), met)


@pytest.mark.parametrize("name", TREES)
def test_calls_priced_as_the_walk_met_them_cost_what_one_pass_over_them_finds(
    name: str, tmp_path: Path
) -> None:
    run = the_run(copy_tree(name, tmp_path))
    state = tmp_path / "state"
    costs_of(run, state)  # the first plan keeps the transcripts' spends in the book
    by_pass = costs_of(run, state)
    met, as_met = priced_as_met(run, state)
    assert len(met.ends) + len(met.others) == len(run.fold.calls)
    assert (as_met.found, as_met.median) == (by_pass.found, by_pass.median)
    assert last_spends(as_met) == last_spends(by_pass)


@pytest.mark.parametrize("name", ["killed", "mid-failure", "resumed", "costs"])
def test_the_pricing_reads_no_call_the_walk_served_from_cache_again(
    name: str, tmp_path: Path
) -> None:
    """But where a call served from cache spent on a model with no price (``costs``' a4):
    one pass over the calls prices it, as it makes each such spend anew."""
    run = the_run(copy_tree(name, tmp_path))
    state = tmp_path / "state"
    costs_of(run, state)
    by_pass = costs_of(run, state)
    for call in run.fold.calls.values():
        call.__class__ = Read
    met = MetCalls()
    predict(gather(run, cli_version=(2, 1, 332)), "resume-owner", met)
    Read.reads = 0
    costs = call_costs(run, Spends(SpendBook(state, clock=lambda: NOW)), met)
    apart = len(run.fold.calls) if name == "costs" else len(met.others)
    assert met.ends and Read.reads == apart
    assert (costs.found, costs.median) == (by_pass.found, by_pass.median)


spends = st.lists(
    st.builds(
        lambda output, cost, messages: Spend(Tokens(output=output), cost, (), messages),
        st.integers(0, 2),
        st.sampled_from([None, 0.5, 1.0]),
        st.integers(1, 2),  # two spends of one weight that are not one spend
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(spends, st.lists(st.integers(0, 3), min_size=1, max_size=9), st.randoms())
def test_a_median_said_sure_is_the_median_of_its_spends_in_any_order(
    distinct: list[Spend], picks: list[int], random: Random
) -> None:
    """Where the calls served from cache are priced apart from the others, their spends
    come in another order than the calls': a median said sure is the one that order finds
    too, else the pricing is done again in the calls' order."""
    done = [distinct[pick % len(distinct)] for pick in picks]
    median, sure = _median(done)
    assert median is median_of(done)
    if sure:
        for _ in range(5):
            random.shuffle(done)
            assert median_of(done) is median
