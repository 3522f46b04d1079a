"""A run's row: made from every tree the real CLI wrote, it is the ``ls --json`` row, and it
comes back from its JSON unchanged; a row from a pipe is checked field by field."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.corpus import CORPUS, DATA, VERSIONS, copy_tree, only_journal
from wftop.core.index.coldpass import scan_roots
from wftop.core.read.sessions import Liveness
from wftop.core.remote.rows import run_from_row
from wftop.core.row import RowError, RunRow, Tally
from wftop.core.system.procs import FakeProcessTable

TOP = Path(__file__).parents[2]
TREES = sorted(
    str(tree)
    for base in (CORPUS, VERSIONS, DATA)
    for tree in base.iterdir()
    if (tree / "projects").is_dir()
)
LS_JSON_FIELDS = [
    "run_id", "session_id", "project", "project_name", "root", "cwd", "name", "status",
    "started", "returned", "failed", "calls", "in_flight", "failed_calls", "rerun_tokens",
    "dead_workers", "journal", "snapshot", "snapshot_current", "script_path", "owner",
    "owner_pid", "superseded_by", "last_activity", "unreadable_lines", "host",
]  # fmt: skip
"""The fields ``ls --json`` printed before rows had a type of their own, in their order:
scripts read them, so a row keeps every one."""


def ls_json(root: str) -> list[dict[str, Any]]:
    argv = [sys.executable, "-m", "wftop.cli", "ls", "--json", "--no-cache"]
    argv += ["--no-default-root", "--root", root]
    done = subprocess.run(argv, cwd=TOP, capture_output=True, check=True)
    rows: list[dict[str, Any]] = json.loads(done.stdout)
    return rows


@pytest.mark.parametrize("root", TREES, ids=os.path.basename)
def test_a_row_is_the_ls_json_row_and_reads_back_equal(root):
    runs = scan_roots([root], processes=FakeProcessTable()).runs
    assert runs
    for run in runs:
        row = RunRow.of(run)
        shown = row.to_json()
        assert list(shown)[: len(LS_JSON_FIELDS)] == LS_JSON_FIELDS
        assert RunRow.from_json(orjson.loads(orjson.dumps(shown))) == row
        assert row.ident == run.ident and row.shown_status == run.shown_status
        assert row.call_states == run.call_counts
    printed = ls_json(root)
    assert printed == [RunRow.of(run).to_json() for run in runs]


def superseded_and_continued(tmp_path: Path) -> list[Any]:
    """The ``killed`` run continued in another session: the first copy is superseded with
    its in-flight call never returning, the second is dead with one more result."""
    root = copy_tree("killed", tmp_path)
    source = only_journal(root)
    other = source.parents[4] / "11111111-2222-4333-8444-555555555555"
    target = other / "subagents" / "workflows" / source.parent.name
    target.mkdir(parents=True)
    line = b'{"type":"result","key":"k","agentId":"a1234567890abcdef","result":1}\n'
    (target / "journal.jsonl").write_bytes(source.read_bytes() + line)
    return scan_roots([str(root)], processes=FakeProcessTable()).runs


def test_calls_of_an_ended_run_that_never_returned_are_dead_on_every_side(tmp_path):
    """A row says how many calls are dead with the run: the list's parity bar shows them,
    and a host's row brings them over (it said nothing of them before)."""
    runs = superseded_and_continued(tmp_path)
    (ended,) = [run for run in runs if run.status.value == "superseded"]
    row = RunRow.of(ended)
    assert row.call_states == Tally(done=4, dead=1)
    shown = {"done": 4, "cached": 0, "failed": 0, "running": 0, "dead": 1}
    assert row.to_json()["call_states"] == shown
    remote = run_from_row(row.to_json(), "alpha")
    assert remote.call_counts == (4, 0, 0, 0, 1)
    assert remote.ident == f"{row.session_id}/{row.run_id}@alpha:{row.root}"


def test_a_row_from_an_older_wftop_reads_its_calls_from_its_counts_and_labels():
    row = RunRow.from_json(
        {
            "run_id": "wf_1", "session_id": "s", "project": "p", "status": "dead",
            "calls": 5, "in_flight": ["a5"], "failed_calls": ["a2"],
        }
    )  # fmt: skip
    assert row.call_states == Tally(done=3, failed=1, dead=1)
    assert row.failures == (("a2", "clean_or_unknown"),)
    assert (row.owner, row.journal, row.last_activity, row.host) == (
        Liveness.UNKNOWN,
        "",
        None,
        None,
    )
    assert row.shown_status == "dead" and row.ident == "s/wf_1@"


GOOD: dict[str, Any] = {
    "run_id": "wf_1",
    "session_id": "s",
    "project": "p",
    "status": "completed",
    "failed_calls": ["a3"],
    "last_activity": "2026-01-02T03:04:05.678Z",
    "owner": "absent",
    "owner_pid": None,
}


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("run_id", "", "run_id: expected a non-empty string, got ''"),
        ("session_id", 7, "session_id: expected a non-empty string, got 7"),
        ("status", "sleeping", "status: expected one of running, stalled, dead"),
        ("started", True, "started: expected a whole number ≥ 0, got True"),
        ("returned", -1, "returned: expected a whole number ≥ 0, got -1"),
        ("calls", 1.5, "calls: expected a whole number ≥ 0, got 1.5"),
        ("in_flight", "a5", "in_flight: expected a list of strings, got 'a5'"),
        ("failed_calls", [1], "failed_calls: expected a list of strings, got [1]"),
        ("snapshot_current", 1, "snapshot_current: expected true or false, got 1"),
        ("owner", "zombie", "owner: expected one of alive, dead, unknown, absent, got 'zombie'"),
        ("owner_pid", "12", "owner_pid: expected a whole number ≥ 0, got '12'"),
        ("last_activity", "yesterday", "last_activity: expected an ISO 8601 time or null"),
        ("cwd", ["/x"], "cwd: expected a string, got ['/x']"),
        ("call_states", [1, 2], "call_states: expected an object of counts"),
        ("call_states", {"done": -2}, "call_states.done: expected a whole number ≥ 0, got -2"),
    ],
)
def test_a_row_from_a_process_is_checked_and_the_error_names_the_field(field, value, says):
    with pytest.raises(RowError) as caught:
        RunRow.from_json({**GOOD, field: value})
    assert str(caught.value).startswith(says)


@pytest.mark.parametrize("field", ["run_id", "session_id", "project", "status"])
def test_a_row_without_its_identity_or_status_is_refused(field):
    partial = {key: value for key, value in GOOD.items() if key != field}
    with pytest.raises(RowError, match=f"^{field}: missing"):
        RunRow.from_json(partial)


def test_a_row_is_an_object_and_fields_it_does_not_know_are_left_out():
    with pytest.raises(RowError, match="^row: expected an object"):
        RunRow.from_json(["wf_1"])
    row = RunRow.from_json({**GOOD, "a_field_of_a_newer_wftop": 1.5})
    assert "a_field_of_a_newer_wftop" not in row.to_json()
    assert row.shown_status == "partial"


def test_the_host_a_row_came_from_joins_its_identity():
    row = RunRow.from_json({**GOOD, "root": "/r", "host": "elsewhere"}, host="alpha")
    assert row.host == "alpha" and row.ident == "s/wf_1@alpha:/r"
    assert row.folder_ident == "s/wf_1@/r"
    assert RunRow.from_json(row.to_json()) == row


def test_a_long_wrong_value_is_cut_in_the_message():
    with pytest.raises(RowError) as caught:
        RunRow.from_json({**GOOD, "name": ["x" * 500]})
    assert len(str(caught.value)) < 120


def test_what_a_run_spent_crosses_the_wire_checked():
    tokens = {"input": 5, "output": 7, "cache_read": 0, "cache_write_5m": 1, "cache_write_1h": 2}
    row = RunRow.from_json({**GOOD, "cost_usd": 0.25, "tokens": tokens, "unpriced_models": []})
    assert row.cost_usd == 0.25 and row.tokens.to_json() == tokens
    assert RunRow.from_json(row.to_json()) == row
    with pytest.raises(RowError, match="^cost_usd: expected a number of dollars"):
        RunRow.from_json({**GOOD, "cost_usd": -1})
    with pytest.raises(RowError, match=r"^tokens\.output: expected a whole number"):
        RunRow.from_json({**GOOD, "tokens": {**tokens, "output": "7"}})


def test_rows_read_from_json_share_the_text_many_rows_hold():
    """Every run of a root names the root, every run of a project its folder and name: rows
    read from JSON (a view holds 20,000) hold one copy of each, not one a row."""
    row = RunRow.from_json(ls_json(str(CORPUS / "killed"))[0])
    again = [RunRow.from_json(orjson.loads(orjson.dumps(row.to_json()))) for _ in range(2)]
    assert again[0] == again[1] == row
    for name in ("root", "project", "project_name", "cwd", "name"):
        assert getattr(again[0], name) is getattr(again[1], name), name
