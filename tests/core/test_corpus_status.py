"""Every tree the real CLI wrote gives the status and counts its history implies."""

from __future__ import annotations

import pytest

from tests.corpus import tree
from wftop.core.index.coldpass import scan_roots
from wftop.core.row import RunRow
from wftop.core.system.procs import FakeProcessTable

CASES = [
    # tree, status, started/returned lines, failed lines, calls, in flight, failed calls
    ("clean", "completed", (6, 6), 0, 6, [], []),
    ("killed", "dead", (5, 4), 0, 5, ["a5"], []),
    ("resumed", "completed", (7, 6), 0, 6, [], []),
    ("killed-in-parallel", "dead", (4, 3), 0, 4, ["a3"], []),
    ("killed-in-parallel-resumed", "completed", (7, 6), 0, 6, [], []),
    ("api-errors-429", "completed", (6, 5), 0, 6, [], ["a6"]),
    ("api-errors-429-resumed", "completed", (7, 6), 0, 6, [], []),
    ("mid-failure", "completed", (6, 5), 1, 6, [], ["a3"]),
    ("mid-failure-resumed", "completed", (10, 9), 1, 8, [], []),
    ("2.1.265-killed", "dead", (5, 4), 0, 5, ["a5"], []),
    ("2.1.265-mid-failure", "completed", (6, 5), 1, 6, [], ["a3"]),
]


@pytest.mark.parametrize(
    ("name", "status", "parity", "lines", "calls", "in_flight", "failed"), CASES
)
def test_corpus_tree(name, status, parity, lines, calls, in_flight, failed):
    result = scan_roots([str(tree(name))], processes=FakeProcessTable())
    (run,) = result.runs
    row = RunRow.of(run).to_json()
    assert row["status"] == status
    assert (row["started"], row["returned"]) == parity
    assert (row["failed"], row["failed_lines"]) == (len(failed), lines)
    assert row["calls"] == calls
    assert row["in_flight"] == in_flight
    assert row["failed_calls"] == failed
    assert row["failures"] == [{"label": label, "kind": "rate_limited"} for label in failed]
    assert result.problems == []


@pytest.mark.parametrize("name", ["2.1.146-killed", "2.1.207-killed"])
def test_old_keyless_labels_fall_back_to_agent_id(name):
    (run,) = scan_roots([str(tree(name))], processes=FakeProcessTable()).runs
    (call,) = run.in_flight_calls
    assert run.status.value == "dead"
    assert call.label == call.agent_ids[-1]


@pytest.mark.parametrize("name", ["2.1.146-mid-failure", "2.1.207-mid-failure"])
def test_failure_without_failed_line_is_read_from_the_snapshot(name):
    """Builds before 2.1.246 never wrote ``failed``: the ended run says it."""
    (run,) = scan_roots([str(tree(name))], processes=FakeProcessTable()).runs
    assert run.status.value == "completed"
    assert run.fold.failed_lines == 0
    assert len(run.failed_labels) == 1
    assert run.in_flight_calls == []
