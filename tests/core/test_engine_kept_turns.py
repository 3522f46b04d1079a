"""The engine's loop turns while it checks the rows its rows cache kept: a view that connects
meanwhile (its accept, its hello, its snapshot: a turn each) is not kept waiting for a batch."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from wftop.core.engine import coldstart


class NothingHolds:
    """A rows cache of ``count`` kept rows, none of which holds any more."""

    def __init__(self, root: Path, count: int) -> None:
        self.root = str(root)
        self.count = count
        self.checked = 0

    def journals(self) -> list[tuple[str, str]]:
        run = f"{self.root}/projects/-p/s1/subagents/workflows"
        return [(self.root, f"{run}/wf_{n:08x}-000/journal.jsonl") for n in range(self.count)]

    def find(self, *_args: Any, **_named: Any) -> tuple[None, None]:
        self.checked += 1
        return None, None


async def test_the_loop_turns_every_few_kept_rows_checked(tmp_path: Path) -> None:
    cache = NothingHolds(tmp_path, 3 * coldstart.CHUNK)
    turns: list[int] = []

    async def another_task() -> None:  # what a view connecting meanwhile needs: turns
        while cache.checked < cache.count:
            turns.append(cache.checked)
            await asyncio.sleep(0)

    other = asyncio.create_task(another_task())
    sent = await coldstart._kept_first(cache, {}, lambda *_sent: None)  # type: ignore[arg-type]
    await other
    assert sent == {} and cache.checked == cache.count
    step = coldstart.KEPT_TURN
    assert step < coldstart.CHUNK and turns[:3] == [step, 2 * step, 3 * step]
