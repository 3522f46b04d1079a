"""Load: 16 writer processes × 10,000 lines each while the live index follows.

The writers (``bench/soak.py --writer``, the same code the 10-minute soak runs) append
to 16 journals under copies of the real ``killed`` run folder, as fast as they can, one
line in seven torn across two writes. The index (``wftop.core.index.live.LiveIndex``) runs in this
process; afterwards every line must be counted exactly once (the fold's started and
result counts) and the index must equal a fresh cold scan, run by run, field by field.
No change set along the way may show a count above what was written, or a count going
backwards.
"""

from __future__ import annotations

import asyncio
import time

from bench.soak import added_counts, base_counts, make_runs, writer_argv
from tests.core.test_index import follow, rows
from tests.corpus import copy_tree
from wftop.core.index.changeset import ChangeSet
from wftop.core.read.runfolder import run_ident

WRITERS = 16
LINES = 10_000
BOUND = 120.0
"""Longest wait for the writers and then for the index to catch up (bounded, not timed)."""


async def test_sixteen_writers_every_line_counted_once(tmp_path):
    root = copy_tree("killed", tmp_path)
    folders = make_runs(root, WRITERS, "load")
    bases = {
        run_ident(str(root), f.parents[2].name, f.name): base_counts(f / "journal.jsonl")
        for f in folders
    }
    started, returned = added_counts(LINES)
    expected = {ident: (s + started, r + returned) for ident, (s, r) in bases.items()}
    async with follow(root, now=time.time) as live:
        live.sets = Recording(expected)  # type: ignore[assignment]
        writers = [
            await asyncio.create_subprocess_exec(
                *writer_argv(folder / "journal.jsonl", worker, LINES, 0)
            )
            for worker, folder in enumerate(folders)
        ]
        codes = await asyncio.wait_for(asyncio.gather(*(w.wait() for w in writers)), BOUND)
        assert codes == [0] * WRITERS

        def counted() -> dict[str, tuple[int, int]]:
            return {
                ident: (run.fold.started_lines, run.fold.result_lines)
                for ident in expected
                if (run := live.index.get(ident)) is not None
            }

        await asyncio.wait_for(_until(lambda: counted() == expected), BOUND)
        await live.settled()
        assert rows(live.index.runs()) == live.cold_rows()
        assert len(live.index.runs()) == WRITERS + 1

        seen: dict[str, tuple[int, int]] = {}
        for ident, now in live.sets.counts:  # type: ignore[attr-defined]
            before = seen.get(ident, bases[ident])
            assert before[0] <= now[0] <= expected[ident][0]
            assert before[1] <= now[1] <= expected[ident][1]
            seen[ident] = now
        assert seen == expected
        total = sum(s + r for s, r in counted().values()) - sum(s + r for s, r in bases.values())
        assert total == WRITERS * LINES


class Recording(list):  # type: ignore[type-arg]
    """The follower's list of change sets, noting each run's counts as the set arrives.

    A run's fold is live (it keeps changing after the change set that carried it), so
    the counts must be read in the same event-loop turn.
    """

    def __init__(self, expected: dict[str, tuple[int, int]]) -> None:
        super().__init__()
        self.expected = expected
        self.counts: list[tuple[str, tuple[int, int]]] = []

    def append(self, change: ChangeSet) -> None:  # type: ignore[override]
        super().append(change)
        for run in change.changed:
            if run.ident in self.expected:
                self.counts.append((run.ident, (run.fold.started_lines, run.fold.result_lines)))


async def _until(predicate) -> None:  # type: ignore[no-untyped-def]
    while not predicate():
        await asyncio.sleep(0.01)
