"""The walk of a cached listing: a session's run folders are listed only when their folder
changed (`RowCache.run_names`), and the listing says what a fresh walk would."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.core.test_engine import cold_rows, running, until
from tests.core.test_engine_first_rows import Listing
from tests.core.test_rowcache import listing, scandirs, three_runs_in_one_session
from tests.corpus import aged, copy_tree
from wftop.core.engine import engine as engine_module


def runs_folder(root: Path) -> Path:
    """The ``subagents/workflows`` folder of the tree's one session."""
    (folder,) = root.glob("projects/*/*/subagents/workflows")
    return folder


def test_a_session_s_run_folders_are_listed_again_only_when_their_folder_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk listed every session's ``subagents/workflows`` folder (8,004 listings at
    20,000 runs): its run folders' names are kept with the folder's stamp, taken by the
    ``lstat`` the walk makes anyway to look for links, and listed again when a run folder
    is made or removed."""
    root = aged(three_runs_in_one_session(tmp_path))
    runs = str(runs_folder(root))
    cache = tmp_path / "rows"
    first, _, _ = listing([root], cache)
    listed = scandirs(monkeypatch)
    again, hits, _ = listing([root], cache)
    assert (again, hits) == (first, 3) and runs not in listed
    shutil.copytree(Path(runs) / "wf_0000aaaa-001", Path(runs) / "wf_0000aaaa-003")
    os.utime(runs, ns=(1, 1))  # made long ago: only its inode and times tell
    more, _, _ = listing([root], cache)
    assert runs in listed and len(more) == 4
    assert more == listing([root], None)[0]
    shutil.rmtree(Path(runs) / "wf_0000aaaa-003")
    os.utime(runs, ns=(1, 1))
    listed.clear()
    fewer, _, _ = listing([root], cache)
    assert runs in listed and fewer == first


def test_a_session_listed_afresh_is_looked_at_for_links_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stamp of a session's ``subagents/workflows`` folder is taken by an ``lstat`` of
    it and of ``subagents``, which tell a link too: the listing made when no names are kept
    (a first start: 8,004 sessions at 20,000 runs) looks at neither again."""
    root = aged(three_runs_in_one_session(tmp_path))
    runs = runs_folder(root)
    looked: list[str] = []
    islink = os.path.islink

    def linked(path: str) -> bool:
        looked.append(str(path))
        return islink(path)

    monkeypatch.setattr(os.path, "islink", linked)
    first, _, _ = listing([root], tmp_path / "rows")
    assert str(runs) not in looked and str(runs.parent) not in looked
    assert first == listing([root], None)[0] and len(first) == 3


def test_a_folder_changed_a_moment_ago_is_listed_every_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two changes within one tick of the file system's clock can leave a folder's stamp
    as it was: a folder modified in the last seconds is listed, its names not kept."""
    old = aged(copy_tree("killed", tmp_path))
    new = three_runs_in_one_session(tmp_path)  # copied now
    cache = tmp_path / "rows"
    first, _, _ = listing([old, new], cache)
    listed = scandirs(monkeypatch)
    again, _, _ = listing([old, new], cache)
    assert again == first and str(runs_folder(new)) in listed
    assert str(runs_folder(old)) not in listed


@pytest.mark.parametrize("link", ["subagents", "run"])
def test_a_session_reached_through_a_link_is_listed_every_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, link: str
) -> None:
    """A link's target may change without its folder's stamp moving: a ``subagents`` folder
    that is a link, or a run folder that is one, is listed every time, and each run is
    found where a fresh walk finds it."""
    plain = aged(copy_tree("killed", tmp_path))
    root = three_runs_in_one_session(tmp_path)
    runs = runs_folder(root)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if link == "subagents":
        shutil.move(runs.parent, elsewhere / "subagents")
        runs.parent.symlink_to(elsewhere / "subagents")
    else:
        shutil.move(runs / "wf_0000aaaa-002", elsewhere / "wf_0000aaaa-002")
        (runs / "wf_0000aaaa-002").symlink_to(elsewhere / "wf_0000aaaa-002")
    aged(root)
    aged(elsewhere)
    cache = tmp_path / "rows"
    first, _, _ = listing([plain, root], cache)
    fresh, _, _ = listing([plain, root], None)
    listed = scandirs(monkeypatch)
    again, _, _ = listing([plain, root], cache)
    assert again == first == fresh and len(first) == 4
    assert str(runs) in listed and str(runs_folder(plain)) not in listed


async def test_an_engine_s_warm_start_lists_no_run_folders_that_did_not_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine's walk after its kept rows asks the rows cache for each session's run
    folders, as a cached ls does: a warm start at 20,000 runs listed 8,004 of them before
    its first rows were all out."""
    roots = [aged(copy_tree(name, tmp_path)) for name in ("killed", "clean")]
    cache = tmp_path / "rows-cache"
    async with running(roots, cache=cache) as engine:
        await until(lambda: engine.following)
    view = Listing(scandirs(monkeypatch))
    async with running(roots, cache=cache) as engine:
        engine.subscribe(view)
        await until(lambda: engine.following)
        assert view.feed.rows == cold_rows([str(root) for root in roots], engine._now())
    assert view.listed_by_then is not None
    assert not {str(runs_folder(root)) for root in roots} & set(view.listed_by_then)


async def test_an_engine_s_warm_start_stamps_each_session_s_snapshots_folder_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine checks its kept rows before it walks: the walk takes the stat of each
    session's snapshots folder that a kept row's key took (8,004 stats fewer at 20,000
    runs), as a cached ls's key takes the walk's."""
    roots = [aged(copy_tree(name, tmp_path)) for name in ("killed", "clean")]
    cache = tmp_path / "rows-cache"
    async with running(roots, cache=cache) as engine:
        await until(lambda: engine.following)
    stats: list[str] = []

    def stat(path: str) -> os.stat_result:
        stats.append(path)
        return os.stat(path)

    opened = engine_module.RowCache.open
    monkeypatch.setattr(
        engine_module.RowCache, "open", lambda roots, path: opened(roots, path, stat)
    )
    view = Listing(stats)
    async with running(roots, cache=cache) as engine:
        engine.subscribe(view)
        await until(lambda: engine.following)
        assert view.feed.rows == cold_rows([str(root) for root in roots], engine._now())
    assert view.listed_by_then is not None
    snapshots = sorted(
        {
            str(path.parent)
            for root in roots
            for path in root.glob("projects/*/*/workflows/wf_*.json")
        }
    )
    assert snapshots and sorted(set(view.listed_by_then) & set(snapshots)) == snapshots
    assert sorted(path for path in view.listed_by_then if path in snapshots) == snapshots
