"""A fold keeps one object where a call's lines repeat a text: the agent id of its ``result``
line is its ``started`` line's (and the tuple of the agents that returned is that of its
attempts, for a call that ran once and returned), and calls made one after the other in a
phase share its text. A plan holds 100,000 calls: each text kept twice was memory it touched
for nothing. The fields are the ones the fold kept before, field for field: its tests
(``tests/core/test_fold_in_one_loop.py``, ``tests/core/test_fold_unpacked.py``) hold that."""

from __future__ import annotations

from typing import Any

import orjson

from wftop.core.read.journal import JournalFold


def parsed(*lines: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """The lines as the reader gives them: each parsed on its own (no text shared)."""
    return [(number, orjson.loads(orjson.dumps(line))) for number, line in enumerate(lines, 1)]


def test_a_result_line_keeps_the_started_lines_agent_id_and_its_tuple() -> None:
    fold = JournalFold(packs=False).feed_all(
        parsed(
            {"type": "started", "key": "k1", "agentId": "a" * 16, "label": "one", "phase": "P"},
            {"type": "result", "key": "k1", "agentId": "a" * 16, "result": {"n": 1}},
        )
    )
    call = fold.calls["k1"]
    assert call.result_agent_id == call.agent_ids[-1] == "a" * 16
    assert call.result_agent_id is call.agent_ids[-1]
    assert call.returned_agent_ids is call.agent_ids


def test_a_call_run_again_shares_the_agent_id_of_each_of_its_results() -> None:
    fold = JournalFold().feed_all(
        parsed(
            {"type": "started", "key": "k1", "agentId": "a1", "label": "one"},
            {"type": "result", "key": "k1", "agentId": "a1", "result": "x"},
            {"type": "started", "key": "k1", "agentId": "a2", "label": "one"},
            {"type": "result", "key": "k1", "agentId": "a2", "result": "y"},
        )
    )
    call = fold.calls["k1"]
    assert call.agent_ids == call.returned_agent_ids == ("a1", "a2")
    assert call.returned_agent_ids[-1] is call.agent_ids[-1] is call.result_agent_id


def test_calls_of_one_phase_share_its_text() -> None:
    lines = [
        {"type": "started", "key": f"k{n}", "agentId": f"a{n}", "label": f"w{n}", "phase": "Load"}
        for n in range(4)
    ]
    fold = JournalFold().feed_all(parsed(*lines))
    phases = [call.phase for call in fold.calls.values()]
    assert phases == ["Load"] * 4
    assert all(phase is phases[0] for phase in phases)
