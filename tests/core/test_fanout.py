"""Forked cold passes: the answer must not depend on how many processes computed it."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import pytest

import wftop.core.index.fanout
from tests.corpus import CORPUS, VERSIONS
from wftop.core.index.coldpass import scan_roots, scan_rows
from wftop.core.index.fanout import fan_out, streamed, worker_count

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="fork fan-out runs on Linux only")


def squares(items: Sequence[int]) -> list[tuple[int, int]]:
    return [(item, item * item) for item in items]


@linux_only
@pytest.mark.parametrize("workers", [1, 2, 3, 7])
def test_every_item_comes_back_once_whatever_the_worker_count(workers: int) -> None:
    results = fan_out(list(range(1000)), squares, workers=workers)
    assert sorted(results) == [(item, item * item) for item in range(1000)]


@linux_only
def test_a_process_slow_on_its_chunk_takes_fewer_and_the_children_take_the_rest(
    tmp_path,  # type: ignore[no-untyped-def]
) -> None:
    parent = os.getpid()
    done, started = tmp_path / "done", tmp_path / "started"
    done.touch()

    def wait_for(ready: Callable[[], bool]) -> None:
        deadline = time.monotonic() + 5
        while not ready() and time.monotonic() < deadline:
            time.sleep(0.01)

    def slow_here(items: Sequence[int]) -> list[tuple[int, int]]:
        if os.getpid() == parent:  # held until the children have done every other chunk
            started.touch()
            wait_for(lambda: done.stat().st_size >= 9)
        else:  # each child holds one chunk at most until this process has one
            wait_for(started.exists)
            fd = os.open(done, os.O_WRONLY | os.O_APPEND)
            os.write(fd, b"x")
            os.close(fd)
        return [(item, os.getpid()) for item in items]

    made = fan_out(list(range(30)), slow_here, workers=3, chunk=3)
    assert [item for item, _pid in made] == list(range(30))
    assert sum(pid == parent for _item, pid in made) == 3


@linux_only
def test_a_child_that_fails_has_its_hand_redone_in_the_parent() -> None:
    parent = os.getpid()

    def fragile(items: Sequence[int]) -> list[int]:
        if os.getpid() != parent:
            raise RuntimeError("worker broke")
        return list(items)

    assert sorted(fan_out(list(range(40)), fragile, workers=4)) == list(range(40))


@linux_only
def test_a_child_that_dies_has_its_hand_redone_in_the_parent() -> None:
    parent = os.getpid()

    def killed(items: Sequence[int]) -> list[int]:
        if os.getpid() != parent:
            os._exit(9)
        return list(items)

    assert sorted(fan_out(list(range(40)), killed, workers=2)) == list(range(40))


def test_small_inputs_and_other_threads_stay_in_one_process() -> None:
    assert worker_count(10, cpus=8) == 1
    assert worker_count(100_000, cpus=1) == 1
    if sys.platform == "linux":
        assert worker_count(100_000, cpus=4) == 4
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert worker_count(100_000, cpus=4) == 1  # fork would copy a thread mid-work
    finally:
        release.set()
        other.join()


def test_where_workers_cannot_be_forked_every_hand_is_computed_here(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def no_fork() -> int:
        raise AssertionError("forked")

    monkeypatch.setattr(wftop.core.index.fanout, "can_fork_workers", lambda: False)
    monkeypatch.setattr(os, "fork", no_fork, raising=False)
    assert worker_count(100_000, cpus=4) == 1

    def pids(items: Sequence[int]) -> list[int]:
        return [os.getpid() for _ in items]

    assert fan_out(list(range(1000)), pids, workers=4) == [os.getpid()] * 1000


@linux_only
@pytest.mark.parametrize("workers", [2, 5])
def test_forked_rows_equal_a_serial_scan_in_the_same_order(workers: int) -> None:
    roots = sorted(str(tree) for base in (CORPUS, VERSIONS) for tree in base.iterdir())
    moment = 1_800_000_000.0

    def row(run):  # type: ignore[no-untyped-def]
        return (run.ident, run.status.value, run.fold.started_lines, run.failed_labels)

    serial = scan_roots(roots, now=lambda: moment).runs
    forked = scan_rows(roots, row, now=lambda: moment, workers=workers)
    assert forked.rows == [row(run) for run in serial]
    assert len(forked.rows) > workers


def chunks_of(items: list[int], work: Callable[[Sequence[int]], Any], **options: Any) -> list[Any]:
    async def gather() -> list[Any]:
        return [result async for result in streamed(items, work, **options)]

    return asyncio.run(gather())


def pids_of(items: Sequence[int]) -> list[tuple[int, int]]:
    return [(item, os.getpid()) for item in items]


@linux_only
@pytest.mark.parametrize("workers", [1, 2, 3])
def test_a_stream_hands_back_every_chunk_once_each_from_a_forked_child(workers: int) -> None:
    chunks = chunks_of(list(range(100)), pids_of, workers=workers, chunk=10)
    assert len(chunks) == 10
    done = sorted(pair for chunk in chunks for pair in chunk)
    assert [item for item, _pid in done] == list(range(100))
    pids = {pid for _item, pid in done}
    if workers > 1:  # the caller reads none itself (a child quick enough may take them all)
        assert os.getpid() not in pids and 1 <= len(pids) <= workers
    else:
        assert pids == {os.getpid()}


@linux_only
def test_a_stream_hands_back_a_chunk_before_its_child_has_done_the_next(tmp_path) -> None:
    # the first child's second chunk waits until the caller has its first: a child that
    # sent its hand whole would wait for ever (and, given up, have it redone here)
    taken = tmp_path / "taken"

    def work(items: Sequence[int]) -> list[tuple[int, int]]:
        if items[0] == 5:
            for _ in range(2000):
                if taken.exists():
                    break
                time.sleep(0.005)
            else:
                raise RuntimeError("the first chunk was not handed back on its own")
        return pids_of(items)

    async def gather() -> list[list[tuple[int, int]]]:
        got = []
        async for chunk in streamed(list(range(20)), work, workers=2, chunk=5):
            got.append(chunk)
            if chunk[0][0] == 0:
                taken.touch()
        return got

    chunks = asyncio.run(gather())
    assert sorted(item for chunk in chunks for item, _pid in chunk) == list(range(20))
    assert os.getpid() not in {pid for chunk in chunks for _item, pid in chunk}


@linux_only
def test_a_stream_child_held_up_on_a_chunk_leaves_the_chunks_after_it_to_another(
    tmp_path,
) -> None:  # type: ignore[no-untyped-def]
    # the first chunk is done only once every other one is: chunks dealt out beforehand left
    # the ones after it (in its child's hand) waiting behind it, and it waited for ever
    def work(items: Sequence[int]) -> list[tuple[int, int]]:
        if items[0] == 0:
            for _ in range(2000):
                if len(list(tmp_path.iterdir())) == 7:
                    break
                time.sleep(0.005)
            else:
                raise RuntimeError("the other chunks waited behind the first")
        else:
            (tmp_path / str(items[0])).touch()
        return pids_of(items)

    chunks = chunks_of(list(range(80)), work, workers=2, chunk=10)
    by_chunk = {chunk[0][0]: {pid for _item, pid in chunk} for chunk in chunks}
    assert sorted(by_chunk) == list(range(0, 80, 10))
    held_up, others = by_chunk.pop(0), set().union(*by_chunk.values())
    assert len(held_up) == 1 and len(others) == 1 and held_up != others
    assert os.getpid() not in held_up | others


@linux_only
def test_a_stream_of_many_items_makes_no_more_chunks_than_a_pipe_page_holds_numbers() -> None:
    # each chunk's number is written to a pipe before any child is forked: more than a pipe
    # holds would wait for ever where Linux gives a new pipe one page (4,096 bytes)
    chunks = chunks_of(list(range(5000)), pids_of, workers=2, chunk=1)
    assert len(chunks) <= 4096 // 4
    assert sorted(item for chunk in chunks for item, _pid in chunk) == list(range(5000))


@linux_only
@pytest.mark.parametrize("how", ["raises", "dies"])
def test_a_stream_redoes_here_only_the_chunk_a_failed_child_was_on(how: str) -> None:
    parent = os.getpid()
    here: list[int] = []

    def fragile(items: Sequence[int]) -> list[tuple[int, int]]:
        if os.getpid() == parent:
            here.append(items[0])
        elif items[0] == 20:  # whichever child takes the third chunk
            if how == "dies":
                os._exit(9)
            raise RuntimeError("worker broke")
        return pids_of(items)

    chunks = chunks_of(list(range(80)), fragile, workers=2, chunk=10)
    assert sorted(item for chunk in chunks for item, _pid in chunk) == list(range(80))
    assert here == [20]  # the chunk it was on: the other child took the chunks after it


def test_where_workers_cannot_be_forked_a_stream_is_computed_here(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def no_fork() -> int:
        raise AssertionError("forked")

    monkeypatch.setattr(wftop.core.index.fanout, "can_fork_workers", lambda: False)
    monkeypatch.setattr(os, "fork", no_fork, raising=False)
    chunks = chunks_of(list(range(100)), pids_of, workers=4, chunk=10)
    assert [pair for chunk in chunks for pair in chunk] == [(i, os.getpid()) for i in range(100)]
