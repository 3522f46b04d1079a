"""The headless watch: an engine's deltas turned into events, read from copies of real trees
with a fake process table for the owner and an injected clock."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import AsyncGenerator
from pathlib import Path

from tests.corpus import copy_tree
from wftop.core.engine.feed import Delta, RowFeed
from wftop.core.engine.link import EngineLost, Update
from wftop.core.engine.protocol import ProblemSeen
from wftop.core.index.coldpass import scan_roots
from wftop.core.notify.events import Event, Kind
from wftop.core.notify.watch import RowEvents, follow
from wftop.core.row import RunRow
from wftop.core.system.procs import FakeProcess, FakeProcessTable

T0 = 4_000_000_000.0
PID = 4242


def rows(roots: list[Path], table: FakeProcessTable, now: float) -> list[RunRow]:
    scanned = scan_roots([str(root) for root in roots], processes=table, now=lambda: now)
    return [RunRow.of(run) for run in scanned.runs]


def owned(root: Path) -> FakeProcessTable:
    """A live owner for the tree's only session."""
    journals = root.glob("projects/*/*/subagents/workflows/*/journal.jsonl")
    (session,) = {journal.parents[3].name for journal in journals}
    (root / "sessions").mkdir(exist_ok=True)
    entry = {"pid": PID, "sessionId": session, "procStart": "777"}
    (root / "sessions" / f"{PID}.json").write_text(json.dumps(entry))
    return FakeProcessTable({PID: FakeProcess("777")})


def settle(root: Path, moment: float) -> Path:
    import os

    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, (moment, moment))
    return root


def test_the_snapshot_tells_nothing_and_an_owners_death_is_told_once(tmp_path):
    live = settle(copy_tree("killed", tmp_path), T0)
    old = settle(copy_tree("killed-in-parallel", tmp_path), T0 - 3 * 3600)
    table = owned(live)
    feed, events = RowFeed(), RowEvents(started=T0 - 60)
    first = feed.snapshot(rows([live, old], table, T0 + 5), final=True)
    assert first is not None and len(first.added) == 2
    assert {row.status.value for row in first.added} == {"running", "dead"}
    assert events.take(first, T0 + 5) == []
    del table.processes[PID]  # the owner is killed: its registry file stays
    later = feed.change(rows([live, old], table, T0 + 10), [])
    assert later is not None
    (told,) = events.take(later, T0 + 10)
    assert (told.kind, told.before, told.after) == (Kind.DIED, "running", "dead")
    assert told.text == "mock-six (wf_c4e8dc39-03f) died with 1 worker in flight"
    assert told.at == T0 + 10
    assert feed.change(rows([live, old], table, T0 + 20), []) is None


def test_a_dead_run_removed_and_back_is_not_told_when_it_died_before_the_start(tmp_path):
    old = settle(copy_tree("killed", tmp_path), T0 - 3600)
    events = RowEvents(started=T0)
    (row,) = rows([old], FakeProcessTable(), T0)
    assert events.take(Delta(1, added=(row,)), T0) == []
    assert events.take(Delta(2, removed=(row.ident,)), T0 + 1) == []
    assert events.facts == {}
    assert events.take(Delta(3, added=(row,)), T0 + 2) == []


async def script(items: list[Update]) -> AsyncGenerator[Update, None]:
    for item in items:
        yield item
    await asyncio.Event().wait()  # an engine that says nothing more


async def test_follow_tells_events_says_losses_and_problems_and_stops_when_asked(tmp_path):
    live = settle(copy_tree("killed", tmp_path), T0)
    table = owned(live)
    (running,) = rows([live], table, T0 + 5)
    shutil.rmtree(live / "sessions")
    (dead,) = rows([live], FakeProcessTable(), T0 + 9)
    told: list[Event] = []
    said: list[str] = []
    stop = asyncio.Event()
    clock = iter([T0 + 5, T0 + 9, T0 + 11])
    updates = script(
        [
            Delta(1, added=(running,), complete=True),
            EngineLost("the engine (pid 7) was killed (SIGKILL)"),
            ProblemSeen("journal.jsonl:3: not JSON"),
            Delta(2, changed=(dead,), complete=True),
        ]
    )

    def tell(event: Event) -> None:
        told.append(event)
        stop.set()

    await asyncio.wait_for(
        follow(
            updates,
            RowEvents(T0 - 60),
            clock=lambda: next(clock),
            tell=tell,
            say=said.append,
            stop=stop,
        ),
        10,
    )
    assert [(event.kind, event.at) for event in told] == [(Kind.DIED, T0 + 9)]
    assert said == [
        "watching 1 run",
        "the engine (pid 7) was killed (SIGKILL); starting another engine",
        "journal.jsonl:3: not JSON",
    ]
