"""Every view of a journal reads the same records and folds them the same way.

A copy of the real ``killed`` journal gets the lines views used to disagree on: a start
whose label is not valid UTF-8, a result with a lone surrogate, a result too big for the
run list to keep and not written compactly, a repeated result, and a last line without its
newline that parses. The run list (a cold pass, which the live index shares), the plan's
fold and its heal prediction, the relocation, the journal screen, forensics and the drill
then all see the same calls.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.corpus import copy_tree, only_journal
from wftop.core.forensics.stats import run_stats
from wftop.core.index.coldpass import scan_roots
from wftop.core.index.listkeep import LIST_KEEP_BYTES
from wftop.core.read.journal import JournalFold
from wftop.core.read.jsonl import read_all
from wftop.core.read.lineindex import LineIndex
from wftop.core.read.lineverdict import ELIDED_BYTES
from wftop.core.resume.relocate import fold_lines, healed_fold
from wftop.core.system.procs import FakeProcessTable
from wftop.mockapi.scenario import read_journal
from wftop.tui.screens.journal import verdict_of

KILLED_LINES = 10
"""Lines of the ``killed`` journal before the odd ones."""
A5 = b'"key":"v2:c2f927b8082cd0b98a3372409d3eac0db9659198e55de591e3d8bc7e99fdfffa"'
ODD_LINES = [
    b'{"type":"started","key":"v2:b1","agentId":"ab1","label":"b1 \xff\xfe","phase":"Odd"}\n',
    b'{"type":"result",' + A5 + b',"agentId":"abb884cc08bd3d085","result":"cut \\ud83d"}\n',
    b'{"type": "result", "key": "v2:b1", "agentId": "ab1", "result": "'
    + b"r" * (LIST_KEEP_BYTES + 10)
    + b'"}\n',
    b'{"type":"result","key":"v2:b1","agentId":"ab1","result":{"n":1e999}}\n',
    b'{"type":"started","key":"v2:b2","agentId":"ab2","label":"b2"}',
]


def calls_of(fold: JournalFold) -> list[tuple[Any, ...]]:
    """What a view shows of each call (a result's value aside: the run list may drop it)."""
    return [
        (c.key, c.label, c.phase, c.state.value, c.agent_ids, c.attempt_lines, c.results_seen)
        + (c.has_result, c.failed, c.demoted, c.replaced, c.first_line, c.last_line)
        for c in fold.ordered_calls()
    ]


@pytest.fixture
def odd_root(tmp_path: Path) -> Path:
    root = copy_tree("killed", tmp_path)
    with open(only_journal(root), "ab") as handle:
        handle.write(b"".join(ODD_LINES))
    return root


def test_every_view_folds_the_same_calls(odd_root: Path):
    journal = only_journal(odd_root)
    batch = read_all(journal)
    whole = JournalFold().feed_all(batch.records)
    states = {c.label: c.state.value for c in whole.ordered_calls()}
    returned = {label: "done" for label in ("a1", "a2", "a3", "a4", "a5", "b1 \ufffd\ufffd")}
    assert states == {**returned, "b2": "in_flight"}
    assert batch.problems == [] and batch.open_tail

    (run,) = scan_roots([str(odd_root)], processes=FakeProcessTable()).runs
    assert calls_of(run.fold) == calls_of(whole)
    assert run.in_flight_calls[0].label == "b2" and len(run.in_flight_calls) == 1
    assert run.problems == ()

    relocated, records = fold_lines(journal)
    assert relocated == whole and sorted(records) == [line for line, _ in batch.records]
    healed, dropped = healed_fold(batch.records)
    assert (healed, dropped) == (whole, set())

    stats = run_stats(run)
    assert (stats.started, stats.returned, stats.gaps) == (7, 7, 1)

    assert read_journal(journal) == [record for _, record in batch.records]

    index = LineIndex(journal)
    index.update()
    verdicts = {line.number: verdict_of(line) for line in index.read(1, index.lines)}
    assert sorted(line for line, verdict in verdicts.items() if isinstance(verdict, dict)) == [
        line for line, _ in batch.records
    ]
    big = verdicts[KILLED_LINES + 3]
    assert isinstance(big, dict) and big[ELIDED_BYTES] == len(ODD_LINES[2]) - 1
