"""What an engine keeps of a settled run it holds by its row: the stamps that tell it
changed, not what reading it built. An engine holds 20,000 such readers."""

from __future__ import annotations

import gc
import tracemalloc

from tests.corpus import tree
from wftop.core.index.reader import RunReader
from wftop.core.read.discovery import RunFolder, run_folders_of


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
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        held = [read_and_held(folder) for _ in range(50)]
        gc.collect()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    each = sum(stat.size_diff for stat in after.compare_to(before, "filename")) / len(held)
    assert each < 2500, each
    assert all(reader.dozing and reader.tail.stat is not None for reader in held)


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
