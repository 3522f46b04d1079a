"""A run read for one plan (``resume --dry-run``) is folded as its lines are read, a slice
of lines at a time, where the whole journal's records were held at once (200,000 lines: 75
MB); what it folds and the problems it finds, in their order, are what a read that keeps
every record gives (lengths and values compared, not time)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import copy_tree, only_journal
from wftop.core.index.coldpass import scan_roots
from wftop.core.read import journal as journal_module
from wftop.core.read.jsonl import SLICE_LINES, JsonlTail
from wftop.core.system.procs import FakeProcessTable

CALLS = 700


def grown(root: Path) -> Path:
    """The tree's journal grown by `CALLS` calls before its own lines, with lines of a type
    the CLI does not write, a line that does not parse, a long one and a last line without
    its newline among them."""
    journal = only_journal(root)
    lines = []
    for number in range(CALLS):
        key, agent = f"v2:{number:064x}", f"a{number:016x}"
        lines.append({"type": "started", "key": key, "agentId": agent, "label": f"w-{number}"})
        lines.append({"type": "result", "key": key, "agentId": agent, "result": {"n": number}})
    text = [json.dumps(line) for line in lines]
    text[10] = json.dumps({"type": "pondering", "key": "v2:odd"})
    text[300] = '{"type": "started", "key":'
    text[601] = json.dumps({"type": "weird"})
    text[900] = json.dumps({**lines[900], "result": {"text": "x" * 70_000}})
    own = journal.read_bytes().rstrip(b"\n")
    journal.write_bytes(("\n".join(text) + "\n").encode() + own)
    return root


def the_run(root: Path, *, packed: bool) -> Any:
    (run,) = scan_roots([str(root)], processes=FakeProcessTable(), packed=packed).runs
    return run


def test_a_plans_read_folds_its_lines_a_slice_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = grown(copy_tree("killed", tmp_path))
    fed: list[int] = []
    real = journal_module.JournalFold.feed_all

    def feed_all(fold: Any, records: list[Any]) -> Any:
        fed.append(len(records))
        return real(fold, records)

    monkeypatch.setattr(journal_module.JournalFold, "feed_all", feed_all)
    planned = the_run(root, packed=False)
    assert max(fed) <= SLICE_LINES  # the whole journal was one batch of 1,400 lines
    assert sum(fed) == len(JsonlTail(only_journal(root)).read().records)
    fed.clear()
    listed = the_run(root, packed=True)
    assert fed == [sum(fed)]  # a list's read folds as it did
    unpacked = [replace(call, packed_result=call.result) for call in listed.fold.ordered_calls()]
    assert planned.fold.ordered_calls() == unpacked
    assert (planned.fold.known_lines, planned.fold.keyless_lines) == (
        listed.fold.known_lines,
        listed.fold.keyless_lines,
    )
    reasons = [(problem.line, problem.reason) for problem in planned.problems]
    assert reasons == [(problem.line, problem.reason) for problem in listed.problems]
    assert [line for line, _reason in reasons] == [301, 11, 602]  # the read's own first
