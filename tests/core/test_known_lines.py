"""A fold counts the lines it folded of a type the CLI writes (`JournalFold.known_lines`), so
a reader asks each line's type again only of a batch holding some other (a plan's 200,000
lines were each looked at twice): the count is that of the records whose type is one of
`LINE_TYPES`, for the full fold fed whole, line by line and across a snapshot, and for the
counting fold, on every journal of every tree under ``tests/data`` and on records made by
hypothesis (every kind, unknown ones and types that are not strings)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.core.test_fold_in_one_loop import JOURNALS, odd
from tests.core.test_reliability_props import records
from tests.corpus import DATA
from wftop.core.index.coldpass import scan_roots
from wftop.core.read.countfold import CountingFold
from wftop.core.read.journal import LINE_TYPES, JournalFold
from wftop.core.read.jsonl import read_all

Numbered = list[tuple[int, dict[str, Any]]]


def known(numbered: Numbered) -> int:
    return sum(
        type(kind := record.get("type")) is str and kind in LINE_TYPES for _, record in numbered
    )


def counted(numbered: Numbered) -> list[int]:
    """``known_lines`` of each way of folding ``numbered``."""
    by_line = JournalFold()
    half = len(numbered) // 2
    for line, record in numbered[:half]:
        by_line.feed(line, record)
    by_line.snapshot()
    by_line.feed_all(numbered[half:])
    return [
        JournalFold().feed_all(numbered).known_lines,
        JournalFold(packs=False).feed_all(numbered).known_lines,
        by_line.known_lines,
        CountingFold().feed_all(numbered).known_lines,
    ]


@pytest.mark.parametrize("journal", JOURNALS, ids=lambda path: os.path.relpath(path, DATA))
def test_every_journal_counts_its_lines_of_known_types(journal: str) -> None:
    numbered = read_all(journal).records
    assert counted(numbered) == [known(numbered)] * 4


@settings(
    max_examples=int(os.environ.get("WFTOP_HYPOTHESIS_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(st.tuples(st.integers(1, 60), st.one_of(records, odd)), max_size=40))
def test_any_records_count_their_lines_of_known_types(numbered: Numbered) -> None:
    assert counted(numbered) == [known(numbered)] * 4


def test_a_line_of_an_unknown_type_is_still_a_problem(tmp_path: Path) -> None:
    root = tmp_path / "killed"
    shutil.copytree(DATA / "corpus" / "killed", root)
    (journal,) = root.glob("projects/*/*/subagents/workflows/wf_*/journal.jsonl")
    (clean,) = scan_roots([str(root)]).runs
    assert not clean.problems
    lines = journal.read_bytes().splitlines(keepends=True)
    odd_lines = [b'{"type":"mystery","key":"v2:zz"}\n', b'{"type":7}\n', b"{}\n"]
    journal.write_bytes(b"".join(lines[:2] + odd_lines + lines[2:]))
    (run,) = scan_roots([str(root)]).runs
    assert [(problem.line, problem.reason) for problem in run.problems] == [
        (3, "a line of type 'mystery', which wftop does not know (the CLI skips it too)"),
        (4, "a line of type none, which wftop does not know (the CLI skips it too)"),
        (5, "a line of type none, which wftop does not know (the CLI skips it too)"),
    ]
