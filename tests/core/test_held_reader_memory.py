"""What an engine keeps of a settled run it holds by its row: the stamps that tell it
changed, not what reading it built. An engine holds 20,000 such readers."""

from __future__ import annotations

import os
from typing import Any

import pytest

from tests.corpus import tree
from tests.memory_kit import held
from wftop.core.index import reader as reader_module
from wftop.core.index.held import seed_reader
from wftop.core.index.reader import RunReader
from wftop.core.read.discovery import run_folders_of
from wftop.core.read.runfolder import RunFolder


def read_and_held(folder: RunFolder) -> RunReader:
    reader = RunReader(folder)
    reader.count_spend = True
    reader.refresh(owner_alive=False)
    reader.spend()
    reader.doze()
    return reader


def test_a_held_reader_keeps_no_spend_tally_and_no_whole_stat() -> None:
    """Read, priced and let go of: 4.8 KB a reader while it kept an empty spend tally and
    its journal's whole ``os.stat_result``; 3.3 KB without them, 1.6 KB once dozing readers
    share one empty fold, re-run tally and reply memo (Python 3.11)."""
    (folder,), _ = run_folders_of([str(tree("killed"))])
    read_and_held(folder)  # the price data and the caches of a first read, loaded once
    readers, kept = held(lambda: [read_and_held(folder) for _ in range(50)])
    each = kept / len(readers)
    assert each < 2500, each
    assert all(reader.dozing and reader.journal_stat is not None for reader in readers)


def test_held_readers_hold_no_fold_of_their_own_and_wake_whole():
    """A dozing reader keeps no calls, re-run tally or reply memo of its own (every dozing
    reader holds the same empty ones), and waking it reads its run whole again."""
    (folder,), _ = run_folders_of([str(tree("killed"))])
    awake = RunReader(folder)
    awake.refresh(owner_alive=False)
    calls = dict(awake.fold.calls)
    assert calls
    first, second = read_and_held(folder), read_and_held(folder)
    assert not first.fold.calls and not second.fold.calls
    assert first.fold is second.fold
    assert first.replies is second.replies and first._reruns is second._reruns
    first.wake(owner_alive=False)
    assert not first.dozing and first.fold is not second.fold
    assert first.fold.calls.keys() == calls.keys()
    assert [call.state for call in first.fold.calls.values()] == [
        call.state for call in calls.values()
    ]
    assert not second.fold.calls  # what the woken one read is its own


def test_a_dozing_reader_keeps_its_journals_stamp_and_no_journal_reader(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the journal's path and a reader's state for each of 20,000 runs were 8 MB: a dozing
    # reader keeps the stamp a sweep compares, and makes a journal reader when it wakes
    (folder,), _ = run_folders_of([str(tree("killed"))])
    made: list[str] = []
    real = reader_module.JsonlTail

    def counted(path: str, **options: Any) -> Any:
        made.append(path)
        return real(path, **options)

    monkeypatch.setattr(reader_module, "JsonlTail", counted)
    read = read_and_held(folder)
    seeded = RunReader(folder, dozing=True)
    assert seed_reader(seeded)
    assert made == [folder.journal]  # the read's alone
    size = os.path.getsize(folder.journal)
    for dozing in (read, seeded):
        stamp = dozing.journal_stat
        assert dozing.dozing and stamp is not None and stamp.st_size == size
    seeded.wake(owner_alive=False)
    assert made == [folder.journal] * 2
    assert seeded.journal_stat == read.journal_stat and seeded.fold.started_lines
