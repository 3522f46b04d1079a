"""The engine in this process: the rows it tells every view equal a cold scan, a view that
joins late holds the same runs, and a change on disk reaches views as one change set holding
only what changed."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson

from tests.corpus import copy_tree, only_journal
from tests.memory_kit import held
from wftop.core.cost.tokens import NO_TOKENS
from wftop.core.engine import coldstart
from wftop.core.engine import engine as engine_module
from wftop.core.engine import protocol as wire
from wftop.core.engine.engine import Engine
from wftop.core.engine.feed import RowFeed
from wftop.core.engine.holding import held_of
from wftop.core.engine.serve import SocketServer, bind
from wftop.core.index.coldpass import scan_roots
from wftop.core.index.projects import project_key, project_names
from wftop.core.row import RunRow
from wftop.core.system.procs import FakeProcessTable
from wftop.core.text.redact import Redactor

WAIT = 20.0
TOP = Path(__file__).parents[2]


class View:
    """A subscriber that reads every message as a view would."""

    def __init__(self) -> None:
        self.messages: list[wire.Message] = []
        self.feed = RowFeed()

    def send(self, data: bytes) -> bool:
        for text in data.splitlines():
            message = wire.decode(text)
            self.messages.append(message)
            if isinstance(message, wire.Rows):
                self.feed.snapshot(message.rows, final=message.final)
            elif isinstance(message, wire.Changed):
                self.feed.change(message.rows, message.removed)
        return True

    def of(self, kind: type) -> list[Any]:
        return [message for message in self.messages if isinstance(message, kind)]


async def until(check: Callable[[], bool]) -> None:
    async def poll() -> None:
        while not check():
            await asyncio.sleep(0.005)

    await asyncio.wait_for(poll(), WAIT)


def cold_rows(roots: list[str], moment: float) -> dict[str, RunRow]:
    """The rows a cold scan makes, each project named as the listing names it."""
    scan = scan_roots(roots, processes=FakeProcessTable(), now=lambda: moment)
    rows = {run.ident: RunRow.of(run) for run in scan.runs}
    names = project_names((row.cwd, row.project) for row in rows.values())
    return {
        ident: replace(row, project_name=names[project_key(row.cwd, row.project)])
        for ident, row in rows.items()
    }


@asynccontextmanager
async def running(roots: list[Path], **options: Any) -> AsyncIterator[Engine]:
    moment = time.time()
    options = {"processes": FakeProcessTable(), "now": lambda: moment, **options}
    engine = Engine(
        [str(root) for root in roots],
        debounce_ms=20,
        step_ms=5,
        sweep_interval=3600.0,
        **options,
    )
    stop = asyncio.Event()
    task = asyncio.create_task(engine.run(stop))
    try:
        yield engine
    finally:
        stop.set()
        await asyncio.wait_for(task, WAIT)


async def test_views_early_and_late_hold_the_runs_a_cold_scan_finds(tmp_path):
    roots = [copy_tree(name, tmp_path) for name in ("killed", "clean", "mid-failure-resumed")]
    early = View()
    async with running(roots) as engine:
        engine.subscribe(early)
        await until(lambda: engine.following)
        late = View()
        engine.subscribe(late)
        expected = cold_rows([str(root) for root in roots], engine._now())
        for view in (early, late):
            assert isinstance(view.messages[0], wire.Hello)
            assert view.feed.complete and view.feed.rows == expected
        assert early.of(wire.Progress)[-1] == wire.Progress(3, 3)
        assert [rows.final for rows in late.of(wire.Rows)] == [True]
        assert engine.counts() == {"completed": 2, "dead": 1}
        (dead,) = [row for row in expected.values() if row.shown_status == "dead"]
        assert engine.needy() == [(dead.ident, dead.run_id, "dead", dead.last_activity)]
        # all three ran in a folder named proj: each is told apart by the folder above it
        assert sorted(row.project_name for row in early.feed.rows.values()) == [
            "clean/proj", "kill-resume/proj", "mid-failure-resume/proj",
        ]  # fmt: skip


async def test_a_project_that_comes_renames_the_runs_it_is_told_apart_from(tmp_path):
    roots = [copy_tree("killed", tmp_path)]
    view = View()
    async with running(roots) as engine:
        engine.subscribe(view)
        await until(lambda: engine.following)
        assert [row.project_name for row in view.feed.rows.values()] == ["proj"]
        before = len(view.of(wire.Changed))
        source = copy_tree("mid-failure", tmp_path / "later")  # another proj, under the root
        (project,) = source.glob("projects/*")
        shutil.copytree(project, roots[0] / "projects" / project.name)
        await until(lambda: len(view.feed.rows) == 2)
        await until(lambda: "proj" not in {r.project_name for r in view.feed.rows.values()})
        assert sorted(row.project_name for row in view.feed.rows.values()) == [
            "kill-resume/proj", "mid-failure-resume/proj",
        ]  # fmt: skip
        renamed = [row for change in view.of(wire.Changed)[before:] for row in change.rows]
        assert {row.project_name for row in renamed} >= {"kill-resume/proj"}


async def test_a_view_joining_during_the_first_rows_gets_them_all_once(tmp_path, monkeypatch):
    monkeypatch.setattr(coldstart, "CHUNK", 1)
    root = copy_tree("killed", tmp_path)
    source = only_journal(root).parent
    for number in range(5):
        shutil.copytree(source, source.with_name(f"wf_copy{number}-x"))
    first, joining = View(), View()
    async with running([root], cache=None) as engine:
        engine.subscribe(first)
        await until(lambda: 0 < engine.read < engine.total)
        engine.subscribe(joining)
        await until(lambda: engine.complete)
        for view in (first, joining):
            names = [row.ident for rows in view.of(wire.Rows) for row in rows.rows]
            assert len(names) == len(set(names)) == 6
            assert view.feed.complete


async def test_an_append_is_one_change_set_of_that_run_alone(tmp_path):
    roots = [copy_tree("killed", tmp_path), copy_tree("clean", tmp_path)]
    view = View()
    async with running(roots) as engine:
        engine.subscribe(view)
        await until(lambda: engine.following)
        before = len(view.of(wire.Changed))
        record = {"type": "started", "key": "v2:late", "agentId": "alate", "label": "late"}
        with only_journal(roots[0]).open("a") as journal:
            journal.write(json.dumps(record) + "\n")
        await until(lambda: len(view.of(wire.Changed)) > before)
        (change,) = view.of(wire.Changed)[before:]
        (row,) = change.rows
        assert row.in_flight == ("a5", "late") and change.removed == ()
        assert change.seq == engine.seq and view.feed.rows[row.ident] == row
        shutil.rmtree(only_journal(roots[1]).parent)  # its snapshot alone would be a run
        (snapshot,) = roots[1].glob("projects/*/*/workflows/wf_*.json")
        snapshot.unlink()
        await until(lambda: len(view.of(wire.Changed)) > before + 1)
        gone = view.of(wire.Changed)[-1]
        assert len(gone.removed) == 1
        # both ran in a folder named proj: alone now, the killed run is named by it again
        (renamed,) = gone.rows
        assert (renamed.ident, row.project_name, renamed.project_name) == (
            row.ident,
            "kill-resume/proj",
            "proj",
        )
        assert list(view.feed.rows) == [row.ident]


async def test_problems_reach_every_view_and_a_late_one_too(tmp_path):
    root = copy_tree("killed", tmp_path)
    bad = len(only_journal(root).read_bytes().splitlines()) + 1
    with only_journal(root).open("ab") as journal:
        journal.write(b"{not json\n")
    view = View()
    async with running([root], cache=None) as engine:
        engine.subscribe(view)
        await until(lambda: engine.following)
        late = View()
        engine.subscribe(late)
        for each in (view, late):
            (problem,) = each.of(wire.ProblemSeen)
            assert problem.text == f"{only_journal(root)}:{bad}: not valid JSON"
        (row,) = view.feed.rows.values()
        assert row.unreadable_lines == 1


SPAWNS = """
import asyncio, json, sys, threading
from wftop.core.engine import engine as engine_module
from wftop.core.engine.engine import Engine
from wftop.core.engine.holding import held_of
from wftop.core.engine.serve import SocketServer, bind
from wftop.core.index import fanout
from wftop.core.system.procs import FakeProcessTable
from wftop.core.text.redact import Redactor

threads = []
spawn = fanout._stream
def counted(*args):
    threads.append(threading.active_count())
    return spawn(*args)
fanout._stream = counted

class Last:
    def __init__(self, stop): self.stop, self.rows = stop, 0
    def send(self, data):
        for line in data.splitlines():
            if line.startswith(b'{"type":"rows"'):
                if b'"final":true' in line:  # it names again the runs the listing renamed
                    self.stop.set()
                else:
                    self.rows += len(json.loads(line)["rows"])
        return True

async def main():
    stop = asyncio.Event()
    engine = Engine(sys.argv[1:], processes=FakeProcessTable(), cache=None, workers=2)
    last = Last(stop)
    engine.subscribe(last)
    await engine.run(stop)
    print(threads, last.rows)

asyncio.run(main())
"""


def test_the_first_rows_are_read_by_forked_workers_before_any_thread_starts(tmp_path):
    roots = [copy_tree(name, tmp_path) for name in ("killed", "clean", "resumed", "mid-failure")]
    done = subprocess.run(
        [sys.executable, "-c", SPAWNS, *map(str, roots)],
        cwd=TOP,
        capture_output=True,
        text=True,
        check=True,
        timeout=WAIT,
    )
    assert done.stdout.split() == ["[1,", "1]", "4"], done.stderr  # each worker forked alone


async def test_a_large_first_read_sends_rows_first_and_what_they_spent_after(tmp_path):
    roots = [copy_tree(name, tmp_path) for name in ("killed", "clean", "mid-failure-resumed")]
    cache = tmp_path / "rows-cache"
    view = View()
    async with running(roots, cache=cache, lazy_spend=1) as engine:
        engine.subscribe(view)
        await until(lambda: engine.following)
        expected = cold_rows([str(root) for root in roots], engine._now())
        first = {row.ident: row for rows in view.of(wire.Rows) for row in rows.rows}
        assert set(first) == set(expected)
        assert all(row.cost_pending and row.cost_usd is None for row in first.values())
        unpriced = {
            ident: replace(row, cost_usd=None, tokens=NO_TOKENS, cost_pending=True)
            for ident, row in expected.items()
        }
        assert first == unpriced
        (filled,) = view.of(wire.Changed)
        assert {row.ident for row in filled.rows} == set(expected)
        assert view.feed.rows == expected
        assert sum(row.cost_usd or 0 for row in expected.values()) > 0
    # the rows filled in were kept: the next start reads no run, and spends nothing twice
    again = View()
    async with running(roots, cache=cache, lazy_spend=1) as engine:
        engine.subscribe(again)
        await until(lambda: engine.following)
        assert not again.of(wire.Changed)
        assert again.feed.rows == expected


def test_a_row_says_its_spend_is_to_come_only_when_it_is():
    pending = RunRow("wf_abcdef", "s", "p", cost_pending=True)
    assert b'"cost_pending"' not in orjson.dumps(replace(pending, cost_pending=False).json_fields())
    line = orjson.dumps(pending.json_fields())
    assert RunRow.from_json(orjson.loads(line)) == pending


def test_a_held_row_costs_about_its_line_in_memory():
    row = RunRow("wf_abcdef", "s", "p", name="n" * 200, calls=7)
    redactor = Redactor.for_json()
    held_of(row, redactor)  # what is made once (the redactor's tables) is not counted
    kept, grown = held(lambda: [held_of(row, redactor) for _ in range(100)])
    line = len(kept[0].line)
    assert grown / len(kept) < 2 * line + 512  # the line and its row, no slack behind them


class Reading(View):
    """A view that says how much it has left unread: a lot, until asked a few times."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = 0

    def backlog(self) -> int:
        self.asked += 1
        return 1 << 30 if self.asked % 3 else 0


async def test_the_rows_filled_in_go_out_a_batch_at_a_time_as_views_read(tmp_path, monkeypatch):
    monkeypatch.setattr(engine_module, "FILL_BATCH", 1)
    roots = [copy_tree(name, tmp_path) for name in ("killed", "clean", "mid-failure-resumed")]
    view = Reading()
    async with running(roots, lazy_spend=1) as engine:
        engine.subscribe(view)
        await until(lambda: engine.following)
        filled = view.of(wire.Changed)
        assert [len(change.rows) for change in filled] == [1, 1, 1]
        assert view.asked >= 9  # before each next batch it waited until the view had read
        assert view.feed.rows == cold_rows([str(root) for root in roots], engine._now())


class Behind(View):
    """A view with bytes left unread the first three times it is asked, that notes whether
    the engine had sent its final first rows and not yet read its live index then."""

    def __init__(self) -> None:
        super().__init__()
        self.engine: Engine | None = None
        self.between: list[int] = []

    def backlog(self) -> int:
        engine = self.engine
        if engine is not None and engine.complete and engine.index is None:
            self.between.append(len(self.between))
        return 1 if len(self.between) < 3 else 0


async def test_the_views_read_every_first_row_before_the_live_index_is_read(tmp_path):
    """What the engine does after its final first rows (compacting them, reading its live
    index) waits until each view has read them all: a socket's worth of them goes out at
    each turn of its loop, and those turns are few then (at 20,000 runs a view read its
    last rows 2-2.5 s after the engine sent them; 0.6-1.3 s now)."""
    root = copy_tree("killed", tmp_path)
    view = Behind()
    async with running([root]) as engine:
        view.engine = engine
        engine.subscribe(view)  # before the engine's first turn: it is sent every row
        await until(lambda: engine.following)
    assert view.between == [0, 1, 2]  # asked until it had read all, the index not read yet
    assert view.feed.complete


async def test_a_new_engine_waits_for_its_first_view_longer_than_its_linger(
    tmp_path, short_state_dir
):
    root = copy_tree("killed", tmp_path)
    engine = Engine([str(root)], processes=FakeProcessTable(), cache=None)
    server = SocketServer(engine, linger=0.01)
    serving = asyncio.create_task(server.serve(bind(str(short_state_dir / "engine.sock"))))
    await asyncio.sleep(0.3)  # its first view comes later than its linger
    assert not serving.done()
    server.stop.set()
    assert await asyncio.wait_for(serving, WAIT) == 0


async def test_a_shared_engine_walks_the_roots_with_no_view_and_waits_for_one_to_follow(tmp_path):
    """The walk after the kept rows goes on in a forked child while the loop answers views,
    so a shared engine no longer waits for its first view to walk (a view that never came
    held the walk up to 5 s); it waits before it reads its live index, whose read took a CPU
    from the start of the view on its way (0.3-0.4 s of CPU at 20,000 runs)."""
    root = copy_tree("killed", tmp_path)
    cache = tmp_path / "rows-cache"
    async with running([root], cache=cache) as engine:  # the start before keeps their rows
        engine.subscribe(View())
        await until(lambda: engine.following)
    view = View()
    async with running([root], cache=cache, first_view=WAIT) as engine:  # as a shared one's
        await until(lambda: engine.complete)  # walked, no view joined
        assert engine.kept and engine.subscribers == 0 and not engine.following
        engine.subscribe(view)
        await until(lambda: engine.following)
    assert not view.of(wire.Kept)  # it joined once every first row was out
    assert view.feed.complete and len(view.feed.rows) == 1


async def test_a_shared_engine_waiting_for_its_first_view_ends_when_told_to(tmp_path):
    root = copy_tree("killed", tmp_path)
    cache = tmp_path / "rows-cache"
    async with running([root], cache=cache) as engine:  # the start before keeps their rows
        engine.subscribe(View())
        await until(lambda: engine.following)
    engine = Engine([str(root)], processes=FakeProcessTable(), cache=cache, first_view=3600.0)
    stop = asyncio.Event()
    task = asyncio.create_task(engine.run(stop))
    await until(lambda: engine.kept)
    stop.set()  # no view came: it ends all the same, not an hour later
    await asyncio.wait_for(task, WAIT)
    assert not engine.following
