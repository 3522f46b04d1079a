"""The end-of-run snapshot as the index holds it: what a run list reads taken out up front,
the rest kept as compact text until a view asks for it."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import orjson

from tests.corpus import tree
from wftop.core.snapshot import BULKY_FIELDS, parse_iso_time, read_snapshot

TREES = ("clean", "mid-failure", "api-errors-429", "killed-in-parallel-resumed", "resumed")


def snapshots() -> list[Path]:
    found = [path for name in TREES for path in tree(name).glob("projects/*/*/workflows/*.json")]
    assert len(found) >= len(TREES)
    return found


def test_a_snapshot_reads_as_its_file_says():
    for path in snapshots():
        data = orjson.loads(path.read_bytes())
        snapshot, problem = read_snapshot(str(path))
        assert problem is None and snapshot is not None
        rows = [item for item in data["workflowProgress"] if item.get("type") == "workflow_agent"]
        assert snapshot.agent_ids() == {row["agentId"] for row in rows}
        errored = {row["agentId"] for row in rows if row.get("state") == "error"}
        assert snapshot.errored_agent_ids() == errored
        assert (snapshot.status, snapshot.name) == (data["status"], data.get("workflowName"))
        assert snapshot.timestamp == parse_iso_time(data["timestamp"])
        assert snapshot.data == {k: v for k, v in data.items() if k not in BULKY_FIELDS}
        assert [row.agent_id for row in snapshot.rows] == [row["agentId"] for row in rows]


def test_a_snapshot_holds_compact_text_until_a_view_parses_it():
    """20,000 runs hold 20,000 snapshots: a parsed object costs several times its text."""
    paths = snapshots() * 20
    text = sum(
        len(
            orjson.dumps(
                {k: v for k, v in orjson.loads(path.read_bytes()).items() if k not in BULKY_FIELDS}
            )
        )
        for path in paths
    )
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        held = [read_snapshot(str(path))[0] for path in paths]
        for snapshot in held:
            assert snapshot is not None
            snapshot.agent_ids(), snapshot.errored_agent_ids(), snapshot.timestamp  # noqa: B018
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < 2 * text, (kept, text)  # parsed: 3.8 times its text
