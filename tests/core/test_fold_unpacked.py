"""A plan's fold keeps each result as parsed (`JournalFold.packs` False: a process that reads
one run and ends does not pack 100,000 results it holds anyway as its lines are read), and it
is the packing fold's call for call and field for field, results read back equal: every
journal of every tree under ``tests/data`` (the CLI's current and older builds, forensics'
damaged sessions, the fixtures), and records made by hypothesis (every kind, keyed and
keyless, repeats, fields of the wrong type, results JSON cannot write back), fed whole, line
by line and across a snapshot."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.core.test_fold_in_one_loop import JOURNALS, odd
from tests.core.test_fold_in_one_loop import state as whole_state
from tests.core.test_reliability_props import records
from tests.corpus import DATA
from wftop.core.index.coldpass import scan_roots
from wftop.core.read.journal import Call, JournalFold
from wftop.core.read.jsonl import read_all

FIELDS = [field.name for field in dataclasses.fields(Call) if field.name != "packed_result"]


def state(fold: JournalFold) -> dict[str, Any]:
    """Everything a fold holds, in order, each call's result as read back."""
    calls = [
        (key, [getattr(call, name) for name in FIELDS], call.result)
        for key, call in fold.calls.items()
    ]
    return {**whole_state(fold), "calls": calls}


def folds(numbered: list[tuple[int, dict[str, Any]]]) -> tuple[JournalFold, JournalFold]:
    return JournalFold().feed_all(numbered), JournalFold(packs=False).feed_all(numbered)


@pytest.mark.parametrize("journal", JOURNALS, ids=lambda path: os.path.relpath(path, DATA))
def test_every_journal_folds_unpacked_as_packed(journal: str) -> None:
    packed, unpacked = folds(read_all(journal).records)
    assert state(unpacked) == state(packed)


@settings(
    max_examples=int(os.environ.get("WFTOP_HYPOTHESIS_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(st.tuples(st.integers(1, 60), st.one_of(records, odd)), max_size=40))
def test_any_records_fold_unpacked_as_packed(numbered: list[tuple[int, dict[str, Any]]]) -> None:
    packed, unpacked = folds(numbered)
    assert state(unpacked) == state(packed)
    by_line = JournalFold(packs=False)
    for line, record in numbered[: len(numbered) // 2]:
        by_line.feed(line, record)
    shared = by_line.snapshot()  # the calls shared from here: the rest fed line by line
    assert not shared.packs
    by_line.feed_all(numbered[len(numbered) // 2 :])
    assert state(by_line) == state(packed)


def test_the_plan_reads_its_run_unpacked_and_a_list_packed(tmp_path: Path) -> None:
    root = tmp_path / "killed"
    shutil.copytree(DATA / "corpus" / "killed", root)
    (planned,) = scan_roots([str(root)], packed=False).runs
    (listed,) = scan_roots([str(root)]).runs
    returned = [call for call in planned.fold.ordered_calls() if call.has_result]
    assert returned and all(type(call.packed_result) is dict for call in returned)
    assert all(type(call.packed_result) is bytes for call in listed.fold.ordered_calls()[:4])
    assert state(planned.fold) == state(listed.fold)
