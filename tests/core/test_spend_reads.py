"""What a list reads of agent transcripts: each once, with no ``stat`` before its first
read, and none that the spend book keeps unchanged (reads and stats counted, not timed)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.corpus import aged, copy_tree, only_journal
from wftop.cli.commands.ls import json_item
from wftop.core.cost import tally as tally_module
from wftop.core.cost import usage as usage_module
from wftop.core.cost.spendbook import SpendBook
from wftop.core.cost.tally import ExactSum, SpendTally
from wftop.core.cost.tokens import NOTHING, Spend, Tokens
from wftop.core.index.coldpass import scan_rows
from wftop.core.index.live import LiveIndex
from wftop.core.system.procs import FakeProcessTable
from wftop.core.text.redact import Redactor

NOW = 1_800_000_000.0


def counted(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[str]:
    calls: list[str] = []
    real = getattr(module, name)

    def wrapper(path: str, *args: Any) -> Any:
        calls.append(path)
        return real(path, *args)

    monkeypatch.setattr(module, name, wrapper)
    return calls


def test_a_transcript_read_the_first_time_costs_no_stat_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its stamp comes from the open file; a stat of its path only asks, later, whether it
    changed since."""
    folder = only_journal(copy_tree("killed", tmp_path)).parent
    names = os.listdir(folder)
    agents = sorted(n[6:-6] for n in names if n.startswith("agent-") and n.endswith(".jsonl"))
    assert len(agents) >= 4
    stats = counted(monkeypatch, tally_module, "_stamp")
    spent = SpendTally()
    spent.started((f"k{n}", agent) for n, agent in enumerate(agents))
    first = spent.total(str(folder))
    assert stats == []
    assert first.messages > 0 and first.cost_usd
    spent.changed(None)
    assert spent.total(str(folder)) == first
    assert len(stats) == len(agents)


def test_a_tally_read_once_reads_each_transcript_for_its_spend_straight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a book, a tally read once has neither a book to look in nor a stamp to keep:
    each transcript goes from its path to its spend (`unstamped_spend`), with no book or
    stamp asked about on the way (`SpendTally._read`: once a transcript, 32,165 of them in
    a first listing of 5,000 runs); a tally that keeps stamps still asks."""
    folder = only_journal(copy_tree("killed", tmp_path)).parent
    names = os.listdir(folder)
    agents = sorted(n[6:-6] for n in names if n.startswith("agent-") and n.endswith(".jsonl"))
    assert len(agents) >= 4
    asked: list[str] = []
    ask = SpendTally._read

    def counted_ask(self: SpendTally, path: str, stamp: Any) -> Any:
        asked.append(path)
        return ask(self, path, stamp)

    monkeypatch.setattr(SpendTally, "_read", counted_ask)
    reads = counted(monkeypatch, usage_module, "_bytes")
    once = SpendTally(once=True)
    once.started((f"k{n}", agent) for n, agent in enumerate(agents))
    spent = once.total(str(folder))
    assert asked == [] and len(reads) == len(agents)
    stamped = SpendTally()
    stamped.started((f"k{n}", agent) for n, agent in enumerate(agents))
    assert stamped.total(str(folder)) == spent
    assert len(asked) == len(agents)


def test_a_tally_read_once_takes_no_stamp_of_its_transcripts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold pass's reader is let go after its row: without a book, nothing compares its
    transcripts' stamps again, so none is taken (no ``fstat``, no ``stat``); told that they
    changed, it reads them again, and says the same as a tally that took them."""
    folder = only_journal(copy_tree("killed", tmp_path)).parent
    names = os.listdir(folder)
    agents = sorted(n[6:-6] for n in names if n.startswith("agent-") and n.endswith(".jsonl"))
    assert len(agents) >= 4
    stamped = SpendTally()
    stamped.started((f"k{n}", agent) for n, agent in enumerate(agents))
    expected = stamped.total(str(folder))
    fstats = counted(monkeypatch, os, "fstat")
    stats = counted(monkeypatch, tally_module, "_stamp")
    reads = counted(monkeypatch, usage_module, "_bytes")
    once = SpendTally(once=True)
    once.started((f"k{n}", agent) for n, agent in enumerate(agents))
    assert once.total(str(folder)) == expected
    assert len(reads) == len(agents)
    once.changed(None)
    assert once.total(str(folder)) == expected
    assert len(reads) == 2 * len(agents)  # no stamp to compare: read again
    assert (fstats, stats) == ([], [])


def test_a_large_transcript_read_once_is_read_whole(tmp_path: Path) -> None:
    """Past what is asked of a file first, the rest is read by its size."""
    folder = only_journal(copy_tree("killed", tmp_path)).parent
    (first, *_) = sorted(folder.glob("agent-*.jsonl"))
    text = first.read_bytes()
    assert text.endswith(b"\n")
    padding = b'{"type":"user","pad":"' + b"x" * 1_000 + b'"}\n'
    big = padding * (usage_module.FIRST_READ // len(padding) + 1) + text
    first.write_bytes(big)
    assert len(big) > usage_module.FIRST_READ
    assert usage_module._bytes(str(first)) == big
    read = usage_module._read(str(first))
    assert read is not None
    assert usage_module.unstamped_spend(str(first)) == usage_module.spend_of_bytes(read[1])
    assert usage_module.spend_of_bytes(big).messages > 0


def test_a_tally_that_sums_to_nothing_makes_no_spend(tmp_path: Path) -> None:
    """Where nothing was spent (agents whose transcripts hold no usage, or spends taken back
    to nothing, an unpriced model's too) the sum is `NOTHING` itself: no `Tokens` nor `Spend`
    made for it. What any sum is stays what it was."""
    folder = tmp_path / "run"
    folder.mkdir()
    for agent in ("a1", "a2"):
        (folder / f"agent-{agent}.jsonl").write_bytes(b'{"type":"user","message":{}}\n')
    once = SpendTally(once=True)
    once.started([("k1", "a1"), ("k2", "a2")])
    assert once.total(str(folder)) is NOTHING
    priced = Spend(Tokens(3, 4, 0, 0, 0), 0.25, (), 2)
    unpriced = Spend(Tokens(1, 0, 0, 0, 0), None, ("no-such-model",), 1)
    exact = ExactSum()
    assert exact.spend() is NOTHING
    exact.add(priced, 2)
    exact.add(unpriced, 1)
    assert exact.spend() == Spend(Tokens(7, 8, 0, 0, 0), None, ("no-such-model",), 5)
    exact.add(unpriced, -1)
    assert exact.spend() == Spend(Tokens(6, 8, 0, 0, 0), 0.5, (), 4)
    exact.add(priced, -2)
    assert exact.spend() is NOTHING


def listing(root: Path, book: SpendBook | None) -> list[dict[str, Any]]:
    redactor = Redactor()
    scan = scan_rows(
        [str(root)],
        lambda run: json_item(run, redactor),
        processes=FakeProcessTable(),
        now=lambda: NOW,
        workers=1,
        spend_book=book,
    )
    return [orjson.loads(row) for row in scan.rows]


def test_a_list_takes_what_the_book_keeps_and_reads_what_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = aged(copy_tree("killed-in-parallel", tmp_path / "tree"), 600)
    book = SpendBook(tmp_path / "state" / "spends")
    plain = listing(root, None)
    reads = counted(monkeypatch, usage_module, "_read")
    assert listing(root, book) == plain
    read_first = len(reads)
    assert read_first >= 4 and list((tmp_path / "state" / "spends").glob("*.json"))
    reads.clear()
    assert listing(root, SpendBook(tmp_path / "state" / "spends")) == plain
    assert reads == []  # every agent's spend came from the book
    (changed, *_) = sorted(only_journal(root).parent.glob("agent-*.jsonl"))
    with changed.open("a") as handle:
        handle.write("\n")
    listing(root, SpendBook(tmp_path / "state" / "spends"))
    assert reads == [str(changed)]


def test_an_engine_started_again_takes_what_the_book_keeps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The live index an engine follows with reads no transcript a book keeps unchanged,
    and says the same of what each run spent."""
    root = aged(copy_tree("killed-in-parallel", tmp_path / "tree"), 600)
    folder = tmp_path / "state" / "spends"

    def spent(book: SpendBook | None) -> dict[str, Any]:
        index = LiveIndex(
            [str(root)],
            processes=FakeProcessTable(),
            now=lambda: NOW,
            spends=True,
            hold_settled=True,
            spend_book=book,
        )
        return {run.ident: run.spend for run in index.cold_start().added}

    plain = spent(None)
    reads = counted(monkeypatch, usage_module, "_read")
    assert spent(SpendBook(folder)) == plain
    assert len(reads) >= 4
    reads.clear()
    assert spent(SpendBook(folder)) == plain
    assert reads == []


def test_a_followed_run_reads_its_book_file_once_not_at_every_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that keeps changing keeps its book's entries between change sets: its file (one
    entry per transcript, 50,000 in a large run) is not read again for every line."""
    root = aged(copy_tree("killed-in-parallel", tmp_path / "tree"), 600)
    journal = only_journal(root)
    book = SpendBook(tmp_path / "state" / "spends")
    index = LiveIndex(
        [str(root)], processes=FakeProcessTable(), now=lambda: NOW, spends=True, spend_book=book
    )
    index.cold_start()
    loads = counted(monkeypatch, book, "_load")
    some = next(journal.parent.glob("agent-*.jsonl")).read_bytes()
    for n in range(3):
        agent = f"late{n}"
        transcript = journal.parent / f"agent-{agent}.jsonl"
        transcript.write_bytes(some)
        os.utime(transcript, (NOW - 600, NOW - 600))
        with journal.open("a") as handle:
            line = {"type": "started", "key": f"v2:late{n}", "label": f"late{n}", "agentId": agent}
            handle.write(orjson.dumps(line).decode() + "\n")
        assert index.apply(index.classify([str(journal), str(transcript)])) is not None
    assert loads == [str(journal.parent)]
