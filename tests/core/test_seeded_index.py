"""The engine's live index seeded with rows made before it started: a settled run whose key
still holds is held by that row without being read again, with the stamps that tell it
changed; a run that changed since its row was made is read. (Following a seeded index as
its files change is `test_index.py`'s ``seeded`` variant of every follow test.)"""

from __future__ import annotations

import gc
import json
import os
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.core.test_engine import View, cold_rows, running, until
from tests.corpus import aged, copy_tree, only_journal
from wftop.core.index.cachefile import settled
from wftop.core.index.coldpass import ColdPass
from wftop.core.index.held import NO_CALLS, RunKeys, Seed
from wftop.core.index.live import LiveIndex
from wftop.core.index.reader import RunReader
from wftop.core.index.rowfile import key_text
from wftop.core.model import Run
from wftop.core.read.discovery import run_folders_of
from wftop.core.read.sessions import NO_OWNER
from wftop.core.row import RunRow
from wftop.core.system.procs import FakeProcessTable, ProcessTable
from wftop.core.text.redact import Redactor

REDACTOR = Redactor.for_json()


def seeds_of(
    roots: list[str], processes: ProcessTable, now: Callable[[], float]
) -> tuple[dict[str, Seed], dict[str, Run]]:
    """What the engine's workers hand its live index: the row of every settled run read
    with no problem, under the key taken before it was read; and every run read."""
    folders, _ = run_folders_of(roots)
    cold = ColdPass.of(roots, folders, processes=processes, now=now)
    keys = RunKeys()
    seeds: dict[str, Seed] = {}
    made: dict[str, Run] = {}
    for folder in folders:
        owner = cold.owners.get(folder.session_id, NO_OWNER)
        key = keys(folder, owner, cold.superseded.get(folder.ident))
        (run,) = cold.read([folder])
        made[run.ident] = run
        if key is not None and settled(run) and not run.problems:
            seeds[run.ident] = Seed(key_text(key), RunRow.of(run).printed(REDACTOR))
    return seeds, made


def handed(made: dict[str, Run], added: tuple[Run, ...]) -> dict[str, Run]:
    """The runs a cold start handed out, each seeded one as its seed's row tells it."""
    return {run.ident: made[run.ident] if run.fold is NO_CALLS else run for run in added}


class Reads:
    """Every run folder read (`RunReader.refresh`): by ident, and those read in a thread
    other than the test's (the engine's live index reads in one)."""

    def __init__(self) -> None:
        self.by_ident: dict[str, int] = {}
        self.elsewhere: list[str] = []
        self.here = threading.current_thread()

    def clear(self) -> None:
        self.by_ident.clear()
        self.elsewhere.clear()


@pytest.fixture
def reads(monkeypatch: Any) -> Reads:
    counted = Reads()
    refresh = RunReader.refresh

    def counting(self: RunReader, **options: Any) -> bool:
        ident = self.folder.ident
        counted.by_ident[ident] = counted.by_ident.get(ident, 0) + 1
        if threading.current_thread() is not counted.here:
            counted.elsewhere.append(ident)
        return refresh(self, **options)

    monkeypatch.setattr(RunReader, "refresh", counting)
    return counted


def two_settled(tmp_path: Path) -> list[str]:
    return [str(aged(copy_tree(name, tmp_path))) for name in ("killed", "clean")]


def test_a_seeded_settled_run_is_held_without_being_read(tmp_path, reads):
    roots = two_settled(tmp_path)
    moment = time.time()
    table = FakeProcessTable()
    seeds, made = seeds_of(roots, table, lambda: moment)
    assert len(seeds) == 2
    reads.clear()
    index = LiveIndex(roots, processes=table, now=lambda: moment, hold_settled=True, spends=True)
    added = index.cold_start(seeds=seeds).added
    assert reads.by_ident == {}  # neither run was read again
    assert {run.ident for run in added} == set(made)
    for run in index.runs():
        assert run.fold is NO_CALLS and run.status == made[run.ident].status
        assert run.last_activity == seeds[run.ident].row().last_activity
    assert index.held_by_row() == set(made)
    # the stamps it holds are its files': a sweep at once sees nothing to read again
    seen = index.sweep_plan(full=True).observe()
    assert index.sweep_touches(seen) == []
    # asked for, a seeded run is read whole
    for ident, run in made.items():
        whole = index.get(ident)
        assert whole is not None and whole.fold.calls.keys() == run.fold.calls.keys()
        assert RunRow.of(whole) == RunRow.of(run)


def test_a_run_changed_since_its_row_was_made_is_read(tmp_path, reads):
    roots = two_settled(tmp_path)
    moment = time.time()
    table = FakeProcessTable()
    seeds, made = seeds_of(roots, table, lambda: moment)
    killed = only_journal(Path(roots[0]))
    with killed.open("a") as journal:
        journal.write(json.dumps({"type": "started", "key": "v2:late", "agentId": "alate"}) + "\n")
    reads.clear()
    index = LiveIndex(roots, processes=table, now=lambda: moment, hold_settled=True, spends=True)
    added = {run.ident: run for run in index.cold_start(seeds=seeds).added}
    (changed,) = [ident for ident in made if made[ident].folder.journal == str(killed)]
    assert reads.by_ident == {changed: 1}  # read once; the other run held by its seed
    assert "v2:late" in added[changed].fold.calls
    seen = index.sweep_plan(full=True).observe()
    assert index.sweep_touches(seen) == []


def test_a_seed_of_a_run_active_a_moment_ago_is_read(tmp_path, reads):
    """A run still written to (active in the last ten minutes) is kept whole, as the index
    keeps such a run it read: its seed is not used."""
    roots = two_settled(tmp_path)
    table = FakeProcessTable()
    seeds, made = seeds_of(roots, table, time.time)
    (first, *_) = made.values()
    moment = (first.last_activity or 0.0) + 60.0
    reads.clear()
    index = LiveIndex(roots, processes=table, now=lambda: moment, hold_settled=True)
    added = handed(made, index.cold_start(seeds=seeds).added)
    assert reads.by_ident.get(first.ident) == 1
    assert added[first.ident].fold.calls


async def test_the_engine_seeds_its_live_index_with_the_rows_filled_in_for_it(tmp_path, reads):
    """A large first read sends rows without what they spent; the rows filled in after are
    read by the engine's workers (here, below the size worth forking for, by the engine
    between turns of its loop), and its live index, in its thread, reads no run again."""
    roots = [tmp_path / "a" / "killed", tmp_path / "b" / "clean"]
    aged(copy_tree("killed", tmp_path / "a"))
    aged(copy_tree("clean", tmp_path / "b"))
    view = View()
    async with running(roots, lazy_spend=1, cache=tmp_path / "cache") as engine:
        engine.subscribe(view)
        await until(lambda: engine.following)
        expected = cold_rows([str(root) for root in roots], engine._now())
        assert view.feed.rows == expected
        assert not any(row.cost_pending for row in view.feed.rows.values())
        assert engine.index is not None
        assert engine.index.held_by_row() == set(expected)
    assert reads.by_ident  # the first rows and the rows filled in were read
    assert reads.elsewhere == []


async def warmed(tmp_path: Path) -> tuple[list[Path], Path]:
    """Two settled runs, and a rows cache a start before left holding both their rows."""
    roots = [aged(copy_tree(name, tmp_path / name)) for name in ("killed", "clean")]
    cache = tmp_path / "rows-cache"
    async with running(roots, cache=cache) as engine:
        await until(lambda: engine.following)
    return roots, cache


async def started_again(
    roots: list[Path], cache: Path, reads: Reads
) -> tuple[Reads, dict[str, RunRow], set[str]]:
    """A start on a warm cache, followed: the runs it read (in its thread, and elsewhere:
    its live index's), the rows its view holds (each as a cold scan makes it), and the runs
    its index holds by their rows."""
    reads.clear()
    view = View()
    async with running(roots, cache=cache) as engine:
        engine.subscribe(view)
        await until(lambda: engine.following)
        read = Reads()
        read.by_ident, read.elsewhere = dict(reads.by_ident), list(reads.elsewhere)
        assert engine.index is not None
        held = engine.index.held_by_row()
        assert view.feed.rows == cold_rows([str(root) for root in roots], engine._now())
    return read, view.feed.rows, held


async def test_a_warm_start_reads_no_run_its_rows_cache_holds(tmp_path, reads):
    """The first rows are the kept ones, and the live index is seeded with the cache's
    entries: no run is read, and every one is held by its row."""
    read, rows, held = await started_again(*await warmed(tmp_path), reads)
    assert read.by_ident == {}
    assert held == set(rows) and len(rows) == 2


async def test_a_run_changed_after_its_kept_row_went_out_is_read_by_the_live_index(
    tmp_path, reads, monkeypatch
):
    roots, cache = await warmed(tmp_path)
    killed = only_journal(roots[0])
    cold_start = LiveIndex.cold_start

    def late(index: LiveIndex, *args: Any, **options: Any) -> Any:
        with killed.open("a") as journal:  # after the first rows, before the index's seeds
            journal.write(json.dumps({"type": "started", "key": "v2:late", "agentId": "alate"}))
            journal.write("\n")
        return cold_start(index, *args, **options)

    monkeypatch.setattr(LiveIndex, "cold_start", late)
    read, rows, _held = await started_again(roots, cache, reads)
    (changed,) = [row for row in rows.values() if row.journal == str(killed)]
    assert "alate" in changed.in_flight
    assert read.elsewhere == [changed.ident]  # by the live index alone; the other: its seed


def test_the_reader_of_a_seeded_run_makes_nothing_a_read_needs(tmp_path, monkeypatch):
    """A seeded run's reader starts dozing: no fold, re-run tally or reply memo made only
    to be let go of (20,000 runs left the engine's heap full of holes so); one whose seed
    no longer holds makes its own as it reads."""
    roots = two_settled(tmp_path)
    moment = time.time()
    table = FakeProcessTable()
    seeds, made = seeds_of(roots, table, lambda: moment)
    folds: list[str] = []
    new_fold = RunReader._new_fold

    def counted(reader: RunReader) -> Any:
        folds.append(reader.folder.ident)
        return new_fold(reader)

    monkeypatch.setattr(RunReader, "_new_fold", counted)
    index = LiveIndex(roots, processes=table, now=lambda: moment, hold_settled=True)
    index.cold_start(seeds=seeds)
    assert folds == [] and index.held_by_row() == set(made)
    (ident, *_) = seeds
    index.cold_start(seeds={key: seed for key, seed in seeds.items() if key != ident})
    assert folds == [ident]


async def test_the_engine_holds_each_run_as_its_line_alone(tmp_path):
    """After a large first read (rows sent without what they spent, then filled in by its
    workers) the engine keeps no row decoded besides its line: one asked for is decoded
    from the line each time (20,000 rows kept decoded were 30 MB besides their lines)."""
    roots = [aged(copy_tree(name, tmp_path / name)) for name in ("killed", "clean")]
    async with running(roots, lazy_spend=1, cache=tmp_path / "cache") as engine:
        await until(lambda: engine.following)
        expected = cold_rows([str(root) for root in roots], engine._now())
        entries = list(engine.held.values())
        assert {entry.ident: entry.peek() for entry in entries} == expected
        assert all(entry.peek() is not entry.peek() for entry in entries)


async def test_the_rows_filled_in_are_kept_a_chunk_at_a_time_their_keys_let_go_of(
    tmp_path, monkeypatch
):
    """The rows filled in come back a chunk at a time, and what the engine keeps of a chunk
    (the rows cache's entries, its held rows) is kept before the next chunk is had: what a
    chunk brings and is let go of (printed rows, keys, names: some 30 MB at 20,000 runs)
    is made again where the chunk before left it, not beside every other. The rows cache
    takes each row's names from what the worker read, not from the row decoded again, and
    the keys of the runs it kept and the rows cache, saved, are let go of before the live
    index is built (9 MB and 10 MB at 20,000 runs), whose objects then take their place."""
    from wftop.core.engine import engine as engine_module
    from wftop.core.engine import seeding
    from wftop.core.index import rowcache
    from wftop.core.index.rowcache import RowCache

    monkeypatch.setattr(seeding, "CHUNK", 1)
    happened: list[str] = []
    fill, put, read_all = seeding.filled_rows, RowCache.put, engine_module.Engine._read_all

    async def chunked(*args: Any, **options: Any) -> Any:
        async for chunk in fill(*args, **options):
            happened.append(f"chunk of {len(chunk)}")
            yield chunk

    def putting(self: RowCache, *args: Any) -> None:
        happened.append("kept")
        put(self, *args)

    def reading_all(self: Any, index: Any, firsts: Any, seeds: Any) -> Any:
        gc.collect()
        held = "held" if any(cache() is not None for cache in opened) else "let go of"
        happened.append(f"index built with {len(firsts.unpriced)} keys, the rows cache {held}")
        return read_all(self, index, firsts, seeds)

    opened: list[weakref.ref[RowCache]] = []
    open_cache = RowCache.open.__func__  # type: ignore[attr-defined]

    def opening(cls: type[RowCache], *args: Any, **options: Any) -> RowCache:
        cache = open_cache(cls, *args, **options)
        opened.append(weakref.ref(cache))
        return cache

    def decoded_again(row: bytes) -> None:
        raise AssertionError("a row filled in was decoded again for its names")

    monkeypatch.setattr(seeding, "filled_rows", chunked)
    monkeypatch.setattr(RowCache, "put", putting)
    monkeypatch.setattr(engine_module.Engine, "_read_all", reading_all)
    monkeypatch.setattr(rowcache, "row_naming", decoded_again)
    monkeypatch.setattr(RowCache, "open", classmethod(opening))
    roots = [aged(copy_tree(name, tmp_path / name)) for name in ("killed", "clean")]
    async with running(roots, lazy_spend=1, cache=tmp_path / "cache") as engine:
        await until(lambda: engine.following)
        expected = cold_rows([str(root) for root in roots], engine._now())
        assert {ident: entry.peek() for ident, entry in engine.held.items()} == expected
    assert happened == [
        "chunk of 1",
        "kept",
        "chunk of 1",
        "kept",
        "index built with 0 keys, the rows cache let go of",
    ]


async def test_the_keys_of_the_rows_filled_in_are_taken_by_the_workers_reading_them(
    tmp_path, monkeypatch
):
    """The engine takes no key of a run whose row is filled in with what it spent: each
    worker takes the keys of the runs it reads, before reading them, and they are the keys
    the engine would have taken."""
    from wftop.core.engine import seeding
    from wftop.core.index import held

    roots = [str(copy_tree(name, tmp_path)) for name in ("killed", "clean", "mid-failure")]
    engine_pid, noted, real = os.getpid(), tmp_path / "stamped", held.stamp

    def stamp(path: str, **options: Any) -> list[int]:
        with noted.open("a") as out:
            out.write(f"{os.getpid()} {path}\n")
        return real(path, **options)

    monkeypatch.setattr(held, "stamp", stamp)
    folders, _ = run_folders_of(roots)
    processes = FakeProcessTable()
    walked = ColdPass.of(roots, folders, processes=processes)
    chunks = seeding.filled_rows(
        roots, list(folders), walked.superseded, processes=processes, workers=2
    )
    filled = [one async for chunk in chunks for one in chunk]
    taken = [line.split(" ", 1) for line in noted.read_text().splitlines()]
    assert len(taken) == len(filled) == 3
    assert all(int(pid) != engine_pid for pid, _ in taken)
    cold = ColdPass.of(roots, folders, processes=processes)
    keys = RunKeys()
    expected = {
        folder.journal: keys(
            folder, cold.owners.get(folder.session_id, NO_OWNER), cold.superseded.get(folder.ident)
        )
        for folder in folders
    }
    assert {one.journal: one.key for one in filled} == expected and all(expected.values())


async def test_the_rows_filled_in_are_made_with_no_run_and_printed_as_ls_prints_them(
    tmp_path, monkeypatch
):
    """A row filled in with what its run spent is made straight from the run's reader
    (`wftop.core.index.countrow`), no `Run` made, and printed as ``ls --json`` prints it."""
    from wftop.core.engine import seeding

    roots = [str(copy_tree(name, tmp_path)) for name in ("killed", "clean", "mid-failure")]
    folders, _ = run_folders_of(roots)
    processes = FakeProcessTable()
    cold = ColdPass.of(roots, folders, processes=processes)
    expected = {run.folder.journal: RunRow.of(run).printed(REDACTOR) for run in cold.read(folders)}
    made: list[RunReader] = []
    real = RunReader.run

    def run(self: RunReader, *args: Any, **options: Any) -> Run:
        made.append(self)
        return real(self, *args, **options)

    monkeypatch.setattr(RunReader, "run", run)
    chunks = seeding.filled_rows(
        roots, list(folders), cold.superseded, processes=processes, workers=1
    )
    filled = {one.journal: one.item async for chunk in chunks for one in chunk}
    assert filled == expected and len(filled) == 3
    assert not made


async def test_the_spends_fill_reads_the_first_rows_walk_and_walks_no_root_again(
    tmp_path, monkeypatch
):
    """The rows sent without what they spent are read again from the folders the first
    rows' walk found (`FirstRows.folders`): the engine walks the roots once before its live
    index, and every row is filled in as a cold read makes it."""
    from wftop.core.engine import seeding, walkapart

    walks: list[list[str]] = []
    real = walkapart.run_folders_of

    def walking(roots: list[str], *args: Any, **options: Any) -> Any:
        walks.append(list(roots))
        return real(roots, *args, **options)

    monkeypatch.setattr(walkapart, "run_folders_of", walking)
    monkeypatch.setattr(seeding, "run_folders_of", walking, raising=False)
    filled: list[str] = []
    real_fill = seeding.kept_filled

    async def kept(chunks: Any, *args: Any) -> Any:
        async def noted() -> Any:
            async for chunk in chunks:
                filled.extend(one.journal for one in chunk)
                yield chunk

        return await real_fill(noted(), *args)

    monkeypatch.setattr(seeding, "kept_filled", kept)
    roots = [aged(copy_tree(name, tmp_path / name)) for name in ("killed", "clean")]
    async with running(roots, lazy_spend=1, cache=tmp_path / "cache") as engine:
        await until(lambda: engine.following)
        expected = cold_rows([str(root) for root in roots], engine._now())
        assert {ident: entry.peek() for ident, entry in engine.held.items()} == expected
    assert walks == [[str(root) for root in roots]]
    folders, _ = run_folders_of([str(root) for root in roots])
    assert sorted(filled) == sorted(folder.journal for folder in folders)
