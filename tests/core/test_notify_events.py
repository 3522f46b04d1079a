"""Which changes of a run are worth telling, read from copies of real trees.

Each run is read as the engine reads it (`RunRow.of`), with a fake process table for its
owner and a fixed clock; the tracker gets the row before and after a change.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.corpus import copy_tree, only_journal, tree
from wftop.core.index.coldpass import scan_roots
from wftop.core.model import Status
from wftop.core.notify.events import Event, Facts, Kind, Tracker
from wftop.core.row import RunRow
from wftop.core.system.procs import FakeProcess, FakeProcessTable

T0 = 4_000_000_000.0
"""When the copied trees were last written."""
PID = 4242


def settle(root: Path, moment: float = T0) -> Path:
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, (moment, moment))
    return root


def own(root: Path) -> FakeProcessTable:
    """A live owner for the tree's only session."""
    (session,) = {
        journal.parents[3].name
        for journal in root.glob("projects/*/*/subagents/workflows/*/journal.jsonl")
    }
    (root / "sessions").mkdir(exist_ok=True)
    entry = {"pid": PID, "sessionId": session, "procStart": "777"}
    (root / "sessions" / f"{PID}.json").write_text(json.dumps(entry))
    return FakeProcessTable({PID: FakeProcess("777")})


def facts(root: Path, *, table: FakeProcessTable | None = None, now: float = T0 + 5) -> Facts:
    (run,) = scan_roots([str(root)], processes=table or FakeProcessTable(), now=lambda: now).runs
    return Facts.of_row(RunRow.of(run))


def gone(root: Path) -> None:
    shutil.rmtree(root / "sessions")


def live(root: Path, now: float = T0 + 5) -> Facts:
    """The run as it read while its owner ran, before its snapshot was written."""
    (snapshot,) = root.glob("projects/*/*/workflows/wf_*.json")
    held = snapshot.read_bytes()
    snapshot.unlink()
    try:
        return facts(root, table=own(root), now=now)
    finally:
        gone(root)
        snapshot.write_bytes(held)
        os.utime(snapshot, (now - 5, now - 5))


def test_a_running_run_whose_owner_dies_is_told_with_its_workers_in_flight(tmp_path):
    root = settle(copy_tree("killed", tmp_path))
    running = facts(root, table=own(root))
    gone(root)
    dead = facts(root)
    assert (running.status, dead.status) == ("running", "dead")
    event = Tracker(started=T0 - 60).observe(running, dead, T0 + 5)
    assert isinstance(event, Event)
    assert event.kind is Kind.DIED
    assert event.text == "mock-six (wf_c4e8dc39-03f) died with 1 worker in flight"
    assert (event.title, event.severity, event.before, event.after) == (
        "Run died",
        "error",
        "running",
        "dead",
    )
    assert event.key == f"died|{dead.ident}|dead@2096-10-02T07:06:40.000Z"


def test_a_run_quiet_past_the_stall_window_is_told_once_it_stalls(tmp_path):
    root = settle(copy_tree("killed", tmp_path))
    table = own(root)
    running = facts(root, table=table, now=T0 + 5)
    stalled = facts(root, table=table, now=T0 + 700)
    assert stalled.status == "stalled"
    event = Tracker(started=T0 - 60).observe(running, stalled, T0 + 700)
    assert event is not None and event.kind is Kind.STALLED
    assert event.text == "mock-six (wf_c4e8dc39-03f) stalled: no growth in the stall window"
    assert Tracker(started=T0 - 60).observe(stalled, stalled, T0 + 800) is None


def test_a_run_already_dead_when_wftop_started_is_never_told(tmp_path):
    dead = facts(settle(copy_tree("killed", tmp_path)))
    assert Tracker(started=T0 + 1).observe(None, dead, T0 + 2) is None
    appeared = Tracker(started=T0 - 1).observe(None, dead, T0 + 2)
    assert appeared is not None and appeared.kind is Kind.DIED


def test_a_completed_run_that_turns_dead_is_told(tmp_path):
    root = settle(copy_tree("resumed", tmp_path))
    completed = facts(root)
    journal = only_journal(root)
    started = {"type": "started", "key": "v2:ff", "agentId": "a99", "label": "a7", "phase": "Again"}
    with journal.open("a") as handle:
        handle.write(json.dumps(started) + "\n")
    os.utime(journal, (T0 + 30, T0 + 30))
    dead = facts(root, now=T0 + 40)
    assert (completed.shown, dead.shown) == ("completed", "dead")
    event = Tracker(started=T0 - 60).observe(completed, dead, T0 + 40)
    assert event is not None and event.kind is Kind.DIED
    assert event.before == "completed"


def test_a_dead_run_resumed_to_the_end_is_a_resume_with_what_it_spent(tmp_path):
    root = settle(copy_tree("killed", tmp_path))
    dead = facts(root)
    shutil.copytree(tree("resumed"), root, dirs_exist_ok=True)
    settle(root, T0 + 100)
    running = live(root, now=T0 + 105)
    completed = facts(root, now=T0 + 200)
    assert (dead.shown, completed.shown) == ("dead", "completed")
    assert dead.cost_usd is not None and completed.cost_usd is not None
    tracker = Tracker(started=T0 - 60)
    assert tracker.observe(dead, running, T0 + 105) is None
    event = tracker.observe(running, completed, T0 + 200)
    assert event is not None and event.kind is Kind.RESUME
    assert event.cost_usd == pytest.approx(completed.cost_usd - dead.cost_usd)
    assert event.text == "mock-six (wf_c4e8dc39-03f) resume ended: completed · spent $0.0009"
    assert event.severity == "information"
    # seen dead, then ended (the running moment missed): a resume too
    direct = Tracker(started=T0 - 60).observe(dead, completed, T0 + 200)
    assert direct is not None and direct.kind is Kind.RESUME


def test_a_run_that_ends_partial_then_is_resumed(tmp_path):
    root = settle(copy_tree("mid-failure", tmp_path))
    partial = facts(root)
    running = live(root)
    settle(root, T0)
    assert (running.shown, partial.shown) == ("running", "partial")
    event = Tracker(started=T0 - 60).observe(running, partial, T0 + 5)
    assert event is not None and event.kind is Kind.PARTIAL
    assert event.text == "mock-six (wf_6838482f-c9a) ended partial: 1 call failed"
    shutil.copytree(tree("mid-failure-resumed"), root, dirs_exist_ok=True)
    completed = facts(settle(root, T0 + 100), now=T0 + 105)
    resumed = Tracker(started=T0 - 60).observe(partial, completed, T0 + 105)
    assert resumed is not None and resumed.kind is Kind.RESUME


def test_a_run_continued_in_another_session_ends_as_that_resume(tmp_path):
    root = str(tmp_path)
    old = Facts("s1/wf_x@" + root, "wf_x", root, "s1", "six", "dead", "dead", 1, 0, T0, 0.5)
    moved = Facts(
        old.ident, "wf_x", root, "s1", "six", "superseded", "superseded", 0, 0, T0, 0.5, "s2"
    )
    new_running = Facts(
        "s2/wf_x@" + root, "wf_x", root, "s2", "six", "running", "running", 0, 0, T0 + 5, 0.1
    )
    new_done = Facts(
        new_running.ident, "wf_x", root, "s2", "six", "completed", "completed", 0, 0, T0 + 9, 0.3
    )
    tracker = Tracker(started=T0 - 60)
    assert tracker.observe(old, moved, T0 + 5) is None
    assert tracker.observe(None, new_running, T0 + 5) is None
    event = tracker.observe(new_running, new_done, T0 + 9)
    assert event is not None and event.kind is Kind.RESUME
    assert event.cost_usd == pytest.approx(0.3)


def test_a_plain_completion_is_an_event_of_its_own_kind(tmp_path):
    root = settle(copy_tree("clean", tmp_path))
    completed = facts(root)
    running = Facts(**{**_fields(completed), "status": "running", "shown": "running"})
    event = Tracker(started=T0 - 60).observe(running, completed, T0 + 5)
    assert event is not None and event.kind is Kind.COMPLETED
    assert event.to_json()["event"] == "completed"


def _fields(item: Facts) -> dict[str, object]:
    return {name: getattr(item, name) for name in Facts.__slots__}


def test_the_facts_of_the_tuis_runs_match_the_rows(tmp_path):
    root = settle(copy_tree("killed", tmp_path))
    (run,) = scan_roots([str(root)], processes=FakeProcessTable(), now=lambda: T0 + 5).runs
    from_run, from_row = Facts.of_run(run), Facts.of_row(RunRow.of(run))
    assert from_run.status == Status.DEAD.value
    assert {**_fields(from_run), "cost_usd": None, "last_activity": None} == {
        **_fields(from_row),
        "cost_usd": None,
        "last_activity": None,
    }
    assert from_run.last_activity == pytest.approx(from_row.last_activity, abs=0.001)
