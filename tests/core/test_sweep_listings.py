"""The stat sweep lists a project folder again only when its stamp changed (or was too
fresh to trust), and still finds every session and run folder made or removed that the
watch did not report.

The index's clock is injected: "later" is a moment after the tree's own mtimes, read from
the tree, never the wall clock. Each test counts the folders listed (``os.scandir``)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import copy_tree
from wftop.core.index.listings import GRACE
from wftop.core.index.live import LiveIndex
from wftop.core.system.procs import FakeProcessTable

OLD_NS = 1_600_000_000 * 10**9
"""An mtime long before any moment of these tests (2020), set on the tree's folders."""


@pytest.fixture
def listed(monkeypatch: Any) -> list[str]:
    """Every folder listed with ``os.scandir`` from now on."""
    seen: list[str] = []
    real = os.scandir

    def counting(path: Any = ".") -> Any:
        seen.append(str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", counting)
    return seen


def aged(root: Path) -> None:
    """Every folder of the tree last changed at `OLD_NS`."""
    for folder, _names, _files in os.walk(root):
        os.utime(folder, ns=(OLD_NS, OLD_NS))


def index_of(root: Path, now: Callable[[], float]) -> LiveIndex:
    index = LiveIndex([str(root)], processes=FakeProcessTable(), now=now)
    index.cold_start()
    return index


def sweep(index: LiveIndex) -> list[str]:
    """One full sweep, its touches applied; the run ids of the runs it added."""
    seen = index.sweep_plan(full=True).observe()
    result = index.apply(index.sweep_touches(seen))
    return [run.run_id for run in result.added] if result is not None else []


def only_workflows(root: Path) -> Path:
    (workflows,) = root.glob("projects/*/*/subagents/workflows")
    return workflows


def above_runs(root: Path, listed: list[str]) -> list[Path]:
    """The folders listed above a session's run folders: ``projects/`` and its projects."""
    return [Path(path) for path in listed if Path(path).parent in (root, root / "projects")]


def test_a_second_sweep_over_unchanged_folders_lists_no_project_again(tmp_path, listed):
    root = copy_tree("killed", tmp_path)
    aged(root)
    index = index_of(root, lambda: OLD_NS / 1e9 + 3600)
    sweep(index)
    assert root / "projects" in above_runs(root, listed)
    listed.clear()
    sweep(index)
    assert above_runs(root, listed) == []
    assert [Path(path) for path in listed] == [only_workflows(root)]


def test_a_run_folder_made_after_a_kept_listing_is_found_by_the_next_sweep(tmp_path, listed):
    root = copy_tree("killed", tmp_path)
    aged(root)
    index = index_of(root, lambda: OLD_NS / 1e9 + 3600)
    sweep(index)
    workflows = only_workflows(root)
    (run,) = [path for path in workflows.iterdir() if path.name.startswith("wf_")]
    shutil.copytree(run, workflows / "wf_0000aaaa-aaa")
    listed.clear()
    added = sweep(index)
    assert added == ["wf_0000aaaa-aaa"]
    assert Path(listed[0]) == workflows  # the sweep's one listing; the rest read the run
    assert above_runs(root, listed) == []
    shutil.rmtree(workflows / "wf_0000aaaa-aaa")
    sweep(index)
    assert len(index.runs()) == 1


def test_a_listing_taken_too_soon_after_its_folder_changed_is_not_kept(tmp_path, listed):
    """An mtime as coarse as a second: a run folder made in the same tick as the listing
    leaves the folder's mtime as it was, and the next sweep lists it again all the same;
    once the clock is past the grace, a listing is kept."""
    root = copy_tree("killed", tmp_path)
    aged(root)
    clock = [OLD_NS / 1e9 + GRACE / 2]
    index = index_of(root, lambda: clock[0])
    sweep(index)
    workflows = only_workflows(root)
    (run,) = [path for path in workflows.iterdir() if path.name.startswith("wf_")]
    shutil.copytree(run, workflows / "wf_0000bbbb-bbb")
    os.utime(workflows, ns=(OLD_NS, OLD_NS))  # the same tick: the mtime did not move
    listed.clear()
    added = sweep(index)
    assert added == ["wf_0000bbbb-bbb"]
    assert Path(listed[0]) == root / "projects"
    clock[0] = OLD_NS / 1e9 + 3600
    sweep(index)
    listed.clear()
    sweep(index)
    assert above_runs(root, listed) == []


def test_a_session_made_in_a_kept_project_is_found_and_one_removed_goes(tmp_path, listed):
    root = copy_tree("killed", tmp_path)
    aged(root)
    clock = [OLD_NS / 1e9 + 3600]
    index = index_of(root, lambda: clock[0])
    sweep(index)
    session = only_workflows(root).parents[1]
    copy = session.parent / "0000aaaa-0000-4000-8000-000000000000"
    shutil.copytree(session, copy)
    listed.clear()
    assert len(sweep(index)) == 1
    assert session.parent in above_runs(root, listed)
    shutil.rmtree(copy)
    clock[0] = session.parent.stat().st_mtime + 3600  # the removal an hour ago
    sweep(index)
    assert [run.session_id for run in index.runs()] == [session.name]
    listed.clear()
    sweep(index)
    assert above_runs(root, listed) == []


@pytest.mark.parametrize("part", ["projects", ""], ids=["projects", "root"])
def test_a_sweep_after_projects_or_the_root_went_finds_their_runs_gone(tmp_path, part):
    """The sweep that follows a new watch is all a watch set up again has to go on: the
    events of the deletion went with the watch before it (its helper ended with them
    unsaid), so the sweep alone must find the runs gone."""
    root = copy_tree("killed", tmp_path)
    index = index_of(root, lambda: OLD_NS / 1e9 + 3600)
    assert len(index.runs()) == 1
    shutil.rmtree(root / part if part else root)
    sweep(index)
    assert index.runs() == []
