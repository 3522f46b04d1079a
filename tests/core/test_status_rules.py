"""Owner liveness, stall window, superseded copies and linked run folders."""

from __future__ import annotations

import json
import os
import shutil

from tests.corpus import copy_tree, only_journal
from wftop.core.index.coldpass import scan_roots
from wftop.core.read.sessions import Liveness
from wftop.core.row import RunRow
from wftop.core.system.procs import FakeProcess, FakeProcessTable

SESSION = "e5c99c64-96da-45a1-841d-2b381f965487"


def register(root, pid, proc_start, session=SESSION, domain=None):
    folder = root / "sessions"
    folder.mkdir(exist_ok=True)
    entry = {"pid": pid, "sessionId": session, "procStart": proc_start, "cwd": "/x"}
    if domain:
        entry["pidDomain"] = domain
    (folder / f"{pid}.json").write_text(json.dumps(entry))


def scan_one(root, processes, now, stall=600.0):
    (run,) = scan_roots([str(root)], processes=processes, now=lambda: now, stall_window=stall).runs
    return run


def test_live_owner_with_recent_growth_is_running(tmp_path):
    root = copy_tree("killed", tmp_path)
    register(root, 4242, "777")
    table = FakeProcessTable({4242: FakeProcess("777")})
    journal_time = os.stat(only_journal(root)).st_mtime
    run = scan_one(root, table, now=journal_time + 5)
    assert run.status.value == "running"
    assert run.owner.liveness is Liveness.ALIVE
    assert run.dead_workers == []
    assert [call.label for call in run.in_flight_calls] == ["a5"]


def test_live_owner_quiet_past_the_stall_window_is_stalled(tmp_path):
    root = copy_tree("killed", tmp_path)
    register(root, 4242, "777")
    table = FakeProcessTable({4242: FakeProcess("777")})
    newest = max(os.stat(p).st_mtime for p in root.rglob("*.jsonl"))
    assert scan_one(root, table, now=newest + 601).status.value == "stalled"
    assert scan_one(root, table, now=newest + 599).status.value == "running"


def test_registry_file_left_by_sigkill_is_not_an_owner(tmp_path):
    root = copy_tree("killed", tmp_path)
    register(root, 4242, "777")
    recycled = FakeProcessTable({4242: FakeProcess("999")})
    run = scan_one(root, recycled, now=0)
    assert run.owner.liveness is Liveness.DEAD
    assert run.status.value == "dead"
    assert scan_one(root, FakeProcessTable(), now=0).status.value == "dead"


def test_registry_from_another_machine_counts_as_maybe_alive(tmp_path):
    root = copy_tree("killed", tmp_path)
    register(root, 4242, "777", domain="linux:othermachine:pid:[1]")
    run = scan_one(root, FakeProcessTable(), now=4e9)
    assert run.owner.liveness is Liveness.UNKNOWN  # also where the local domain has no name
    assert run.status.value == "stalled"


def test_run_copied_into_another_session_and_continued_is_superseded(tmp_path):
    root = copy_tree("killed", tmp_path)
    source = only_journal(root)
    run_dir = source.parent
    other = run_dir.parents[3] / "11111111-2222-4333-8444-555555555555"
    target = other / "subagents" / "workflows" / run_dir.name
    target.mkdir(parents=True)
    lines = source.read_bytes()
    (target / "journal.jsonl").write_bytes(
        lines + b'{"type":"result","key":"k","agentId":"a1234567890abcdef","result":1}\n'
    )
    runs = {
        run.session_id: run for run in scan_roots([str(root)], processes=FakeProcessTable()).runs
    }
    assert runs[SESSION].status.value == "superseded"
    assert runs[SESSION].superseded_by == other.name
    assert runs[other.name].status.value == "dead"
    assert RunRow.of(runs[SESSION]).to_json()["in_flight"] == []


def test_linked_run_folder_is_reported_once(tmp_path):
    root = copy_tree("killed", tmp_path)
    run_dir = only_journal(root).parent
    adopter = (
        run_dir.parents[3] / "99999999-2222-4333-8444-555555555555" / "subagents" / "workflows"
    )
    adopter.mkdir(parents=True)
    os.symlink(run_dir, adopter / run_dir.name)
    runs = scan_roots([str(root)], processes=FakeProcessTable()).runs
    assert [run.session_id for run in runs] == [SESSION]


def test_linked_run_folder_outside_the_root_is_followed(tmp_path):
    root = copy_tree("killed", tmp_path)
    run_dir = only_journal(root).parent
    elsewhere = tmp_path / "elsewhere"
    shutil.move(str(run_dir), elsewhere)
    os.symlink(elsewhere, run_dir)
    (run,) = scan_roots([str(root)], processes=FakeProcessTable()).runs
    assert run.fold.started_lines == 5
