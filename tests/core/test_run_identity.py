"""One identity per run: the same run under two roots (a backup, a second config dir) is two
runs in the cold pass, the live index and its change sets, and supersession stays in a root."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from tests.core.test_index import append, follow, started
from tests.corpus import copy_tree, only_journal
from wftop.core.index.coldpass import scan_roots
from wftop.core.index.live import LiveIndex
from wftop.core.read.runfolder import run_ident
from wftop.core.resume.plan import make_plan
from wftop.core.row import RunRow
from wftop.core.system.procs import FakeProcessTable


def _backup(root: Path) -> Path:
    copy = root.parent / f"{root.name}-backup"
    shutil.copytree(root, copy, symlinks=True)
    return copy


def test_one_run_under_two_roots_is_two_runs(tmp_path):
    first = copy_tree("killed", tmp_path)
    backup = _backup(first)
    roots = [str(first), str(backup)]
    index = LiveIndex(roots, processes=FakeProcessTable())
    cold = index.cold_start()
    scanned = scan_roots(roots, processes=FakeProcessTable()).runs
    assert len(cold.added) == len(scanned) == 2
    by_root = {run.folder.root: run for run in cold.added}
    assert set(by_root) == set(roots)
    for root, run in by_root.items():
        assert run.ident == run_ident(root, run.session_id, run.run_id)
        assert index.get(run.ident) is run
    assert len({run.run_id for run in cold.added}) == 1


async def test_a_change_under_one_root_changes_only_its_run(tmp_path):
    first = copy_tree("clean", tmp_path)
    (snapshot,) = first.glob("projects/*/*/workflows/wf_*.json")
    aside = tmp_path / "snapshot.json"
    snapshot.rename(aside)
    backup = _backup(first)
    async with follow([first, backup]) as live:
        runs = {run.folder.root: run for run in live.cold.added}
        assert [run.status.value for run in runs.values()] == ["dead", "dead"]
        shutil.copyfile(aside, backup / snapshot.relative_to(first))
        await live.settled()
        assert live.changed_idents() == {runs[str(backup)].ident}
        assert live.index.get(runs[str(backup)].ident).status.value == "completed"
        assert live.index.get(runs[str(first)].ident).status.value == "dead"
        append(only_journal(first), started("k9", "x9"))
        await live.settled()
        assert RunRow.of(live.index.get(runs[str(first)].ident)).in_flight == ("x9",)
        assert RunRow.of(live.index.get(runs[str(backup)].ident)).in_flight == ()


def test_a_run_is_superseded_only_by_a_session_of_its_own_root(tmp_path):
    moved = "5e55c0de-96da-45a1-841d-2b381f965487"
    live_root, backup = tmp_path / "claude", tmp_path / "backup"
    for name, into in (("resumed", live_root), ("killed", live_root), ("killed", backup)):
        source = copy_tree(name, tmp_path / f"{name}-{into.name}") / "projects"
        (project,) = source.iterdir()
        (session,) = [entry for entry in project.iterdir() if entry.is_dir()]
        target = into / "projects" / project.name
        target.mkdir(parents=True, exist_ok=True)
        sid = moved if name == "killed" else session.name
        shutil.copytree(session, target / sid)
        shutil.copy2(project / f"{session.name}.jsonl", target / f"{sid}.jsonl")
    roots = [str(live_root), str(backup)]
    for runs in (
        scan_roots(roots, processes=FakeProcessTable()).runs,
        LiveIndex(roots, processes=FakeProcessTable()).cold_start().added,
    ):
        killed = {run.folder.root: run for run in runs if run.session_id == moved}
        assert killed[str(live_root)].status.value == "superseded"
        assert killed[str(backup)].status.value == "dead"
        assert killed[str(backup)].superseded_by is None


def test_the_plan_of_a_backup_copy_resumes_under_the_backup(tmp_path):
    first = copy_tree("killed", tmp_path)
    backup = _backup(first)
    runs = scan_roots([str(first), str(backup)], processes=FakeProcessTable()).runs
    run = next(run for run in runs if run.folder.root == str(backup))
    plan = make_plan(
        run,
        processes=FakeProcessTable(),
        now=run.last_activity or 0.0,
        claude_bin=sys.executable,
        cli_version=(2, 1, 332),
        environ={},
    )
    shown = plan.to_json()
    assert shown["root"] == str(backup)
    assert shown["env"] == {"CLAUDE_CONFIG_DIR": str(backup)}
    assert plan.session_dir.startswith(str(backup) + os.sep)


async def test_a_run_gone_from_one_root_is_removed_by_its_own_identity(tmp_path):
    first = copy_tree("killed", tmp_path)
    backup = _backup(first)
    async with follow([first, backup]) as live:
        runs = {run.folder.root: run for run in live.cold.added}
        shutil.rmtree(only_journal(backup).parents[3])  # the backup's session folder
        await live.until(lambda: len(live.index.runs()) == 1)
        removed = [ident for change in live.sets for ident in change.removed]
        assert removed == [runs[str(backup)].ident]
        assert removed[0].endswith("@" + str(backup))
        assert live.index.get(runs[str(first)].ident) is not None
