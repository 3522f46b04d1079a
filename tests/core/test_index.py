"""The live index follows the disk: after every kind of change it equals a fresh cold scan.

Each test changes a private copy of a real corpus tree while the index watches it,
waits (bounded) for the index to catch up, and compares every run's ``ls --json``
shape with ``wftop.core.index.coldpass.scan_roots`` over the same tree: the runs an index
handed out (its cold start, then its change sets), as a view holds them. Every test that
follows runs three times: with every run kept whole, with settled runs held by their rows
(``hold_settled``, as the engine's index holds them), and with those held from the start by
rows made before it, never read by the index (``seeded``, as the engine's index starts).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.core import test_seeded_index as seeded
from tests.corpus import copy_tree, only_journal
from wftop.core.index.changeset import ChangeSet
from wftop.core.index.coldpass import newest_first, scan_roots
from wftop.core.index.held import HOT_SECONDS
from wftop.core.index.live import LiveIndex
from wftop.core.index.reader import RunReader
from wftop.core.read.discovery import run_folders_of
from wftop.core.row import RunRow
from wftop.core.system.procs import FakeProcess, FakeProcessTable

WAIT = 20.0
"""Upper bound for any wait in these tests (seconds); they normally take milliseconds."""

SESSION = "e5c99c64-96da-45a1-841d-2b381f965487"
"""The session of the ``killed`` tree."""


def rows(runs: list[Any]) -> list[dict[str, Any]]:
    return [RunRow.of(run).to_json() for run in runs]


@pytest.fixture(autouse=True, params=[False, True, "seeded"], ids=["whole", "held", "seeded"])
def hold_settled(request: Any, monkeypatch: Any) -> bool:
    """Followers' indexes hold settled runs by their rows (from the start: seeded), or keep
    every run whole."""
    monkeypatch.setattr(Follower, "hold", request.param)
    return bool(request.param)


class Follower:
    """Runs an index's ``changes()`` in a task and keeps every change set it yields."""

    hold: bool | str = False
    """Settled runs are held by their rows (`LiveIndex`'s ``hold_settled``); ``"seeded"``:
    from the start, by rows made before the index started (`seeds_of`)."""

    def __init__(self, root: Path | list[Path], now: Callable[[], float], **options: Any) -> None:
        self.roots = [str(path) for path in (root if isinstance(root, list) else [root])]
        self.now = now
        self.processes = options.pop("processes", FakeProcessTable())
        options.setdefault("sweep_interval", 3600.0)
        options.setdefault("hold_settled", bool(self.hold))
        self.index = LiveIndex(
            self.roots, processes=self.processes, now=now, debounce_ms=20, step_ms=5, **options
        )
        seeds, made = {}, {}
        if self.hold == "seeded" and self.index.hold_settled:
            seeds, made = seeded.seeds_of(self.roots, self.processes, now)
        self.cold = self.index.cold_start(seeds=seeds)
        self.held = seeded.handed(made, self.cold.added)
        self.sets: list[ChangeSet] = []
        self.gone: dict[str, Any] = {}
        self.stop = asyncio.Event()
        self.task = asyncio.create_task(self._follow())

    async def _follow(self) -> None:
        async with contextlib.aclosing(self.index.changes(self.stop)) as stream:
            async for change in stream:
                self.sets.append(change)
                self.held.update((run.ident, run) for run in (*change.added, *change.changed))
                for ident in change.removed:
                    self.gone[ident] = self.held.pop(ident, None)
                for ident in change.revived:  # back as it went: held again as it was
                    self.held[ident] = self.gone.pop(ident)

    def runs(self) -> list[Any]:
        """The runs as the change sets left them, as a view holds them."""
        return newest_first(self.held.values())

    def cold_rows(self) -> list[dict[str, Any]]:
        scan = scan_roots(self.roots, processes=self.processes, now=self.now)
        return rows(scan.runs)

    async def until(self, predicate: Callable[[], bool]) -> None:
        """Wait (bounded) until the predicate holds; it is checked every few milliseconds."""

        async def poll() -> None:
            while not predicate():
                await asyncio.sleep(0.005)

        await asyncio.wait_for(poll(), WAIT)

    async def watching(self) -> None:
        """Wait until the watch is up and the first sweep has caught up."""
        await self.until(lambda: self.index.sweeps >= 1)

    async def settled(self) -> None:
        """Wait until the index equals a fresh cold scan of the tree."""
        await self.until(lambda: rows(self.runs()) == self.cold_rows())

    def changed_idents(self) -> set[str]:
        return {run.ident for change in self.sets for run in change.changed}

    async def close(self) -> None:
        self.stop.set()
        await asyncio.wait_for(self.task, WAIT)


@contextlib.asynccontextmanager
async def follow(root: Path | list[Path], **options: Any) -> AsyncIterator[Follower]:
    moment = options.pop("moment", time.time())
    follower = Follower(root, options.pop("now", lambda: moment), **options)
    try:
        await follower.watching()
        yield follower
    finally:
        await follower.close()


def append(path: Path, *lines: dict[str, Any] | bytes) -> None:
    with open(path, "ab") as handle:
        for line in lines:
            handle.write(line if isinstance(line, bytes) else json.dumps(line).encode() + b"\n")


def started(key: str, label: str) -> dict[str, Any]:
    return {"type": "started", "key": key, "agentId": f"a{key}", "label": label}


async def test_cold_start_reports_progress_and_adds_every_run(tmp_path):
    root = copy_tree("killed", tmp_path)
    shutil.copytree(
        copy_tree("clean", tmp_path / "c") / "projects", root / "projects", dirs_exist_ok=True
    )
    seen: list[tuple[int, int]] = []
    index = LiveIndex([str(root)], processes=FakeProcessTable())
    first = index.cold_start(progress=lambda done, total: seen.append((done, total)))
    assert first.seq == 1
    assert len(first.added) == 2 and first.changed == () and first.removed == ()
    assert seen[0] == (0, 2) and seen[-1] == (2, 2)
    assert [run.ident for run in index.runs()] == [run.ident for run in first.added]
    assert index.get(first.added[0].ident) is first.added[0]
    assert index.get("nope/wf_nope") is None


def test_a_settled_run_is_held_by_its_row_and_read_again_when_asked(tmp_path):
    root = copy_tree("killed", tmp_path)
    shutil.copytree(
        copy_tree("clean", tmp_path / "c") / "projects", root / "projects", dirs_exist_ok=True
    )
    (root / "sessions").mkdir()
    registry = root / "sessions" / "4242.json"
    registry.write_text(json.dumps({"pid": 4242, "sessionId": SESSION, "procStart": "777"}))
    table = FakeProcessTable({4242: FakeProcess("777")})
    newest = max(path.stat().st_mtime for path in root.glob("projects/**/*") if path.is_file())
    for moment, held in ((newest + 5, False), (newest + HOT_SECONDS + 5, True)):
        index = LiveIndex(
            [str(root)],
            processes=table,
            now=lambda moment=moment: moment,
            stall_window=10 * HOT_SECONDS,
            hold_settled=True,
        )
        handed = {run.ident: run for run in index.cold_start().added}
        kept = {run.ident: run for run in index.runs()}
        assert {run.status.value for run in handed.values()} == {"running", "completed"}
        for ident, run in handed.items():
            assert run.fold.calls  # what was handed out is whole
            assert rows([index.get(ident)]) == rows([run])  # read again when asked
            # the running run is kept whole, and a completed one active a moment ago; one
            # that ended longer ago by its row's facts alone
            whole = run.status.value == "running" or not held
            assert bool(kept[ident].fold.calls) == whole
            assert kept[ident].status == run.status


def test_what_the_cold_start_built_is_out_of_the_collectors_sight(tmp_path):
    gc.unfreeze()
    try:
        index = LiveIndex([str(copy_tree("killed", tmp_path))], processes=FakeProcessTable())
        (run,) = index.cold_start().added
        assert gc.get_freeze_count() > 0 and gc.isenabled()
        assert not any(referent is run for referent in gc.get_objects())
    finally:
        gc.unfreeze()


async def test_append_updates_the_run(tmp_path):
    root = copy_tree("killed", tmp_path)
    async with follow(root) as live:
        ident = live.cold.added[0].ident
        append(only_journal(root), started("k1", "x1"))
        await live.settled()
        assert RunRow.of(live.index.get(ident)).to_json()["in_flight"] == ["a5", "x1"]
        assert ident in live.changed_idents()
        assert [change.seq for change in live.sets] == list(range(2, 2 + len(live.sets)))


async def test_a_run_handed_out_keeps_its_calls_while_the_index_reads_on(tmp_path):
    root = copy_tree("killed", tmp_path)
    async with follow(root) as live:
        before = live.runs()[0]  # as a view holds it (a seeded run: its seed's)
        calls = {key: (call.state, call.attempts) for key, call in before.fold.calls.items()}
        counts = (before.fold.started_lines, before.fold.result_lines, len(before.fold.open_keys))
        (key,) = [key for key, call in before.fold.calls.items() if call.state == "in_flight"]
        append(only_journal(root), started("k1", "x1"), {"type": "result", "key": key})
        append(only_journal(root), started(key, "again"))
        await live.settled()
        after = live.index.get(before.ident)
        assert after.fold.started_lines == counts[0] + 2 and "k1" in after.fold.calls
        assert after.fold.calls[key].attempts == calls[key][1] + 1
        assert {k: (c.state, c.attempts) for k, c in before.fold.calls.items()} == calls
        assert (
            before.fold.started_lines,
            before.fold.result_lines,
            len(before.fold.open_keys),
        ) == counts


async def test_torn_line_counts_only_once_completed(tmp_path):
    root = copy_tree("killed", tmp_path)
    journal = only_journal(root)
    async with follow(root) as live:
        ident = live.cold.added[0].ident
        line = json.dumps(started("k2", "torn")).encode()
        append(journal, line[:20])
        await live.until(lambda: live.index.get(ident).journal_size == journal.stat().st_size)
        await live.settled()
        assert RunRow.of(live.index.get(ident)).to_json()["started"] == 5
        append(journal, line[20:] + b"\n")
        await live.settled()
        assert RunRow.of(live.index.get(ident)).to_json()["started"] == 6
        assert RunRow.of(live.index.get(ident)).to_json()["unreadable_lines"] == 0


async def test_new_run_folder_is_added(tmp_path):
    root = copy_tree("killed", tmp_path)
    other = only_journal(copy_tree("clean", tmp_path / "src")).parent
    async with follow(root) as live:
        workflows = only_journal(root).parent.parent
        shutil.copytree(other, workflows / other.name)
        await live.settled()
        added = {run.run_id for change in live.sets for run in change.added}
        assert added == {other.name}
        assert len(live.runs()) == 2


async def test_snapshot_written_at_the_end_completes_the_run(tmp_path):
    root = copy_tree("clean", tmp_path)
    (snapshot,) = root.glob("projects/*/*/workflows/wf_*.json")
    aside = tmp_path / "snapshot.json"
    snapshot.rename(aside)
    async with follow(root) as live:
        assert live.cold.added[0].status.value == "dead"
        tmp = snapshot.with_suffix(".tmp")
        shutil.copyfile(aside, tmp)
        tmp.replace(snapshot)
        await live.settled()
        assert live.runs()[0].status.value == "completed"


async def test_owner_registry_file_removed_means_dead(tmp_path):
    root = copy_tree("killed", tmp_path)
    (root / "sessions").mkdir()
    registry = root / "sessions" / "4242.json"
    registry.write_text(json.dumps({"pid": 4242, "sessionId": SESSION, "procStart": "777"}))
    table = FakeProcessTable({4242: FakeProcess("777")})
    moment = os.stat(only_journal(root)).st_mtime + 5
    async with follow(root, processes=table, moment=moment) as live:
        assert live.cold.added[0].status.value == "running"
        registry.unlink()
        await live.settled()
        assert live.runs()[0].status.value == "dead"
        assert RunRow.of(live.runs()[0]).to_json()["in_flight"] == ["a5"]


async def test_owner_killed_without_removing_its_file_is_noticed(tmp_path):
    """SIGKILL leaves the registry file: the periodic owner check finds the pid gone."""
    root = copy_tree("killed", tmp_path)
    (root / "sessions").mkdir()
    registry = root / "sessions" / "4242.json"
    registry.write_text(json.dumps({"pid": 4242, "sessionId": SESSION, "procStart": "777"}))
    table = FakeProcessTable({4242: FakeProcess("777")})
    moment = os.stat(only_journal(root)).st_mtime + 5
    async with follow(root, processes=table, moment=moment, sweep_interval=0.2) as live:
        assert live.cold.added[0].status.value == "running"
        del table.processes[4242]
        await live.settled()
        assert live.runs()[0].status.value == "dead"


async def test_running_run_turns_stalled_when_only_time_passes(tmp_path):
    root = copy_tree("killed", tmp_path)
    (root / "sessions").mkdir()
    (root / "sessions" / "4242.json").write_text(
        json.dumps({"pid": 4242, "sessionId": SESSION, "procStart": "777"})
    )
    table = FakeProcessTable({4242: FakeProcess("777")})
    clock = [os.stat(only_journal(root)).st_mtime + 5]
    async with follow(root, processes=table, now=lambda: clock[0], sweep_interval=0.2) as live:
        assert live.cold.added[0].status.value == "running"
        clock[0] += 601
        await live.until(lambda: live.runs()[0].status.value == "stalled")
        await live.settled()


async def test_truncated_journal_is_read_again(tmp_path):
    root = copy_tree("killed", tmp_path)
    journal = only_journal(root)
    async with follow(root) as live:
        lines = journal.read_bytes().splitlines(keepends=True)
        with open(journal, "r+b") as handle:
            handle.truncate(len(b"".join(lines[:3])))
        await live.settled()
        assert RunRow.of(live.runs()[0]).to_json()["started"] < 5


async def test_deleted_run_folder_is_removed(tmp_path):
    root = copy_tree("killed", tmp_path)
    async with follow(root) as live:
        ident = live.cold.added[0].ident
        shutil.rmtree(only_journal(root).parent)
        await live.settled()
        assert live.runs() == []
        assert [change.removed for change in live.sets if change.removed] == [(ident,)]


async def test_symlinked_run_folder_outside_the_root_is_followed(tmp_path):
    root = copy_tree("killed", tmp_path)
    source = only_journal(copy_tree("clean", tmp_path / "src")).parent
    outside = tmp_path / "elsewhere" / source.name
    shutil.copytree(source, outside)
    async with follow(root) as live:
        workflows = only_journal(root).parent.parent
        (workflows / source.name).symlink_to(outside, target_is_directory=True)
        await live.settled()
        assert len(live.runs()) == 2
        append(outside / "journal.jsonl", started("k9", "via-link"))
        await live.settled()
        linked = next(run for run in live.runs() if run.run_id == source.name)
        assert RunRow.of(linked).to_json()["in_flight"] == ["via-link"]
        assert linked.fold.started_lines == 7


async def test_copy_in_another_session_supersedes_the_original(tmp_path):
    root = copy_tree("killed", tmp_path)
    run_folder = only_journal(root).parent
    async with follow(root) as live:
        other_session = run_folder.parents[2].parent / "f0000000-0000-4000-8000-000000000000"
        target = other_session / "subagents" / "workflows" / run_folder.name
        shutil.copytree(run_folder, target)
        await live.settled()
        append(target / "journal.jsonl", started("k7", "continued"))
        await live.settled()
        statuses = {run.session_id: run.status.value for run in live.runs()}
        assert statuses[SESSION] == "superseded"


async def test_event_storm_of_ten_thousand_appends(tmp_path):
    root = copy_tree("killed", tmp_path)
    journal = only_journal(root)
    async with follow(root) as live:

        def storm() -> None:
            with open(journal, "ab", buffering=0) as handle:
                for number in range(10_000):
                    line = {"type": "started", "key": f"s{number}", "agentId": f"b{number}"}
                    handle.write(json.dumps(line).encode() + b"\n")

        await asyncio.wait_for(asyncio.to_thread(storm), WAIT)
        await live.settled()
        run = live.runs()[0]
        assert run.fold.started_lines == 5 + 10_000
        assert len(run.fold.calls) == 5 + 10_000
        assert len(live.sets) < 10_000  # bursts coalesce


async def test_missed_events_are_caught_by_the_sweep(tmp_path, monkeypatch):
    """With no usable watch (no inotify), the stat sweep alone keeps the index right."""
    monkeypatch.setattr("wftop.core.index.touch.watch_paths", lambda roots, readers: ())
    root = copy_tree("killed", tmp_path)
    async with follow(root, sweep_interval=0.1) as live:
        append(only_journal(root), started("k3", "swept"))
        await live.settled()
        assert "swept" in RunRow.of(live.runs()[0]).to_json()["in_flight"]


async def test_changes_stop_on_stop_event_and_on_cancel(tmp_path):
    root = copy_tree("killed", tmp_path)
    index = LiveIndex([str(root)], processes=FakeProcessTable(), debounce_ms=20, step_ms=5)
    stop = asyncio.Event()
    stream = index.changes(stop)
    first = await asyncio.wait_for(anext(stream), WAIT)
    assert first.seq == 1 and len(first.added) == 1
    pending = asyncio.ensure_future(anext(stream))
    stop.set()
    with pytest.raises(StopAsyncIteration):
        await asyncio.wait_for(pending, WAIT)

    async def consume() -> None:
        async for _change in index.changes():
            pass

    task = asyncio.create_task(consume())
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, WAIT)


def test_ls_watch_json_streams_change_sets_until_sigint(tmp_path):
    root = copy_tree("killed", tmp_path)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "wftop.cli",
            "ls",
            "--watch",
            "--json",
            "--no-default-root",
            "--root",
            str(root),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    lines: queue.Queue[bytes] = queue.Queue()
    reader = threading.Thread(
        target=lambda: [lines.put(line) for line in process.stdout], daemon=True
    )
    reader.start()
    try:
        first = json.loads(lines.get(timeout=WAIT))
        assert first["seq"] == 1
        assert [row["in_flight"] for row in first["added"]] == [["a5"]]
        assert first["changed"] == [] and first["removed"] == []
        deadline = time.monotonic() + WAIT
        later: dict[str, Any] = {}
        while not later.get("changed") and time.monotonic() < deadline:
            append(only_journal(root), started(f"w{time.monotonic_ns()}", "from-test"))
            with contextlib.suppress(queue.Empty):
                later = json.loads(lines.get(timeout=1.0))
        assert later["seq"] >= 2
        assert "from-test" in later["changed"][0]["in_flight"]
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=WAIT) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=WAIT)
        reader.join(timeout=WAIT)
        process.stdout.close()
        process.stderr.close()


def test_a_journal_that_goes_is_a_missing_journal_however_often_it_is_read(tmp_path):
    """Not a problem, nor lines lost: the run has no journal now (its agents' sidecars tell
    of its calls), and says so."""
    root = copy_tree("killed", tmp_path)
    (folder,) = run_folders_of([str(root)])[0]
    reader = RunReader(folder)
    reader.refresh()
    only_journal(root).unlink()
    for _ in range(3):
        reader.refresh()
    assert reader.problems == [] and reader.journal_missing
    assert [call.label for call in reader.fold.ordered_calls()] == ["a1", "a2", "a3", "a4", "a5"]


def test_a_run_list_keeps_a_bounded_share_of_a_journals_results(tmp_path):
    """300 results of 100 KB (30 MB): the run list keeps some whole, then none, and every
    call still reads as returned; appending later does not start keeping them again."""
    import orjson

    from wftop.core.index.listkeep import LIST_KEEP_TOTAL
    from wftop.core.read.lineverdict import ELIDED

    root = copy_tree("killed", tmp_path)
    journal = only_journal(root)
    (folder,) = run_folders_of([str(root)])[0]

    def append(first: int, count: int) -> None:
        with open(journal, "ab") as handle:
            for number in range(first, first + count):
                key, agent = f"v2:big{number}", f"abig{number:013d}"
                started = {"type": "started", "key": key, "agentId": agent, "label": f"b{number}"}
                result = {"type": "result", "key": key, "agentId": agent, "result": "r" * 100_000}
                handle.write(orjson.dumps(started) + b"\n" + orjson.dumps(result) + b"\n")

    append(0, 250)
    reader = RunReader(folder)
    reader.refresh()
    append(250, 50)
    reader.refresh_journal()
    big = [call for call in reader.fold.calls.values() if call.label.startswith("b")]
    assert len(big) == 300 and all(call.has_result for call in big)
    kept = [call for call in big if call.result != ELIDED]
    assert 0 < len(kept) * 100_000 <= LIST_KEEP_TOTAL + 100_100
    assert all(call.result == ELIDED for call in big[len(kept) :])
