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
    its journal's whole ``os.stat_result``; 3.3 KB without them (Python 3.11)."""
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
    assert each < 4000, each
    assert all(reader.dozing and reader.tail.stat is not None for reader in held)
