"""The walk of a first start shared among forked walkers (`wftop.core.index.walkers`): the
same run folders, in the same order, with the same problems and the same rows-cache
listings as the walk of one process, on a tree of superseded runs, links and many
projects; the walk itself done in the walkers, not in the process that asked for it."""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.core.test_engine import View, running, until
from tests.core.test_rowcache import listing
from tests.corpus import aged, tree
from wftop.core.engine.coldstart import kept_folder
from wftop.core.index import fanout, walkers
from wftop.core.index.rowcache import RowCache
from wftop.core.index.rowfile import load_root
from wftop.core.index.supersede import find_superseded
from wftop.core.read.discovery import run_folders_of, walk_sessions
from wftop.core.read.sessions import NO_OWNER

TREES = ("killed", "clean", "resumed", "killed-in-parallel", "api-errors-429")


def many_sessions(tmp_path: Path) -> tuple[list[str], int]:
    """Two roots (and how many sessions they hold): the first of many projects of two
    sessions each, the second a copy of the first that went on (its run superseded), a run
    folder linked to a run of a later project (its target wins, at the link's place), one
    linked outside the root, a session whose ``subagents`` is a link, a snapshot without its
    folder, a name that is no run id and an empty project; the second root links to a run
    of the first (the first root wins)."""
    root = tmp_path / "root"
    for number, name in enumerate(TREES):
        for project in (tree(name) / "projects").iterdir():
            target = root / "projects" / f"{project.name}-{number}"
            shutil.copytree(project, target, symlinks=True)
            (session,) = [path for path in target.iterdir() if path.is_dir()]
            copy = session.with_name(session.name[:-4] + f"{number:04d}")
            shutil.copytree(session, copy, symlinks=True)
            shutil.copy(session.with_suffix(".jsonl"), copy.with_suffix(".jsonl"))
            (journal,) = copy.glob("subagents/workflows/*/journal.jsonl")
            with journal.open("ab") as out:  # continued there: the first copy superseded
                out.write(b'{"type":"started","key":"on","agentId":"b0"}\n')
    (root / "projects" / "-empty").mkdir()
    runs = sorted(root.glob("projects/*/*/subagents/workflows/wf_*"))
    first, last = runs[0].parent, runs[-1]
    (first / "wf_1ed1ed00-001").symlink_to(last, target_is_directory=True)
    outside = tmp_path / "outside" / "wf_0075ide0-001"
    shutil.copytree(runs[3], outside)
    (runs[3].parent / outside.name).symlink_to(outside, target_is_directory=True)
    (runs[5].parent / "wf_NOT-A-RUN").mkdir()
    moved = tmp_path / "moved" / "subagents"
    shutil.move(runs[7].parent.parent, moved)
    runs[7].parent.parent.symlink_to(moved, target_is_directory=True)
    (snapshot, *_) = sorted(root.glob("projects/*/*/workflows/wf_*.json"))
    shutil.copy(snapshot, snapshot.with_name("wf_5a9b0000-001.json"))
    second = tmp_path / "second" / "projects" / "-p" / "f0000000-0000-4000-8000-000000000000"
    (second / "subagents" / "workflows").mkdir(parents=True)
    (second / "subagents" / "workflows" / runs[8].name).symlink_to(runs[8])
    sessions = len([path for path in root.glob("projects/*/*") if path.is_dir()]) + 1
    for made in (root, outside, moved, tmp_path / "second"):
        aged(made)  # no folder changed a moment ago: every listing may be kept
    return [str(root), str(tmp_path / "second")], sessions


def walked_here(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sessions whose run folders this process lists (`RowCache.run_names`) from now on:
    a forked walker's are not."""
    here = os.getpid()
    seen: list[str] = []
    run_names = RowCache.run_names

    def noted(self: RowCache, session_path: str, *args: Any) -> Any:
        if os.getpid() == here:
            seen.append(session_path)
        return run_names(self, session_path, *args)

    monkeypatch.setattr(RowCache, "run_names", noted)
    return seen


def wait_for(ready: Callable[[], bool]) -> None:
    """Until ``ready()``; fails after 30 seconds."""
    give_up = time.monotonic() + 30
    while not ready():
        assert time.monotonic() < give_up, "waited 30 s"
        time.sleep(0.002)


def walked_both(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """`walked_here`, with this process and its walkers each walking some sessions,
    whatever the load: this process waits, before its first session, until a walker has
    walked one, and a walker waits, before its next session, until this process has."""
    here = os.getpid()
    seen: list[str] = []
    theirs, mine = tmp_path / "walked-there", tmp_path / "walked-here"
    run_names = RowCache.run_names

    def noted(self: RowCache, session_path: str, *args: Any) -> Any:
        if os.getpid() == here:
            wait_for(theirs.exists)
            seen.append(session_path)
            mine.touch()
        else:
            with theirs.open("a") as out:
                out.write(session_path + "\n")
            if len(theirs.read_text().splitlines()) > 1:
                wait_for(mine.exists)
        return run_names(self, session_path, *args)

    monkeypatch.setattr(RowCache, "run_names", noted)
    return seen


def cache_state(cache: RowCache) -> tuple[Any, ...]:
    """What a walk leaves in a rows cache, in order (each folder's stamps but when it was
    last read: the walk before reads it)."""

    def stamps(stats: dict[str, os.stat_result | None]) -> list[tuple[str, object]]:
        return [
            (path, info and (info.st_ino, info.st_mode, info.st_mtime_ns, info.st_ctime_ns))
            for path, info in stats.items()
        ]

    listings = list(cache._listings.items())
    return listings, stamps(cache._dir_stats), stamps(cache._keyed)


@pytest.mark.parametrize("count", [2, 3, 7])
def test_walkers_find_the_run_folders_and_problems_of_one_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int
) -> None:
    roots, sessions = many_sessions(tmp_path)
    alone = run_folders_of(roots)
    assert len(alone[0]) > 2 * len(TREES) and len(alone[1]) == 1
    assert len(find_superseded(alone[0])) >= 3
    cache = RowCache(None, roots)
    here = walked_both(monkeypatch, tmp_path)
    shared = run_folders_of(
        roots, cache.snapshot_names, cache.run_names, walk=walkers.in_walkers(walkers=count)
    )
    assert shared == alone and find_superseded(shared[0]) == find_superseded(alone[0])
    assert [folder.path for folder in shared[0]] == [folder.path for folder in alone[0]]
    assert 0 < len(here) < sessions  # the others in the walkers


@pytest.mark.parametrize("count", [1, 2, 3])
def test_the_caller_s_own_work_is_done_while_the_walkers_take_its_share(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int
) -> None:
    """``meanwhile`` is done before the caller takes a slice: held until the walkers have
    walked every session, it walks none itself (and with no walker, it is not done)."""
    roots, sessions = many_sessions(tmp_path)
    alone = run_folders_of(roots)
    cache = RowCache(None, roots)
    theirs = tmp_path / "walked-there"
    here = walked_here(monkeypatch)
    run_names = RowCache.run_names

    def noted(self: RowCache, session_path: str, *args: Any) -> Any:
        with theirs.open("a") as out:
            out.write(session_path + "\n")
        return run_names(self, session_path, *args)

    monkeypatch.setattr(RowCache, "run_names", noted)
    done: list[int] = []

    def meanwhile() -> None:
        wait_for(lambda: theirs.exists() and len(theirs.read_text().splitlines()) == sessions)
        done.append(len(here))

    walk = walkers.in_walkers(walkers=count, meanwhile=meanwhile)
    shared = run_folders_of(roots, cache.snapshot_names, cache.run_names, walk=walk)
    assert shared == alone
    if count == 1:
        assert done == [] and len(here) == sessions
    else:
        assert done == [0] and here == []


@pytest.mark.parametrize("kept", [False, True])
def test_walkers_keep_the_rows_cache_listings_of_one_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept: bool
) -> None:
    """A first start (nothing kept) and a second (rows and listings kept, and the sessions'
    folders stamped for the kept rows before the walk, as the engine does): the cache holds,
    and saves, what the walk of one process leaves in it."""
    roots, sessions = many_sessions(tmp_path)
    start = tmp_path / "rows"
    start.mkdir()
    if kept:
        rows, hits, _ = listing([Path(root) for root in roots], start)
        assert len(rows) > 2 * len(TREES) and hits == 0
    states = []
    for name in ("alone", "shared"):
        where = tmp_path / name
        shutil.copytree(start, where)
        cache = RowCache.open(roots, where)
        walk = walkers.in_walkers(cache, walkers=3) if name == "shared" else walk_sessions
        for folder in map(kept_folder, cache.journals()):
            assert folder is not None
            cache.find(folder, NO_OWNER, None)
        stamped = len(cache._keyed)  # each used by the walk, in whichever process
        if name == "shared":
            (tmp_path / "hands").mkdir()
            here = walked_both(monkeypatch, tmp_path / "hands")
        else:
            here = walked_here(monkeypatch)
        found = run_folders_of(roots, cache.snapshot_names, cache.run_names, walk=walk)
        monkeypatch.undo()
        states.append((found, cache_state(cache), len(here), stamped))
        cache.save()
    (alone, alone_state, alone_here, stamped), (shared, shared_state, shared_here, _) = states
    assert shared == alone and shared_state == alone_state
    assert alone_state[0] and alone_state[1] and alone_state[2] == [] and bool(stamped) is kept
    assert alone_here == sessions and 0 < shared_here < sessions
    saved = sorted(path.name for path in (tmp_path / "alone").iterdir())
    assert saved and saved == sorted(path.name for path in (tmp_path / "shared").iterdir())
    for name in saved:
        assert (tmp_path / "shared" / name).read_bytes() == (tmp_path / "alone" / name).read_bytes()


def test_a_walker_that_fails_has_its_slice_walked_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    roots, sessions = many_sessions(tmp_path)
    here = os.getpid()
    walk = walkers.walk_sessions

    def failing(*args: Any) -> Any:
        if os.getpid() != here:
            raise OSError("a walker gone wrong")
        return walk(*args)

    caches = [RowCache.open(roots, tmp_path / name) for name in ("alone", "shared")]
    alone = run_folders_of(roots, caches[0].snapshot_names, caches[0].run_names)
    monkeypatch.setattr(walkers, "walk_sessions", failing)
    walked = walked_here(monkeypatch)
    shared = run_folders_of(
        roots,
        caches[1].snapshot_names,
        caches[1].run_names,
        walk=walkers.in_walkers(caches[1], walkers=3),
    )
    assert shared == alone and cache_state(caches[1]) == cache_state(caches[0])
    assert len(walked) == sessions  # every slice here: the first, then each walker's


def test_a_first_listing_walks_its_sessions_in_walkers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ls`` (`kept_rows`) walks in walkers where there are sessions enough for each."""
    roots, sessions = many_sessions(tmp_path)
    paths = [Path(root) for root in roots]
    here = walked_here(monkeypatch)
    alone = listing(paths, tmp_path / "alone")
    assert len(here) == sessions  # too few sessions for a walker
    monkeypatch.undo()
    here = walked_both(monkeypatch, tmp_path)
    monkeypatch.setattr(walkers, "MIN_SESSIONS_PER_WALKER", 2)
    monkeypatch.setattr(fanout, "usable_cpus", lambda: 2)
    assert listing(paths, tmp_path / "shared") == alone
    assert 0 < len(here) < sessions
    for name in sorted(path.name for path in (tmp_path / "alone").iterdir()):
        assert (tmp_path / "shared" / name).read_bytes() == (tmp_path / "alone" / name).read_bytes()


async def test_the_engine_s_first_start_walks_in_walkers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    roots, sessions = many_sessions(tmp_path)
    moment = time.time()
    rows = []
    for count in (1, 2):
        here = walked_here(monkeypatch) if count == 1 else walked_both(monkeypatch, tmp_path)
        monkeypatch.setattr(walkers, "walkers_for", lambda _sessions, count=count: count)
        kept = tmp_path / f"cache-{count}"
        view = View()
        async with running(
            [Path(root) for root in roots], workers=2, now=lambda: moment, cache=kept
        ) as engine:
            engine.subscribe(view)
            await until(lambda: engine.following)
            rows.append(view.feed.rows)
        assert len(here) == sessions if count == 1 else 0 < len(here) < sessions
        monkeypatch.undo()
    assert rows[1] == rows[0] and len(rows[0]) > 2 * len(TREES)
    kept = [  # the rows in the order their readers sent them, which may differ
        [load_root(tmp_path / f"cache-{count}", root)[:2] for root in roots] for count in (1, 2)
    ]
    assert kept[1] == kept[0] and kept[0][0][0] and kept[0][0][1]


def test_walkers_are_had_by_sessions_and_cpus_and_never_beside_a_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fanout, "usable_cpus", lambda: 4)
    least = walkers.MIN_SESSIONS_PER_WALKER
    assert [walkers.walkers_for(n * least) for n in (0, 1, 2, 3, 9)] == [1, 1, 2, 3, 4]
    assert walkers.walkers_for(2 * least - 1) == 1
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert walkers.walkers_for(9 * least) == 1
    finally:
        stop.set()
        thread.join()
