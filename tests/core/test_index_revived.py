"""A tree moved away and back is not read again: the runs held by their rows come back as
they went (`wftop.core.index.revive`), and a run whose files changed, or a copy, is read.

The index is given its touches here (no watch, no clock but the one it is handed): what
the watch or a sweep would tell it of a root, or its ``projects/``, gone and back."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from tests.core import test_seeded_index as seeded
from tests.core.test_engine import View, running, until
from tests.corpus import only_journal
from wftop.core.engine.heldrow import Held
from wftop.core.engine.holding import Gone
from wftop.core.index.live import LiveIndex
from wftop.core.index.revive import GONE_SECONDS
from wftop.core.index.touch import Kind, Touch
from wftop.core.row import RunRow
from wftop.core.system.procs import FakeProcessTable

reads = seeded.reads


def held_index(roots: list[str], moment: float) -> LiveIndex:
    """An engine's index (settled runs held by their rows) after its cold start."""
    index = LiveIndex(
        roots, processes=FakeProcessTable(), now=lambda: moment, hold_settled=True, spends=True
    )
    index.cold_start()
    return index


def gone_and_back(index: LiveIndex, root: Path, part: str, back: str, aside: Path) -> None:
    """``root/part`` (the root itself when empty) moved aside, told, and put back by
    ``back``: ``"mv"`` (the same files) or ``"cp"`` (a copy, times kept: new inodes)."""
    target = root / part if part else root
    os.rename(target, aside)
    gone = index.apply([Touch(Kind.ROOT, root=str(root))])
    assert gone is not None and len(gone.removed) == 1
    assert str(root) not in {run.folder.root for run in index.runs()}
    if back == "mv":
        os.rename(aside, target)
    else:
        shutil.copytree(aside, target, symlinks=True)


def whole_rows(index: LiveIndex) -> dict[str, RunRow]:
    rows = {}
    for run in index.runs():
        whole = index.get(run.ident)
        assert whole is not None
        rows[run.ident] = RunRow.of(whole)
    return rows


@pytest.mark.parametrize("part", ["projects", ""], ids=["projects", "root"])
def test_runs_moved_away_and_back_come_back_unread(tmp_path, reads, part):
    roots = seeded.two_settled(tmp_path)
    index = held_index(roots, time.time())
    before = whole_rows(index)
    assert len(before) == 2 and index.held_by_row() == set(before)
    for number, root in enumerate(roots):
        gone_and_back(index, Path(root), part, "mv", tmp_path / f"aside-{number}")
    reads.clear()
    back = index.apply([Touch(Kind.ROOT, root=root) for root in roots])
    assert back is not None and sorted(back.revived) == sorted(before)
    assert back.added == () and back.changed == () and back.removed == ()
    assert reads.by_ident == {}  # neither run was read again
    assert index.held_by_row() == set(before)
    assert whole_rows(index) == before
    seen = index.sweep_plan(full=True).observe()
    assert index.sweep_touches(seen) == []  # its stamps are its files'


@pytest.mark.parametrize("how", ["cp", "written"], ids=["copied back", "written after"])
def test_a_run_copied_back_or_written_since_is_read_and_the_other_not(tmp_path, reads, how):
    """A copy (``shutil.copytree`` keeps times, as ``cp -a`` does) has new inodes: its
    run is read; so is a run moved back and written to before the index looks."""
    roots = seeded.two_settled(tmp_path)
    index = held_index(roots, time.time())
    before = whole_rows(index)
    killed, clean = (Path(root) for root in roots)
    gone_and_back(index, killed, "projects", "cp" if how == "cp" else "mv", tmp_path / "a")
    gone_and_back(index, clean, "projects", "mv", tmp_path / "aside-clean")
    if how == "written":
        with only_journal(killed).open("a") as journal:
            journal.write(json.dumps({"type": "started", "key": "v2:late"}) + "\n")
    reads.clear()
    back = index.apply([Touch(Kind.ROOT, root=root) for root in roots])
    assert back is not None
    (read,) = back.added
    assert read.folder.root == str(killed) and list(reads.by_ident) == [read.ident]
    assert [ident for ident in before if ident != read.ident] == list(back.revived)
    assert ("v2:late" in read.fold.calls) == (how == "written")


def test_a_run_gone_too_long_ago_is_read_when_back(tmp_path, reads):
    roots = seeded.two_settled(tmp_path)
    moment = [time.time()]
    index = LiveIndex(roots, processes=FakeProcessTable(), now=lambda: moment[0], hold_settled=True)
    index.cold_start()
    killed, clean = (Path(root) for root in roots)
    gone_and_back(index, killed, "projects", "mv", tmp_path / "aside-killed")
    moment[0] += GONE_SECONDS + 1
    gone_and_back(index, clean, "projects", "mv", tmp_path / "aside-clean")
    reads.clear()
    back = index.apply([Touch(Kind.ROOT, root=root) for root in roots])
    assert back is not None and len(back.revived) == 1 and len(back.added) == 1
    assert list(reads.by_ident) == [back.added[0].ident]


def test_the_engine_keeps_the_rows_of_runs_gone_a_while(tmp_path):
    gone = Gone()
    rows = [Held(None, b"{}", ident=f"s/wf_{n}") for n in range(3)]
    assert not gone.keep(None, 0.0)  # nothing was held
    assert gone.keep(rows[0], 0.0) and gone.keep(rows[1], 1.0)
    assert gone.keep(rows[2], GONE_SECONDS + 0.5)  # the first is let go of
    read: list[str] = []
    back, lost = gone.back(["s/wf_0", "s/wf_1"], lambda ident: read.append(ident) or None)
    assert back == {"s/wf_1": rows[1]} and lost == [] and read == ["s/wf_0"]
    assert gone.back(["s/wf_1"], lambda ident: None) == ({}, [])  # taken once


async def test_an_engine_gives_a_tree_moved_back_its_rows_again_unread(tmp_path, reads):
    """Through the watch: a view holds the same rows again, and no run was read."""
    roots = [Path(root) for root in seeded.two_settled(tmp_path)]
    view = View()
    async with running(roots) as engine:
        engine.subscribe(view)
        await until(lambda: engine.index is not None and engine.index.sweeps >= 1)
        before = dict(view.feed.rows)
        assert len(before) == 2
        os.rename(roots[0] / "projects", tmp_path / "aside")
        await until(lambda: len(view.feed.rows) == 1)
        reads.clear()
        os.rename(tmp_path / "aside", roots[0] / "projects")
        await until(lambda: view.feed.rows == before)
        assert reads.by_ident == {}
