"""The supervisor that runs on watches the roots through the engine: a pass looks only at
the runs whose rows came or changed, whose wait ended, or that were waiting when something
they wait on moved; a run that appears on disk is considered without any poll of the roots."""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Callable, Collection

from tests.corpus import tree
from tests.supervise_kit import NIGHT, Night
from wftop.core.engine.link import open_link
from wftop.core.index.coldpass import scan_roots
from wftop.core.row import RunRow
from wftop.core.supervise.scope import Scope
from wftop.core.supervise.watch import Watch, watch

STORM, USAGE, STUBBORN = "wf_44b36b23-fcc", "wf_c4e8dc39-03f", "wf_6838482f-c9a"


def rows_of(night: Night) -> list[RunRow]:
    roots = [str(root) for root in night.roots.values()]
    return [RunRow.of(run) for run in scan_roots(roots, processes=night.table).runs]


def test_a_pass_looks_at_the_runs_in_scope_that_may_be_resumed(tmp_path):
    night = Night(tmp_path, scope=Scope(runs=(STORM, USAGE)))
    at = Watch(night.supervisor)
    state = night.store.read_state()
    rows = rows_of(night)
    at.seen(rows, state)
    assert at.take(NIGHT) == {STORM, USAGE}
    assert at.take(NIGHT) == set()
    at.seen([row for row in rows if row.run_id == STUBBORN], state)
    assert at.dirty == set()


def test_a_wait_brings_its_run_back_when_it_ends_and_only_then(tmp_path):
    night = Night(tmp_path)
    at = Watch(night.supervisor)
    night.supervisor.step({USAGE})
    at.passed()
    (until,) = [until for run, until in at.waits.items() if run == USAGE]
    assert until is not None and until > NIGHT
    assert at.take(until - 1) == set() and at.take(until) == {USAGE}
    assert at.next_due() == until


def test_marking_a_run_in_the_tui_brings_it_to_the_next_pass(tmp_path):
    night = Night(tmp_path, scope=Scope())
    at = Watch(night.supervisor, rows={row.ident: row for row in rows_of(night)})
    at.read_marks(night.store.read_state())
    assert at.take(NIGHT) == set()
    night.store.toggle(STORM, str(night.roots["storm"]))
    at.read_marks(night.store.read_state())
    assert at.take(NIGHT) == {STORM}


def test_a_pass_reads_only_the_runs_it_is_given(tmp_path):
    night = Night(tmp_path)
    assert [run.run_id for run in night.supervisor.step({USAGE})] == [USAGE]
    assert night.supervisor.step(set()) == []
    assert {run.run_id for run in night.supervisor.step()} == {STORM, USAGE, STUBBORN}


async def eventually(check: Callable[[], bool], what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"never: {what}"
        await asyncio.sleep(0.05)


async def test_a_run_that_appears_is_considered_when_the_engine_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("WFTOP_ENGINE", "pipe")
    night = Night(tmp_path)
    passes: list[Collection[str] | None] = []
    step = night.supervisor.step

    def counted(run_ids: Collection[str] | None = None):  # type: ignore[no-untyped-def]
        passes.append(None if run_ids is None else set(run_ids))
        return step(run_ids)

    night.supervisor.step = counted  # type: ignore[method-assign]
    roots = [str(root) for root in night.roots.values()]
    link = open_link(roots, cache=False, state=tmp_path / "engine-state")
    stopping = asyncio.Event()
    task = asyncio.ensure_future(
        watch(link, night.supervisor, stopping=stopping, clock=night.clock, recheck=3600.0)
    )

    def said(run: str) -> list[str]:
        return [line.decision for line in night.store.audit.read() if line.run == run]

    try:
        await eventually(lambda: all(said(run) for run in (STORM, USAGE, STUBBORN)), "a pass")
        assert passes == [{STORM, USAGE, STUBBORN}]
        crashed = "wf_cd4c7489-d27"
        source = tree("killed-in-parallel") / "projects"
        for project in source.iterdir():
            shutil.copytree(project, night.roots["storm"] / "projects" / project.name)
        await eventually(lambda: said(crashed) == ["considered", "refused"], "the new run")
        assert passes[-1] == {crashed}
        assert night.launcher.launches == []
    finally:
        stopping.set()
        await asyncio.wait_for(task, 30)
