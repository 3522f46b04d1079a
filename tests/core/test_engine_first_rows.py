"""The engine's first rows: the rows kept in the rows cache go out before the roots are
walked, and a run whose files changed since is shown as they say; rows kept and rows read at
the start go out as they were printed, without being decoded again on the way (a view
decodes each once), and a kept row that is no row after all is replaced by its run as read."""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import re
import shutil
import time
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

from tests.core.test_engine import View, cold_rows, running, until
from tests.corpus import copy_tree, only_journal
from tests.memory_kit import held
from wftop.core.engine import coldstart, heldrow, printing, walkapart
from wftop.core.engine import protocol as wire
from wftop.core.index import fanout, rowcache, walkkeep
from wftop.core.index.coldpass import ColdPass
from wftop.core.index.rowfile import ENDED, Kept, load_root
from wftop.core.index.supersede import find_superseded
from wftop.core.read import discovery, runfolder
from wftop.core.read.sessions import NO_OWNER, local_pid_domain, owners_by_session
from wftop.core.row import WIRE_NAMES, RunRow
from wftop.core.system.procs import FakeProcessTable
from wftop.core.text.redact import Redactor


def count_decoding(monkeypatch: Any) -> list[object]:
    """Every row the engine decodes from now on (`heldrow.from_json` of a held row's)."""
    decoded: list[object] = []
    decode = heldrow.from_json

    def counted(data: Any) -> RunRow:
        decoded.append(data)
        return decode(data)

    monkeypatch.setattr(heldrow, "from_json", counted)
    return decoded


class Counting(View):
    """A view that notes how many rows the engine had decoded when its snapshot ended."""

    def __init__(self, decoded: list[object]) -> None:
        super().__init__()
        self.decoded = decoded
        self.decoded_by_then = -1

    def send(self, data: bytes) -> bool:
        if b'"final":true' in data:
            self.decoded_by_then = len(self.decoded)
        return super().send(data)


async def test_a_start_with_its_rows_cache_sends_the_kept_rows_without_decoding_them(
    tmp_path, monkeypatch
):
    # runs of one project: the name it is listed by is the one each row was kept with
    roots = [copy_tree("mid-failure-resumed", tmp_path)]
    cache = tmp_path / "rows-cache"
    async with running(roots, cache=cache) as engine:
        await until(lambda: engine.following)
    view = Counting(count_decoding(monkeypatch))
    async with running(roots, cache=cache) as engine:
        engine.subscribe(view)
        await until(lambda: engine.following)
        assert view.decoded_by_then == 0  # every row went out as the cache kept it
        expected = cold_rows([str(root) for root in roots], engine._now())
        assert view.feed.rows == expected
        assert not view.of(wire.Changed)
        assert engine.counts() == dict(
            sorted(Counter(row.shown_status for row in expected.values()).items())
        )


async def test_a_kept_row_that_is_no_row_is_replaced_by_its_run_as_read(tmp_path, monkeypatch):
    roots = [copy_tree(name, tmp_path) for name in ("killed", "clean")]
    cache = tmp_path / "rows-cache"
    async with running(roots, cache=cache) as engine:
        await until(lambda: engine.following)
    kept = coldstart._from_cache

    def spoilt(item: Kept, folder: Any) -> Any:  # naming its run, a count not
        row = re.sub(rb'"calls": *', b'"calls": "many", "was": ', item.row, count=1)
        values = orjson.loads(item.wire or b"[]")
        values[WIRE_NAMES.index("calls")] = "many"
        return kept(dataclasses.replace(item, row=row, wire=orjson.dumps(values)), folder)

    monkeypatch.setattr(coldstart, "_from_cache", spoilt)
    view = View()
    async with running(roots, cache=cache) as engine:
        engine.subscribe(view)
        await until(lambda: engine.following)
        assert engine.failure is None
        assert view.feed.rows == cold_rows([str(root) for root in roots], engine._now())


async def test_rows_read_at_the_start_go_out_without_being_decoded_again(tmp_path, monkeypatch):
    roots = [copy_tree("mid-failure-resumed", tmp_path)]
    decoded = count_decoding(monkeypatch)
    for lazy in (1, 500):  # without what they spent (read after), and with it
        decoded.clear()
        view = Counting(decoded)
        async with running(roots, cache=None, lazy_spend=lazy) as engine:
            engine.subscribe(view)
            await until(lambda: engine.following)
            assert view.decoded_by_then == 0  # printed once where it was read, sent as printed
            assert view.feed.rows == cold_rows([str(root) for root in roots], engine._now())


def removed(root: Path) -> None:
    """The run of the tree at ``root`` removed: its folder and its snapshot."""
    shutil.rmtree(only_journal(root).parent)
    for made in root.glob("projects/*/*/workflows/wf_*.json"):
        made.unlink()


async def warm_cache(roots: list[Path], cache: Path) -> None:
    """A start before: the rows cache holds every run's row."""
    async with running(roots, cache=cache) as engine:
        await until(lambda: engine.following)


async def test_a_warm_start_sends_its_kept_rows_before_it_walks_the_roots(tmp_path, monkeypatch):
    roots = [copy_tree(name, tmp_path) for name in ("killed", "clean", "mid-failure-resumed")]
    cache = tmp_path / "rows-cache"
    await warm_cache(roots, cache)
    view = View()
    walk = walkapart.run_folders_of
    before_walk: list[int] = []

    def walked(where: list[str], *how: Any, **options: Any) -> Any:
        before_walk.append(len(view.feed.rows))
        return walk(where, *how, **options)

    monkeypatch.setattr(walkapart, "run_folders_of", walked)
    async with running(roots, cache=cache) as engine:
        engine.subscribe(view)
        await until(lambda: engine.following)
        expected = cold_rows([str(root) for root in roots], engine._now())
        assert before_walk == [len(expected)]  # every run listed before the roots were walked
        assert view.feed.rows == expected
        assert not view.of(wire.Changed)


async def test_a_warm_start_says_its_kept_rows_may_be_listed_before_it_walks_the_roots(
    tmp_path, monkeypatch
):
    """``kept`` follows the rows the cache kept, before the walk; what the walk finds (a run
    added while no engine ran, one removed after its kept row went out) follows it in the
    same snapshot; a view joining during the walk is told ``kept`` after the rows it is
    sent; a start with no row kept sends none."""
    roots = [copy_tree(name, tmp_path) for name in ("killed", "clean")]
    cache = tmp_path / "rows-cache"
    first = View()
    async with running(roots, cache=cache) as engine:
        engine.subscribe(first)
        await until(lambda: engine.following)
    assert first.feed.complete and not first.of(wire.Kept)
    (project,) = copy_tree("mid-failure-resumed", tmp_path / "later").glob("projects/*")
    shutil.copytree(project, roots[0] / "projects" / project.name)  # added, no engine running
    view, joining = View(), View()
    at_walk: list[list[type]] = []
    walk = walkapart.run_folders_of

    def walked(where: list[str], *how: Any, **options: Any) -> Any:
        at_walk.append([type(message) for message in view.messages])
        engine.subscribe(joining)
        removed(roots[1])  # after its kept row went out
        return walk(where, *how, **options)

    async with running(roots, cache=cache) as engine:
        engine.subscribe(view)  # the engine's task has not begun: the walk is not yet patched
        monkeypatch.setattr(walkapart, "run_folders_of", walked)
        await until(lambda: engine.following)
        expected = cold_rows([str(root) for root in roots], engine._now())
        for each in (view, joining):
            kinds = [type(message) for message in each.messages]
            assert kinds.count(wire.Kept) == 1
            told = kinds.index(wire.Kept)
            assert all(kind is not wire.Kept for kind in kinds[told + 1 :])
            finals = [n for n, message in enumerate(each.messages) if getattr(message, "final", 0)]
            assert wire.Rows in kinds[:told] and finals and told < finals[0]
            assert each.feed.rows == expected
        assert at_walk and at_walk[0][-1] is wire.Kept  # told before the walk
        told = [type(message) for message in view.messages].index(wire.Kept)
        kept = {row.ident for rows in view.messages[:told] if isinstance(rows, wire.Rows)
                for row in rows.rows}  # fmt: skip
        assert len(kept) == len(expected) == 2
        assert kept != set(expected)  # the run added is listed, the one removed is not


async def test_runs_changed_since_the_cache_are_shown_as_their_files_say(tmp_path, monkeypatch):
    roots = [copy_tree(name, tmp_path) for name in ("killed", "clean", "mid-failure-resumed")]
    cache = tmp_path / "rows-cache"
    await warm_cache(roots, cache)
    with only_journal(roots[0]).open("a") as journal:  # a line appended after the cache
        journal.write(json.dumps({"type": "started", "key": "v2:late", "agentId": "alate"}))
        journal.write("\n")
    shutil.rmtree(only_journal(roots[1]).parent)  # a run removed after the cache
    (snapshot,) = roots[1].glob("projects/*/*/workflows/wf_*.json")
    snapshot.unlink()
    walk = walkapart.run_folders_of

    def walked(where: list[str], *how: Any, **options: Any) -> Any:
        removed(roots[2])  # and one removed after its row went out
        return walk(where, *how, **options)

    monkeypatch.setattr(walkapart, "run_folders_of", walked)
    view = View()
    async with running(roots, cache=cache) as engine:
        engine.subscribe(view)
        await until(lambda: engine.following)
        expected = cold_rows([str(root) for root in roots], engine._now())
        assert len(expected) == 1 and view.feed.rows == expected
        (row,) = expected.values()
        assert "alate" in row.in_flight
        gone = [ident for change in view.of(wire.Changed) for ident in change.removed]
        assert len(gone) == 1  # the run the walk did not find, said gone once


async def test_a_warm_start_lists_no_snapshots_folder_that_did_not_change(tmp_path, monkeypatch):
    # the walk after the kept rows asks the rows cache for each session's snapshot names, as
    # a cached ls does: a stat of the folder, the names kept with it while it holds
    roots = [copy_tree(name, tmp_path) for name in ("killed", "clean", "mid-failure-resumed")]
    cache = tmp_path / "rows-cache"
    await warm_cache(roots, cache)
    listed: list[str] = []
    names = discovery.snapshot_names

    def listing(folder: str) -> Any:
        listed.append(folder)
        return names(folder)

    monkeypatch.setattr(discovery, "snapshot_names", listing)
    monkeypatch.setattr(walkkeep, "snapshot_names", listing)
    view = Listing(listed)
    async with running(roots, cache=cache) as engine:
        engine.subscribe(view)
        await until(lambda: engine.following)
        assert view.listed_by_then == []
        assert view.feed.rows == cold_rows([str(root) for root in roots], engine._now())
    (made,) = roots[1].glob("projects/*/*/workflows/wf_*.json")
    shutil.copy(made, made.with_name("wf_aaaaaaaa-aaa.json"))  # a snapshot made since
    view = Listing(listed)
    async with running(roots, cache=cache) as engine:
        engine.subscribe(view)
        await until(lambda: engine.following)
        assert view.listed_by_then == [str(made.parent)]  # the folder that changed, alone
        assert view.feed.rows == cold_rows([str(root) for root in roots], engine._now())


async def test_the_first_rows_are_had_with_the_cyclic_collector_paused(tmp_path, monkeypatch):
    # the rows file, the rows and the run folders: many objects, no cycle among them, that
    # its full passes would walk again and again while a view waits for every run
    roots = [copy_tree(name, tmp_path) for name in ("killed", "clean", "mid-failure-resumed")]
    cache = tmp_path / "rows-cache"
    await warm_cache(roots, cache)
    collecting: dict[str, list[bool]] = {"open": [], "kept": [], "read": []}
    opened, kept, walk = rowcache.RowCache.open.__func__, coldstart._from_cache, fanout.streamed

    def noted(what: str, result: Any) -> Any:
        collecting[what].append(gc.isenabled())
        return result

    monkeypatch.setattr(
        rowcache.RowCache, "open", classmethod(lambda cls, *a: noted("open", opened(cls, *a)))
    )
    monkeypatch.setattr(coldstart, "_from_cache", lambda *a: noted("kept", kept(*a)))
    monkeypatch.setattr(fanout, "streamed", lambda *a, **k: noted("read", walk(*a, **k)))
    only_journal(roots[0]).touch()  # one run read again, the others kept
    view = View()
    async with running(roots, cache=cache) as engine:
        engine.subscribe(view)
        await until(lambda: engine.following)
        assert view.feed.rows == cold_rows([str(root) for root in roots], engine._now())
    assert gc.isenabled()
    assert collecting == {"open": [False], "kept": [False] * 2, "read": [False]}


class Listing(View):
    """A view that notes the snapshots folders listed when its snapshot ended."""

    def __init__(self, listed: list[str]) -> None:
        super().__init__()
        listed.clear()
        self.listed = listed
        self.listed_by_then: list[str] | None = None

    def send(self, data: bytes) -> bool:
        if b'"final":true' in data:
            self.listed_by_then = list(self.listed)
        return super().send(data)


def test_a_kept_row_held_costs_about_its_line_in_memory():
    folder = runfolder.RunFolder("/r", "p", "s", "wf_abcdef", "/r/x", "/r/x")
    row = RunRow("wf_abcdef", "s", "p", root="/r", name="n" * 1000, calls=7)
    item = Kept(None, row.printed(Redactor.for_json()))  # no array kept: made of the row
    coldstart._from_cache(item, folder)  # what is made once is not counted
    kept, grown = held(lambda: [coldstart._from_cache(item, folder) for _ in range(100)])
    lines = {entry.line for entry in kept if entry is not None}
    assert len(lines) == 1 and len(kept) == 100
    assert grown / len(kept) < 2 * len(item.row) + 512  # its line, no slack behind it


async def test_the_engine_reads_none_of_its_first_rows_itself(tmp_path, monkeypatch):
    # forked workers read every run and send rows back: the garbage of reading a run stays
    # out of the heap of the engine, which holds the rows for as long as it runs
    roots = [copy_tree(name, tmp_path) for name in ("killed", "clean", "resumed", "mid-failure")]
    engine_pid = os.getpid()
    read_here: list[str] = []
    read = ColdPass.read

    def noted(self: ColdPass, folders: Any, **options: Any) -> Any:
        if os.getpid() == engine_pid:
            read_here.extend(folder.ident for folder in folders)
        return read(self, folders, **options)

    monkeypatch.setattr(ColdPass, "read", noted)
    view = View()
    async with running(roots, workers=2) as engine:
        engine.subscribe(view)
        await until(lambda: engine.complete)
        assert read_here == []
        await until(lambda: engine.following)
        assert view.feed.rows == cold_rows([str(root) for root in roots], engine._now())


async def test_kept_rows_go_out_unparsed_and_are_held_on_their_least_line(tmp_path, monkeypatch):
    # A warm start sends each kept row whose first lines name its run and project as the
    # cache's naming does without parsing it (its newlines taken out, its indent left);
    # once the first rows are out the engine holds each on its least line, as printed.
    roots = [copy_tree(name, tmp_path) for name in ("killed", "clean", "mid-failure-resumed")]
    cache = tmp_path / "rows-cache"
    await warm_cache(roots, cache)
    kept = {entry[2] for root in roots for entry in load_root(cache, str(root))[0].values()}
    parsed: list[bytes] = []  # the kept rows parsed

    class Counted:
        JSONDecodeError = orjson.JSONDecodeError
        dumps = staticmethod(orjson.dumps)

        @staticmethod
        def loads(data: bytes) -> Any:
            if data in kept:
                parsed.append(data)
            return orjson.loads(data)

    monkeypatch.setattr(coldstart, "orjson", Counted)
    monkeypatch.setattr(heldrow, "orjson", Counted)
    monkeypatch.setattr(printing, "orjson", Counted)
    view = Counting(parsed)  # how many were parsed by the last of the first rows
    async with running(roots, cache=cache) as engine:
        engine.subscribe(view)
        await until(lambda: engine.following)
        assert view.feed.rows == cold_rows([str(root) for root in roots], engine._now())
        assert kept and view.decoded_by_then == 0
        for entry in engine.held.values():
            assert entry.line == orjson.dumps(orjson.loads(entry.line))


async def test_rows_read_without_what_they_spent_are_kept_as_rows_read_with_it(tmp_path):
    # An ended run's row is kept without its journal's stamp (a warm start checks it by
    # its folder's stamp alone), whether the first rows went out with what runs spent or
    # were filled in after (the rows cache's keys alike either way). An hour on, no run
    # is recent: the live index holds the filled-in rows and reads none of them again.
    roots = [copy_tree(name, tmp_path) for name in ("clean", "killed", "mid-failure-resumed")]
    later = time.time() + 3600
    keys: dict[int, dict[str, str]] = {}
    for lazy in (1, 500):
        cache = tmp_path / f"rows-cache-{lazy}"
        async with running(roots, cache=cache, lazy_spend=lazy, now=lambda: later) as engine:
            await until(lambda: engine.following)
        keys[lazy] = {
            journal: entry[0]
            for root in roots
            for journal, entry in load_root(cache, str(root))[0].items()
        }
    assert keys[1] == keys[500]
    assert any(key.startswith(ENDED) for key in keys[1].values())


def _first_start(
    tmp_path: Path, monkeypatch: Any
) -> tuple[list[str], Path, rowcache.RowCache, FakeProcessTable]:
    """Three runs' roots, where each journal the rows cache stamps (its key) is noted with
    the stamping process, an empty rows cache and a process table."""
    roots = [str(copy_tree(name, tmp_path)) for name in ("killed", "clean", "mid-failure")]
    noted = tmp_path / "stamped"
    real = rowcache.stamp

    def stamp(path: str, **options: Any) -> list[int]:
        if path.endswith("journal.jsonl"):
            with noted.open("a") as out:
                out.write(f"{os.getpid()} {path}\n")
        return real(path, **options)

    monkeypatch.setattr(rowcache, "stamp", stamp)
    cache = rowcache.RowCache.open(roots, tmp_path / "rows-cache")
    return roots, noted, cache, FakeProcessTable()


def _keys_now(roots: list[str], processes: FakeProcessTable, where: Path) -> dict[str, Any]:
    """Each run's rows-cache key, as the engine would take it now."""
    folders = discovery.run_folders_of(roots)[0]
    owners = owners_by_session(roots, processes, local_pid_domain())
    superseded = find_superseded(folders)
    return {
        folder.journal: rowcache.RowCache.open(roots, where).key(
            folder, owners.get(folder.session_id, NO_OWNER), superseded.get(folder.ident)
        )
        for folder in folders
    }


async def test_a_cache_that_keeps_no_row_has_each_key_taken_by_the_worker_reading_the_run(
    tmp_path, monkeypatch
):
    # A first start has no kept row to check: the engine takes no run's key before it forks
    # its workers; each worker takes the keys of the runs it reads, before reading them,
    # and the rows are kept under the keys the engine would have taken.
    roots, noted, cache, processes = _first_start(tmp_path, monkeypatch)
    firsts = await coldstart.first_rows(
        roots, lambda *_: None, cache=cache, processes=processes, workers=2
    )
    taken = [line.split(" ", 1) for line in noted.read_text().splitlines()]
    assert len(taken) == firsts.count == 3 and not firsts.unpriced
    assert all(int(pid) != os.getpid() for pid, _ in taken)
    expected = _keys_now(roots, processes, tmp_path / "another")
    kept = {
        journal: entry[0]
        for root in roots
        for journal, entry in load_root(tmp_path / "rows-cache", root)[0].items()
    }
    assert kept.keys() == expected.keys() and all(expected.values())
    for journal, key in expected.items():  # an ended run's kept without its journal's stamp
        assert kept[journal] in (rowcache.key_text(key), rowcache.key_text([None, *key[1:]]))


async def test_rows_sent_without_what_they_spent_have_their_keys_taken_by_the_fill(
    tmp_path, monkeypatch
):
    # Their rows are kept once filled in, under a key the fill's worker takes before it
    # reads the run again: the first rows' workers take none (a tenth of their time).
    from wftop.core.engine import seeding

    roots, noted, cache, processes = _first_start(tmp_path, monkeypatch)
    firsts = await coldstart.first_rows(
        roots, lambda *_: None, cache=cache, processes=processes, workers=2, lazy_spend=1
    )
    assert not noted.exists()  # no key taken by the first rows
    assert list(firsts.unpriced.values()) == [None, None, None]
    chunks = seeding.filled_rows(
        roots,
        firsts.folders,
        firsts.superseded,
        processes=processes,
        workers=2,
        cache_key=cache.key,
    )
    filled = [one async for chunk in chunks for one in chunk]
    taken = [line.split(" ", 1) for line in noted.read_text().splitlines()]
    assert len(taken) == len(filled) == 3
    assert all(int(pid) != os.getpid() for pid, _ in taken)
    expected = _keys_now(roots, processes, tmp_path / "another")
    assert {one.journal: one.cache_key for one in filled} == expected and all(expected.values())


async def test_what_the_first_rows_built_is_aged_past_the_collectors_young_passes(
    tmp_path, monkeypatch
):
    # Collection resumes once every first row is had: what was built meanwhile (the rows
    # held, the run folders) is not walked by the young generations' passes as the views
    # wait for the last rows' names (20,000 runs: 40 ms of CPU), but by a full pass alone.
    roots, _noted, cache, processes = _first_start(tmp_path, monkeypatch)
    had: list[object] = []
    assert gc.isenabled()
    firsts = await coldstart.first_rows(
        roots, lambda batch, *_: had.extend(batch), cache=cache, processes=processes, workers=2
    )
    young = {id(thing) for generation in (0, 1) for thing in gc.get_objects(generation)}
    assert firsts.count == len(had) == 3 and gc.isenabled()
    assert not young & {id(entry) for entry in had}
