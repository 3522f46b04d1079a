"""Views linked to real engine processes: over pipes (each view its own engine) and over a
socket (one engine shared); an engine killed with SIGKILL is said, replaced, and no run is
lost or shown twice; an engine of another version is never used; ``wftop status`` asks a
running engine and never starts one."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.corpus import copy_tree, only_journal
from wftop.core.engine import protocol as wire
from wftop.core.engine.early import started_early
from wftop.core.engine.feed import Delta
from wftop.core.engine.link import EngineLink, EngineLost, EngineUp, connector_for, open_link
from wftop.core.engine.pipes import PipeConnector
from wftop.core.engine.place import place_for
from wftop.core.engine.shared import SocketConnector
from wftop.core.index.coldpass import scan_roots
from wftop.core.index.projects import project_key, project_names
from wftop.core.model import DEFAULT_STALL_WINDOW
from wftop.core.notify.acks import Acks, RunState
from wftop.core.resume.store import state_dir
from wftop.core.row import RunRow
from wftop.core.version import package_version

WAIT = 30.0
TOP = Path(__file__).parents[2]

pytestmark = pytest.mark.usefixtures("short_state_dir")  # a socket's path fits sun_path


class Watch:
    """A view's link, read as a view reads it, every update kept."""

    def __init__(self, link: EngineLink) -> None:
        self.link = link
        self.seen: list[Any] = []
        self.updates = link.updates()

    async def until(self, check: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + WAIT
        while not check():
            left = deadline - time.monotonic()
            assert left > 0, f"no update while waiting for {what}: {self.seen[-3:]}"
            try:
                self.seen.append(await asyncio.wait_for(anext(self.updates), left))
            except TimeoutError:
                raise AssertionError(f"timed out waiting for {what}: {self.seen[-3:]}") from None

    def of(self, kind: type) -> list[Any]:
        return [update for update in self.seen if isinstance(update, kind)]

    def complete(self) -> bool:
        return any(isinstance(update, Delta) and update.complete for update in self.seen)

    async def close(self) -> None:
        await self.link.close()
        await self.updates.aclose()


def cold(roots: list[Path]) -> dict[str, RunRow]:
    """The rows of a cold scan, each project named as the listing names it."""
    rows = {run.ident: RunRow.of(run) for run in scan_roots([str(root) for root in roots]).runs}
    names = project_names((row.cwd, row.project) for row in rows.values())
    key = project_key
    return {i: replace(r, project_name=names[key(r.cwd, r.project)]) for i, r in rows.items()}


def started_line(label: str) -> str:
    return json.dumps({"type": "started", "key": f"v2:{label}", "agentId": f"a{label}"}) + "\n"


def dead(pid: int) -> bool:
    """The process has ended (a zombie not reaped yet by the view that started it counts)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


async def gone(pid: int) -> None:
    deadline = time.monotonic() + WAIT
    while not dead(pid):
        assert time.monotonic() < deadline, f"engine {pid} still runs"
        await asyncio.sleep(0.05)


async def kill_and_change_meanwhile(watch: Watch, roots: list[Path]) -> list[Any]:
    """SIGKILL the watch's engine, change the tree while none runs, and return the updates
    from the kill to the new engine's complete snapshot."""
    (up,) = watch.of(EngineUp)
    os.kill(up.hello.pid, signal.SIGKILL)
    await watch.until(lambda: bool(watch.of(EngineLost)), "the engine's loss")
    mark = len(watch.seen)
    with only_journal(roots[0]).open("a") as journal:
        journal.write(started_line("meanwhile"))
    shutil.rmtree(only_journal(roots[1]).parent)  # its snapshot alone would be a run
    (snapshot,) = roots[1].glob("projects/*/*/workflows/wf_*.json")
    snapshot.unlink()
    await watch.until(lambda: len(watch.of(EngineUp)) == 2, "a new engine")
    await watch.until(
        lambda: any(isinstance(u, Delta) and u.complete for u in watch.seen[mark:]),
        "the new engine's snapshot",
    )
    return watch.seen[mark - 1 :]


def once_each(updates: list[Any]) -> None:
    """Across these updates no run is added or changed twice, and none removed twice."""
    named = [row.ident for u in updates if isinstance(u, Delta) for row in (*u.added, *u.changed)]
    removed = [ident for u in updates if isinstance(u, Delta) for ident in u.removed]
    assert len(named) == len(set(named)) and len(removed) == len(set(removed))
    assert not set(named) & set(removed)


async def test_a_view_with_its_own_engine_over_pipes_survives_its_sigkill(tmp_path, monkeypatch):
    monkeypatch.setenv("WFTOP_ENGINE", "pipe")
    roots = [copy_tree("killed", tmp_path), copy_tree("clean", tmp_path)]
    link = open_link([str(root) for root in roots])
    assert isinstance(link.connector, PipeConnector)
    watch = Watch(link)
    try:
        await watch.until(watch.complete, "the first snapshot")
        (up,) = watch.of(EngineUp)
        assert not up.shared and not up.restarted
        assert link.rows == cold(roots)
        after = await kill_and_change_meanwhile(watch, roots)
        lost, *rest = after
        assert lost.why == f"the engine (pid {up.hello.pid}) was killed (SIGKILL)"
        assert watch.of(EngineUp)[-1].restarted
        once_each(rest)
        assert link.rows == cold(roots)
        (row,) = link.rows.values()
        assert row.in_flight == ("a5", "ameanwhile")
    finally:
        await watch.close()
    await gone(watch.of(EngineUp)[-1].hello.pid)


async def test_views_share_one_engine_over_a_socket_and_it_goes_when_idle(tmp_path):
    roots = [copy_tree("killed", tmp_path), copy_tree("clean", tmp_path)]
    names = [str(root) for root in roots]
    first = Watch(open_link(names, linger=1.0))
    second = Watch(open_link(names))
    try:
        assert isinstance(first.link.connector, SocketConnector)
        await first.until(first.complete, "the first snapshot")
        await second.until(second.complete, "the second view's snapshot")
        one, two = first.of(EngineUp)[0], second.of(EngineUp)[0]
        assert one.shared and two.shared and one.hello.pid == two.hello.pid
        assert first.link.rows == second.link.rows == cold(roots)
        after = await kill_and_change_meanwhile(first, roots)
        assert after[0].why == f"the engine (pid {one.hello.pid}) was killed (SIGKILL)"
        once_each(after[1:])
        await second.until(
            lambda: len(second.of(EngineUp)) == 2 and second.link.rows == cold(roots),
            "the second view on the new engine",
        )
        assert first.of(EngineUp)[-1].hello.pid == second.of(EngineUp)[-1].hello.pid
        assert first.link.rows == second.link.rows == cold(roots)
    finally:
        await first.close()
        await second.close()
    pid = first.of(EngineUp)[-1].hello.pid
    await gone(pid)
    place = place_for(names, DEFAULT_STALL_WINDOW, cache=True)
    assert place is not None and not os.path.exists(place.socket)


def test_where_no_socket_can_be_used_each_view_runs_its_own_engine(
    tmp_path, monkeypatch, short_state_dir
):
    roots = [str(tmp_path)]
    assert isinstance(connector_for(roots), SocketConnector)
    deep = short_state_dir / ("d" * 60) / ("e" * 60)
    monkeypatch.setenv("WFTOP_STATE_DIR", str(deep))
    assert place_for(roots, DEFAULT_STALL_WINDOW, cache=True) is None
    assert isinstance(connector_for(roots), PipeConnector)
    monkeypatch.setenv("WFTOP_STATE_DIR", str(short_state_dir))
    monkeypatch.delattr(socket, "AF_UNIX")
    assert isinstance(connector_for(roots), PipeConnector)


class Impostor:
    """A socket server at an engine's place that speaks another wftop version."""

    def __init__(self, path: str, reply: bytes) -> None:
        self.path = path
        self.reply = reply
        self.asked: list[bytes] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.asked.append(await reader.readline())
        writer.write(self.reply)
        await writer.drain()
        writer.close()


def hello_of(version: str) -> bytes:
    return wire.hello_line(wire.Hello(wire.PROTOCOL, version, 1, (), DEFAULT_STALL_WINDOW))


async def test_an_engine_of_another_version_is_never_used(tmp_path):
    root = copy_tree("killed", tmp_path)
    place = place_for([str(root)], DEFAULT_STALL_WINDOW, cache=True)
    assert place is not None
    place.prepare()
    impostor = Impostor(place.socket, hello_of("0.0.1-other"))
    server = await asyncio.start_unix_server(impostor.handle, path=place.socket)
    watch = Watch(open_link([str(root)]))
    try:
        await watch.until(watch.complete, "a snapshot from an engine of this version")
        (up,) = watch.of(EngineUp)
        assert not up.shared and up.hello.wftop == package_version()
        assert impostor.asked and watch.link.rows == cold([root])
    finally:
        await watch.close()
        server.close()


def wftop_status(root: Path) -> dict[str, Any]:
    argv = [sys.executable, "-m", "wftop.cli", "status", "--format", "json"]
    argv += ["--no-default-root", "--root", str(root)]
    done = subprocess.run(argv, cwd=TOP, capture_output=True, check=True, timeout=WAIT)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


async def test_status_asks_a_running_engine_and_never_starts_one(tmp_path):
    root = copy_tree("killed", tmp_path)
    place = place_for([str(root)], DEFAULT_STALL_WINDOW, cache=True)
    assert place is not None
    assert (await asyncio.to_thread(wftop_status, root))["counts"] == {"dead": 1}
    assert not Path(place.socket).parent.exists()  # nothing was started, nothing made
    place.prepare()
    answer = hello_of(package_version()) + wire.status_line({"running": 7}, complete=True)
    impostor = Impostor(place.socket, answer)
    server = await asyncio.start_unix_server(impostor.handle, path=place.socket)
    try:
        shown = await asyncio.to_thread(wftop_status, root)
        assert shown["counts"] == {"running": 7}
        assert wire.decode_ask(impostor.asked[0]).want == "status"
        impostor.reply = hello_of(package_version()) + wire.status_line(
            {"running": 7}, complete=False
        )
        assert (await asyncio.to_thread(wftop_status, root))["counts"] == {"dead": 1}
        impostor.reply = hello_of("0.0.1-other") + wire.status_line({"running": 7}, complete=True)
        assert (await asyncio.to_thread(wftop_status, root))["counts"] == {"dead": 1}
    finally:
        server.close()


async def test_status_holds_the_engines_runs_to_the_attention_window_and_the_runs_seen(tmp_path):
    """The engine answers with the runs that may need you; status counts those dead within
    the attention window and not marked seen (neither run is on disk: only the engine's
    answer can say so)."""
    root = copy_tree("clean", tmp_path)
    place = place_for([str(root)], DEFAULT_STALL_WINDOW, cache=True)
    assert place is not None
    place.prepare()
    now = time.time()
    recent = RunState("s1/wf_recent@/r", "wf_recent", "dead", now - 60)
    old = RunState("s2/wf_old@/r", "wf_old", "dead", now - 3 * 86400)
    answer = wire.status_line({"dead": 2, "completed": 1}, complete=True, needy=[recent, old])
    assert wire.decode(answer).needy == (recent, old)  # type: ignore[union-attr]
    impostor = Impostor(place.socket, hello_of(package_version()) + answer)
    server = await asyncio.start_unix_server(impostor.handle, path=place.socket)
    try:
        shown = await asyncio.to_thread(wftop_status, root)
        assert shown["counts"] == {"dead": 2, "completed": 1}
        assert (shown["attention"], shown["line"]) == (1, "⚠ 1 dead")
        Acks(state_dir()).ack([recent], now)
        shown = await asyncio.to_thread(wftop_status, root)
        assert (shown["attention"], shown["line"]) == (0, "")
    finally:
        server.close()


async def test_the_engine_a_view_started_before_its_connector_is_the_one_it_reads(tmp_path):
    roots = [copy_tree("killed", tmp_path), copy_tree("clean", tmp_path)]
    names = [str(root) for root in roots]
    early = started_early(names, DEFAULT_STALL_WINDOW, linger=1.0)
    assert early is not None  # none answered: started, not waited for
    assert started_early(names, DEFAULT_STALL_WINDOW) is None  # being started: not twice
    connector = connector_for(names, early=early)
    assert isinstance(connector, SocketConnector) and connector.started is early.process
    watch = Watch(EngineLink(connector))
    try:
        await watch.until(watch.complete, "the snapshot")
        (up,) = watch.of(EngineUp)
        assert up.hello.pid == early.process.pid and up.shared and not up.restarted
        assert watch.link.rows == cold(roots)
        assert started_early(names, DEFAULT_STALL_WINDOW) is None  # one answers now
    finally:
        await watch.close()
    await gone(early.process.pid)


async def test_an_engine_started_early_is_the_one_the_view_reads(tmp_path):
    roots = [copy_tree("killed", tmp_path), copy_tree("clean", tmp_path)]
    names = [str(root) for root in roots]
    connector = connector_for(names, linger=1.0)
    assert isinstance(connector, SocketConnector)
    assert connector.start_early()  # none answers: started, not waited for
    started = connector.started
    assert started is not None
    again = connector_for(names)
    assert isinstance(again, SocketConnector)
    assert not again.start_early()  # one is being started (the lock is held): not twice
    watch = Watch(EngineLink(connector))
    try:
        await watch.until(watch.complete, "the snapshot")
        (up,) = watch.of(EngineUp)
        assert up.hello.pid == started.pid and up.shared and not up.restarted
        assert watch.link.rows == cold(roots)
        assert not again.start_early()  # one answers now
        assert again.started is None
    finally:
        await watch.close()
    await gone(started.pid)
