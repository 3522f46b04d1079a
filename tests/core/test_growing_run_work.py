"""A line appended to a live run costs the engine the same work whatever the run's size:
what is looked at per line is counted, not timed, at two sizes of run."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.core.test_change_cost import live_tree, row_of, spend_line
from tests.core.test_spend_reads import counted
from tests.corpus import copy_tree, only_journal
from wftop.core.cost import shelf as shelf_module
from wftop.core.cost import tally as tally_module
from wftop.core.cost.spendbook import SpendBook
from wftop.core.index import reader as reader_module
from wftop.core.index.agentstats import restat, stats_of
from wftop.core.index.coldpass import scan_roots
from wftop.core.index.live import LiveIndex
from wftop.core.system.procs import FakeProcessTable

TEXT_STAMPS = shelf_module.text_stamps


class Counted(dict[str, tuple[int, float]]):
    """Agent stamps that count the stamps a walk of them visits."""

    visited = 0

    def values(self) -> Any:
        def each() -> Iterator[tuple[int, float]]:
            for value in super(Counted, self).values():
                self.visited += 1
                yield value

        return each()


@pytest.mark.parametrize("calls", [10, 2000])
def test_the_newest_transcript_written_again_walks_no_other(tmp_path: Path, calls: int) -> None:
    """A live run's newest transcript is written again at each of its lines: the run's
    newest time is that one's, with no walk of every other transcript's stamp."""
    stamps = Counted()
    for number in range(calls):
        stamps[f"a{number}"] = (10, 1000.0 + number)
    newest = tmp_path / f"agent-a{calls - 1}.jsonl"
    newest.write_bytes(b'{"type":"user"}\n{"type":"assistant"}\n')
    os.utime(newest, (1e6, 1e6))
    stats = restat(str(tmp_path), stamps, stats_of(dict(stamps)), [newest.name])
    assert stats == stats_of(dict(stamps))
    assert stats.newest_mtime == 1e6 and stats.count == calls
    assert stamps.visited == 0


def grown(tmp_path: Path, calls: int, at: float) -> Path:
    """The ``killed`` tree's journal grown by ``calls`` calls, each with its transcript
    (modified well before ``at``: the spend book keeps them)."""
    journal = only_journal(copy_tree("killed", tmp_path))
    lines = []
    for number in range(calls):
        agent = f"g{number:06d}"
        transcript = journal.parent / f"agent-{agent}.jsonl"
        transcript.write_bytes(b'{"type":"user"}\n')
        os.utime(transcript, (at - 600, at - 600))
        key = f"v2:g-{number}"
        lines.append({"type": "started", "key": key, "agentId": agent, "label": f"g-{number}"})
        lines.append({"type": "result", "key": key, "agentId": agent, "result": {"n": number}})
    with journal.open("ab") as handle:
        handle.write(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return journal


def entries_read_per_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, calls: int) -> list[int]:
    """The spend book entries read from its file at each line appended to a run of
    ``calls`` calls followed by an engine's index, a change set that leaves the run out
    (an owner check that finds nothing new) between the lines."""
    at = time.time()
    journal = grown(tmp_path, calls, at)
    index = LiveIndex(
        [str(tmp_path / "killed")],
        processes=FakeProcessTable(),
        now=lambda: at,
        spends=True,
        hold_settled=True,
        spend_book=SpendBook(tmp_path / "state" / "spends"),
    )
    index.cold_start()
    read: list[int] = []

    def text_stamps(text: str) -> list[int] | None:
        numbers = TEXT_STAMPS(text)
        read[-1] += len(numbers or ()) // 3
        return numbers

    monkeypatch.setattr(shelf_module, "text_stamps", text_stamps)
    for number in range(4):
        read.append(0)
        agent = f"late{number}"
        transcript = journal.parent / f"agent-{agent}.jsonl"
        transcript.write_bytes(b'{"type":"user"}\n')
        line = {"type": "started", "key": f"v2:late{number}", "label": "late", "agentId": agent}
        with journal.open("ab") as handle:
            handle.write(orjson.dumps(line) + b"\n")
        assert index.apply(index.classify([str(journal), str(transcript)])) is not None
        assert index.apply([], recheck_owners=True) is None
    return read


def test_a_growing_run_reads_its_spend_entries_once_whatever_its_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its spend book entries (one per transcript) stay read between its lines, a change
    set without it between them included: read once at its first line, at no line since."""
    small = entries_read_per_line(tmp_path / "small", monkeypatch, 10)
    large = entries_read_per_line(tmp_path / "large", monkeypatch, 1000)
    assert small[0] >= 10 and large[0] >= 1000
    assert small[1:] == large[1:] == [0, 0, 0]


@pytest.mark.parametrize("calls", [10, 300])
def test_a_sweep_reads_again_the_transcripts_it_saw_change_not_every_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, calls: int
) -> None:
    """A sweep that sees a live run's transcript differ from what the index holds (written
    since, its event missed) names that one: it alone is stat'ed and its spend read again,
    where every transcript of the run was listed and stat'ed (at each sweep while it grew)."""
    root, journal, owner = live_tree(tmp_path, calls)
    moment = journal.stat().st_mtime + 5
    index = LiveIndex(
        [str(root)], processes=owner, now=lambda: moment, spends=True, hold_settled=True
    )
    (run,) = index.cold_start().added
    index.apply(index.sweep_touches(index.sweep_plan(full=True).observe()))
    agent = journal.parent / "agent-ag3.jsonl"
    added = spend_line("m-late", "claude-opus-5-5", 1234)
    with agent.open("a") as handle:
        handle.write(added)
    os.utime(agent, (moment, moment))
    seen = index.sweep_plan(full=True).observe()
    listed = counted(monkeypatch, reader_module.os, "scandir")
    stamped = counted(monkeypatch, tally_module, "_stamp")
    change = index.apply(index.sweep_touches(seen))
    assert change is not None and listed == [] and stamped == [str(agent)]
    (after,) = change.changed
    assert after.transcripts.total_bytes == run.transcripts.total_bytes + len(added)
    assert row_of(after)["tokens"]["input"] == row_of(run)["tokens"]["input"] + 1234
    fresh = scan_roots([str(root)], processes=owner, now=lambda: moment).runs
    assert [row_of(run) for run in index.runs()] == [row_of(run) for run in fresh]
