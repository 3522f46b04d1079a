"""The watch helper, read on the caller's event loop: changed paths come in batches with no
thread reading them, deep folders report what changes below them, shallow ones only their
own entries, and closing ends the helper."""

from __future__ import annotations

import asyncio
import threading

import psutil

from wftop.core.index.watcher import Watcher

WAIT = 20.0


def started_threads(before: set[threading.Thread]) -> list[str]:
    """Threads started since ``before`` (asyncio's wait for a child process excepted: on
    Python 3.11 it waits for each child in a thread of its own)."""
    return [
        thread.name
        for thread in threading.enumerate()
        if thread not in before and not thread.name.startswith("asyncio-waitpid")
    ]


async def changed(watcher: Watcher, want: str) -> set[str]:
    seen: set[str] = set()
    deadline = asyncio.get_running_loop().time() + WAIT
    while want not in seen:
        left = deadline - asyncio.get_running_loop().time()
        assert left > 0, f"{want} never reported: {seen}"
        seen |= await watcher.next_paths(asyncio.Event(), left)
    return seen


async def test_changes_come_in_batches_read_on_the_loop_without_a_thread(tmp_path):
    deep, shallow = tmp_path / "deep", tmp_path / "shallow"
    (deep / "a" / "b").mkdir(parents=True)
    (shallow / "inner").mkdir(parents=True)
    before = set(threading.enumerate())
    others = {child.pid for child in psutil.Process().children()}  # an earlier test's
    watcher = Watcher(20, 5)
    assert await watcher.ensure((str(deep),), (str(shallow),))
    assert not await watcher.ensure((str(deep),), (str(shallow),))  # the same: kept
    (process,) = [child for child in psutil.Process().children() if child.pid not in others]
    try:
        (deep / "a" / "b" / "journal.jsonl").write_text("{}\n")
        await changed(watcher, str(deep / "a" / "b" / "journal.jsonl"))
        (shallow / "inner" / "below.txt").write_text("not watched\n")
        (shallow / "projects").mkdir()
        seen = await changed(watcher, str(shallow / "projects"))
        assert str(shallow / "inner" / "below.txt") not in seen
        assert started_threads(before) == []
    finally:
        await watcher.close()
    assert not process.is_running() or process.status() == psutil.STATUS_ZOMBIE
    assert watcher.paths == watcher.shallow == ()
