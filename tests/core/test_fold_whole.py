"""A run's lines folded by `fold_whole` (a call's first ``started`` line makes it whole, the
``result`` of its one attempt returns it, any other line is handed to `fold_records`) are
the fold `fold_records` makes of them, call for call and field for field, key dicts in
order, counts, last agent and restore state: every journal of every tree under
``tests/data`` (the CLI's current and older builds, forensics' damaged sessions, the
fixtures), records made by hypothesis (every kind, keyed and keyless, repeats, fields of the
wrong type), journals of calls started, returned and failed once or more, interleaved at
random, each fed whole or in slices as a reader hands them, results packed or not."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.core.test_fold_in_one_loop import JOURNALS, odd
from tests.core.test_heal_derived import journals
from tests.core.test_reliability_props import records
from tests.corpus import DATA
from wftop.core.read import foldcall
from wftop.core.read.foldcall import Call, Folded, FoldedInto, fold_records, fold_whole
from wftop.core.read.jsonl import read_all

Records = list[tuple[int, dict[str, Any]]]


def folded_by(whole: bool, numbered: Records, cuts: list[int], packs: bool) -> dict[str, Any]:
    """Everything `fold_whole` (``whole``) or `fold_records` makes of ``numbered`` fed in
    the slices ``cuts`` make, in order."""
    into: FoldedInto = ({}, {}, {}, {}, [])
    calls, open_keys, failed, unlabelled, reruns = into
    told: list[tuple[Any, ...]] = []
    for start, end in zip([0, *cuts], [*cuts, len(numbered)], strict=True):
        lines = numbered[start:end]
        made = fold_whole(lines, into, packs) if whole else fold_records(lines, *into, packs)
        told.append((made.counts, made.others, made.last_agent_id, made.restore_state))
    return {
        "calls": [(key, call, call.result) for key, call in calls.items()],
        "open": list(open_keys),
        "failed": list(failed),
        "unlabelled": list(unlabelled),
        "reruns": reruns,
        "told": told,
    }


def same_fold(numbered: Records, cuts: Sequence[int] = (), packs: bool = True) -> bool:
    """Whether `fold_whole` makes of ``numbered`` what `fold_records` does, cut at ``cuts``."""
    at = sorted({min(cut, len(numbered)) for cut in cuts})
    return folded_by(True, numbered, at, packs) == folded_by(False, numbered, at, packs)


@pytest.mark.parametrize("journal", JOURNALS, ids=lambda path: os.path.relpath(path, DATA))
def test_every_journal_folds_whole_as_line_by_line(journal: str) -> None:
    numbered = read_all(journal).records
    assert same_fold(numbered) and same_fold(numbered, packs=False)
    assert same_fold(numbered, [len(numbered) // 3, len(numbered) // 2])


@settings(
    max_examples=int(os.environ.get("WFTOP_HYPOTHESIS_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.lists(st.tuples(st.integers(1, 3), st.one_of(records, records, odd)), max_size=40),
    st.lists(st.integers(0, 40), max_size=3),
    st.booleans(),
)
def test_any_records_fold_whole_as_line_by_line(
    gapped: list[tuple[int, dict[str, Any]]], cuts: list[int], packs: bool
) -> None:
    numbered, line = [], 0
    for gap, record in gapped:
        line += gap
        numbered.append((line, record))
    assert same_fold(numbered, cuts, packs)


@settings(
    max_examples=int(os.environ.get("WFTOP_HYPOTHESIS_EXAMPLES", "600")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(journals(), st.lists(st.integers(0, 40), max_size=3), st.booleans())
def test_calls_interleaved_fold_whole_as_line_by_line(
    lines: list[dict[str, Any]], cuts: list[int], packs: bool
) -> None:
    assert same_fold(list(enumerate(lines, 1)), cuts, packs)


def test_a_calls_usual_lines_are_folded_without_a_call_a_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Counted, not timed: a call started and returned once folds with no call a line; only
    the lines off that path (a line of another kind, a call started again, a result from
    another agent, a call that failed) go to `fold_records`, those in a row at once."""
    handed: list[list[int]] = []

    def counted(numbered: Records, *rest: Any) -> Folded:
        handed.append([line for line, _ in numbered])
        return fold_records(numbered, *rest)

    monkeypatch.setattr(foldcall, "fold_records", counted)
    lines: list[dict[str, Any]] = [{"type": "launched"}, {"type": "resumed"}]
    for n in range(50):
        key, agent = f"v2:{n}", f"a{n}"
        lines += [
            {"type": "started", "key": key, "agentId": agent, "label": f"w{n}", "phase": "P"},
            {"type": "result", "key": key, "agentId": agent, "result": {"n": n}},
        ]
    lines += [
        {"type": "started", "key": "v2:50", "agentId": "a50", "label": "w50"},
        {"type": "failed", "key": "v2:50", "agentId": "a50"},
        {"type": "started", "key": "v2:50", "agentId": "a51", "label": "w50"},
        {"type": "result", "key": "v2:50", "agentId": "a51", "result": 1},
        {"type": "started", "key": "v2:51", "agentId": "a52", "label": "w51"},
        {"type": "result", "key": "v2:51", "agentId": "a53", "result": 2},
    ]
    numbered = list(enumerate(lines, 1))
    assert same_fold(numbered)
    handed.clear()
    calls: dict[str, Call] = {}
    fold_whole(numbered, (calls, {}, {}, {}, []))
    assert handed == [[1, 2], [104], [105], [106], [108]]
    assert len(calls) == 52 and calls["v2:7"].result == {"n": 7}


def test_a_call_started_is_made_without_its_init(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: a call made by its first ``started`` line is made field by field,
    not through `Call`'s __init__ (a frame and 18 arguments for each of a plan's 100,000
    calls), and is the call that __init__ makes of those fields; one made by `fold_records`
    (a line off that path) still goes through it."""
    made: list[str] = []
    init = Call.__init__

    def counted(self: Call, key: str, *rest: Any, **named: Any) -> None:
        made.append(key)
        init(self, key, *rest, **named)

    lines: list[dict[str, Any]] = []
    for n in range(20):
        key, agent = f"v2:{n}", f"a{n}"
        lines += [
            {"type": "started", "key": key, "agentId": agent, "label": f"w{n}", "phase": "P"},
            {"type": "result", "key": key, "agentId": agent, "result": {"n": n}},
        ]
    lines += [{"type": "started", "key": "v2:20", "agentId": "a20"}]  # no label: off the path
    numbered = list(enumerate(lines, 1))
    monkeypatch.setattr(Call, "__init__", counted)
    calls: dict[str, Call] = {}
    fold_whole(numbered, (calls, {}, {}, {}, []))
    assert made == ["v2:20"]
    monkeypatch.undo()
    assert same_fold(numbered) and same_fold(numbered, packs=False)
    call = calls["v2:7"]
    fields = [getattr(call, name) for name in Call.__slots__]  # each one set
    assert call == Call(*fields) and fields[:4] == ["v2:7", 7, 15, "w7"]
