"""A listing that read a settled run's transcripts vouches for their folder in the spend
book, so that the run's first plan takes their spends with one ``stat`` of the folder, not
one of each transcript (100,000 of them were a third of such a plan); a run whose owner may
be alive, or whose transcripts were said to have changed, is vouched for by no listing
(stats and reads counted, not timed)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.core.test_spend_folders import (
    NOW,
    Looks,
    a_priced_transcript,
    costs_of,
    last_spends,
    the_run,
)
from tests.corpus import copy_tree, only_journal
from wftop.core.cost import spendbook as spendbook_module
from wftop.core.cost.spendbook import SpendBook
from wftop.core.cost.tally import SpendTally
from wftop.core.index.coldpass import ColdPass
from wftop.core.read.discovery import run_folders_of
from wftop.core.read.sessions import Liveness, Owner
from wftop.core.system.procs import FakeProcessTable


def listed(root: Path, state: Path, *, alive: bool = False) -> Any:
    """The runs of ``root`` as a listing reads them, what their transcripts spent written
    into the book in ``state`` (a process of its own); ``alive``: every owner may be."""
    folders, _problems = run_folders_of([str(root)])
    book = SpendBook(state, clock=lambda: NOW)
    cold = ColdPass.of(
        [str(root)], folders, processes=FakeProcessTable(), now=lambda: NOW, spend_book=book
    )
    if alive:
        for folder in folders:
            cold.owners[folder.session_id] = Owner(Liveness.ALIVE)
    (run,) = cold.read(folders, for_rows=True)  # as `wftop ls` reads runs
    cold.save_spends()
    return run


def test_a_listing_of_a_settled_run_spares_its_first_plan_a_stat_of_each_transcript(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_tree("killed", tmp_path)
    run = the_run(root)
    state = tmp_path / "state"
    listed(root, state)
    alone = costs_of(run, tmp_path / "alone")  # a plan with no listing before it
    looks = Looks(monkeypatch)
    first = costs_of(run, state)
    assert looks.taken() == []
    assert last_spends(first) == last_spends(alone)
    assert any(spend.tokens.output for spend in last_spends(first).values())
    mortal = tmp_path / "alive"  # the same run, its owner maybe alive as it was listed
    listed(root, mortal, alive=True)
    costs_of(run, mortal)
    assert len(looks.taken()) >= 4  # each transcript checked against its own stamp


def test_a_tally_whose_transcripts_were_said_to_change_vouches_for_nothing(
    tmp_path: Path,
) -> None:
    """The folder's stamp was taken before the first read: a transcript read again after a
    change (in place, the folder's stamp as it was) leaves the tally nothing to vouch for."""
    root = copy_tree("killed", tmp_path)
    folder = str(the_run(root).folder.path)
    _key, path = a_priced_transcript(Path(folder))
    book = SpendBook(tmp_path / "state", clock=lambda: NOW)
    tally = SpendTally(book)
    tally.started([("k", path.name[len("agent-") : -len(".jsonl")])])
    tally.total(folder)
    tally.changed()
    tally.total(folder)
    tally.vouch(folder)
    info = os.stat(folder)
    assert not book.vouched(folder, (info.st_ino, info.st_mtime_ns))
    fresh = SpendTally(book)
    fresh.started([("k", path.name[len("agent-") : -len(".jsonl")])])
    fresh.total(folder)
    fresh.vouch(folder)
    assert book.vouched(folder, (info.st_ino, info.st_mtime_ns))


def test_a_folder_is_checked_by_its_files_names_and_by_their_paths_where_it_cannot_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`SpendBook.checked` stats each file by its name in the open folder (no walk of its
    long path for each of 100,000 files) where the platform can; where it cannot, by its
    whole path, with the same answer."""
    root = copy_tree("killed", tmp_path)
    folder = str(only_journal(root).parent)
    state = tmp_path / "state"
    listed(root, state)
    looks = Looks(monkeypatch)
    by_name = SpendBook(state).checked(folder)
    names = looks.taken()
    assert len(names) >= 4 and all(os.sep not in name for name in names)
    monkeypatch.setattr(spendbook_module, "STAT_IN_FOLDER", False)
    by_path = SpendBook(state).checked(folder)
    taken = looks.taken()
    assert by_path == by_name and len(by_name) >= 4
    assert len(taken) >= 4 and all(os.path.dirname(path) == folder for path in taken)
