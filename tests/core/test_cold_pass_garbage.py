"""A first listing reads thousands of runs with the cyclic collector paused
(`wftop.core.index.gcpause.paused_gc`): whatever a run's read leaves in a reference cycle is
kept until the end of the command, then walked and freed at its exit. A run read for its
row leaves no cycle: each reader, fold and tally is freed as soon as it is let go."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from tests.core.test_counting_fold import NOW, TREES
from wftop.core.cost.usage import Spends
from wftop.core.index.coldpass import ColdPass
from wftop.core.read.countfold import CountingFold
from wftop.core.read.discovery import run_folders_of
from wftop.core.system.procs import FakeProcessTable


@pytest.fixture
def no_collector() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def test_a_counting_fold_let_go_is_freed_without_the_collector(no_collector: None) -> None:
    fold = CountingFold().feed_all(
        [
            (1, {"type": "started", "key": "a", "agentId": "x1", "label": "one"}),
            (2, {"type": "failed", "key": "a", "agentId": "x1"}),
            (3, {"type": "started", "key": "b", "agentId": "x2"}),
        ]
    )
    assert fold.calls["a"].failed and "b" in fold.calls and len(fold.calls) == 2
    gone = weakref.ref(fold)
    del fold
    assert gone() is None


def read_every_tree_for_rows() -> int:
    """Every run of every tree under ``tests/data`` read for its row; how many."""
    read = 0
    for root in TREES:
        folders, _ = run_folders_of([root])
        cold = ColdPass.of([root], folders, processes=FakeProcessTable(), now=lambda: NOW)
        for pending in (False, True):
            read += sum(1 for _ in cold.counted(folders, Spends(), pending=pending))
    return read


def test_runs_read_for_their_rows_leave_no_cycle_of_wftop_behind() -> None:
    read_every_tree_for_rows()  # what a first read imports is no run's garbage
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what the collection finds is kept in gc.garbage
    try:
        assert read_every_tree_for_rows() > 40
        gc.collect()
        left = sorted({type(thing).__qualname__ for thing in gc.garbage if ours(thing)})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()
    assert left == []


def ours(thing: object) -> bool:
    return type(thing).__module__.startswith("wftop.")
