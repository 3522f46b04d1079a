"""A plan prices its calls from the spend book as a forecast asks for them: what 20,000
calls served from cache spent is looked up for their median, but no table of them is
kept (a plan of 100,000 cached calls built two and walked them again); each call is still
priced as the book says when asked, and one the book does not price is read as the costs
are made (bytes and reads counted, not time)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

from wftop.core.cost.tokens import NOTHING, Spend, Tokens
from wftop.core.cost.usage import Spends
from wftop.core.forecast import costs as costs_module
from wftop.core.forecast.costs import CallCosts, call_costs
from wftop.core.read.foldcall import fold_records
from wftop.core.read.sessions import NO_OWNER

CALLS = 20_000
costs_file = costs_module.__file__ or ""
CHEAP = Spend(Tokens(input=10, output=20), 0.0004, (), 1)
DEAR = Spend(Tokens(input=10, output=900), 0.018, (), 1)
REJECTED = Spend(Tokens(), 0.0, (), 1)
"""An attempt that a 429 turned away: it cost nothing."""


class Booked(Spends):
    """Spends whose book prices a settled folder's agents' transcripts from ``table``, by
    agent id (no disk)."""

    def __init__(self, table: Mapping[str, Spend]) -> None:
        super().__init__()
        self.table = table

    def settle(self, directory: str) -> Mapping[str, Spend] | None:
        return self.table


def a_dead_run(calls: int) -> Any:
    """A run of ``calls`` calls that returned, then one in flight when its owner died."""
    records: list[tuple[int, dict[str, Any]]] = []
    for number in range(calls + 1):
        key, agent = f"v2:{number:064x}", f"a{number:016x}"
        records.append((len(records) + 1, {"type": "started", "key": key, "agentId": agent}))
        if number < calls:
            records.append((len(records) + 1, {"type": "result", "key": key, "agentId": agent}))
    table: dict[str, Any] = {}
    fold_records(records, table, {}, {}, {}, [], packs=False)
    fold = SimpleNamespace(calls=table, ordered_calls=lambda: list(table.values()))
    folder = SimpleNamespace(path="/nonexistent/run", project_dir="/nonexistent")
    return SimpleNamespace(
        fold=fold, folder=folder, name=None, unreadable_reason=None, ended=False, owner=NO_OWNER
    )


def costs_kept(run: Any, spends: Spends) -> tuple[CallCosts, int]:
    """The run's call costs and the bytes made by the module that makes them which they
    still hold (another thread's allocations are not counted)."""
    tracemalloc.start()
    try:
        costs = call_costs(run, spends)
        made = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(True, costs_file)])
        return costs, sum(stat.size for stat in made.statistics("filename"))
    finally:
        tracemalloc.stop()


def test_cached_calls_are_priced_when_asked_with_no_table_kept(monkeypatch: Any) -> None:
    run = a_dead_run(CALLS)
    calls = run.fold.ordered_calls()
    book = {call.agent_ids[-1]: CHEAP for call in calls}  # by agent id
    book[calls[7].agent_ids[-1]] = DEAR
    book[calls[-1].agent_ids[-1]] = REJECTED
    del book[calls[3].agent_ids[-1]]
    read: list[tuple[str, ...]] = []

    def agents_spend(_folder: str, agents: Any, *_args: Any) -> Spend:
        read.append(tuple(agents))
        return DEAR

    monkeypatch.setattr("wftop.core.forecast.costs.agents_spend", agents_spend)
    costs, kept = costs_kept(run, Booked(book))
    # Two tables of 20,000 keys (what each spent; which returned) held 2.5 MB.
    assert kept < 64_000
    assert read == [calls[3].agent_ids]  # the one the book does not price: read now
    assert costs.median is CHEAP
    assert costs.of(calls[7].key) is DEAR
    assert costs.of(calls[3].key) is DEAR and costs.last_of(calls[3].key)[1]
    in_flight = calls[-1].key
    assert costs.of(in_flight) is CHEAP  # no less than the median
    assert costs.last_of(in_flight) == (REJECTED, False)
    assert costs.last_of("v2:no-such-call") == (NOTHING, False)
    asked = [costs.last_of(call.key) for call in calls]
    assert sum(whole for _spent, whole in asked) == CALLS and not asked[-1][1]
    assert read == [calls[3].agent_ids]  # and never again
