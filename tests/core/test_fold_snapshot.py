"""A fold's snapshot stays as it was while either side folds on."""

from __future__ import annotations

from typing import Any

from wftop.core.read.journal import CallState, JournalFold


def started(key: str, agent: str) -> dict[str, Any]:
    return {"type": "started", "key": key, "agentId": agent, "label": key}


def result(key: str, agent: str) -> dict[str, Any]:
    return {"type": "result", "key": key, "agentId": agent, "result": {}}


def shape(fold: JournalFold) -> tuple[Any, ...]:
    calls = {
        k: (c.state, tuple(c.agent_ids), tuple(c.returned_agent_ids)) for k, c in fold.calls.items()
    }
    return (
        calls,
        fold.started_lines,
        fold.result_lines,
        dict(fold.open_keys),
        fold.rerun_agent_ids[:],
    )


def test_lines_folded_after_a_snapshot_leave_it_as_it_was() -> None:
    live = JournalFold().feed_all([(1, started("a", "x1")), (2, started("b", "x2"))])
    first = live.snapshot()
    kept = shape(first)
    live.feed_all([(3, result("a", "x1")), (4, started("c", "x3")), (5, started("a", "x4"))])
    second = live.snapshot()
    live.feed(6, result("c", "x3"))
    assert shape(first) == kept
    assert first.calls["a"].state is CallState.IN_FLIGHT and "c" not in first.calls
    assert second.calls["a"].attempts == 2 and second.calls["c"].state is CallState.IN_FLIGHT
    assert live.calls["c"].state is CallState.DONE and live.rerun_agent_ids == ["x4"]


def test_a_snapshot_fed_on_leaves_the_fold_it_came_from_alone() -> None:
    live = JournalFold().feed_all([(1, started("a", "x1"))])
    copy = live.snapshot()
    copy.feed_all([(2, result("a", "x1")), (3, started("b", "x2"))])
    assert live.calls["a"].state is CallState.IN_FLIGHT and "b" not in live.calls
    assert copy.calls["a"].state is CallState.DONE and copy.started_lines == 2
