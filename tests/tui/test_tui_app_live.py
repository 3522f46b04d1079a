"""Pilot tests of the wftop app: live rows, and the alerts their changes raise."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import TUI_NOW
from tests.tui_kit import SIZE, build, changed, ident_of, removed, settle, table, until
from wftop.core.config import Config
from wftop.core.model import Status
from wftop.core.read.journal import JournalFold
from wftop.core.system.procs import FakeProcessTable
from wftop.tui import app as app_module
from wftop.tui.app import WftopApp
from wftop.tui.navigator import Navigator, run_folder
from wftop.tui.screens.agent import AgentScreen
from wftop.tui.start import make_app
from wftop.tui.store import Progress


def live_app(root: Path, processes: FakeProcessTable) -> WftopApp:
    """The app over ``root``, following the disk."""
    config = Config(bell=False)
    return make_app([str(root)], config=config, processes=processes, now=lambda: TUI_NOW, live=True)


async def return_the_call_in_flight(pilot: Any, ident: str) -> None:
    """Append the ``result`` of the run's one call in flight; wait (bounded) for the app to
    hold it."""
    app = pilot.app
    row = app.store.rows[ident]
    run = await asyncio.to_thread(app.services.read, row)  # as a screen reads it: not on the loop
    (call,) = run.in_flight_calls
    line = {"type": "result", "key": call.key, "agentId": call.agent_ids[-1], "result": {}}
    with open(row.journal, "ab") as handle:
        handle.write(orjson.dumps(line) + b"\n")
    for _ in range(400):
        if app.store.rows[ident].returned == row.returned + 1:
            break
        await pilot.pause(0.05)


async def test_live_change_updates_the_row_in_place_and_keeps_the_cursor(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        runs = table(app)
        runs.move_cursor(4)
        chosen = runs.cursor_key()
        before = list(runs.item_keys)
        running = app.store.rows[ident_of(app, "wf_1a8e2cea-7df")]
        stalled = dataclasses.replace(running, status=Status.STALLED)
        changed(app, stalled)
        await pilot.pause()
        assert runs.item_keys == before
        assert runs.cursor_key() == chosen
        assert runs.cell_text(running.ident, "status") == "‖ stalled"


async def test_what_the_engine_walk_finds_raises_no_alert(tui_root, tui_processes):
    """Listed from the engine's rows cache while it walks the roots: a run that died while no
    engine ran is found then, and is not told as a death now (as in any first read)."""
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        count = len(app.store.rows)
        app.store.progressed(Progress(count, count, loaded=True, walking=True))
        running = app.store.rows[ident_of(app, "wf_1a8e2cea-7df")]
        changed(app, dataclasses.replace(running, status=Status.DEAD))
        await pilot.pause()
        assert app.alerts == []
        app.store.progressed(Progress(count, count, loaded=True))
        changed(app, running)
        await pilot.pause()
        changed(app, dataclasses.replace(running, status=Status.DEAD))
        await pilot.pause()
        alert = app.alerts[-1]  # every run known: changes are told again
        assert (alert.before, alert.after) == ("running", "dead")


async def test_death_raises_a_toast_and_the_title(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        running = app.store.rows[ident_of(app, "wf_1a8e2cea-7df")]
        dead = dataclasses.replace(running, status=Status.DEAD)
        changed(app, dead)
        await pilot.pause()
        (alert,) = app.alerts
        assert (alert.before, alert.after, alert.severity) == ("running", "dead", "error")
        assert "died with 1 worker in flight" in alert.message
        assert any("died" in note.message for note in app.toasts)
        assert app.terminal_title == "wftop · 4 need attention"  # + the partial run


async def test_agent_screen_follows_a_growing_transcript(tui_root, tui_processes):
    app = live_app(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        run = app.store.rows[ident_of(app, "wf_1a8e2cea-7df")]
        call = app.services.read(run).in_flight_calls[0]
        agent = call.agent_ids[-1]
        screen = AgentScreen(app.services, run, agent, call.label, run_folder(run))
        await app.push_screen(screen)
        for _ in range(2000):
            if screen.indexed:
                break
            await pilot.pause(0.01)
        assert app.screen is screen and screen.follow
        shown = screen.view.count
        line = (
            '{"type":"assistant","message":{"role":"assistant","content":'
            '[{"type":"text","text":"still working, key sk-ant-api03-FAKEFAKEFAKEFAKE"}]}}\n'
        )
        with open(screen.path, "a") as handle:
            handle.write(line)
        for _ in range(400):
            if screen.view.text(shown) is not None:
                break
            await pilot.pause(0.05)
        assert screen.view.count == shown + 1
        assert screen.view.cursor == shown  # followed to the new line
        assert "still working, key [masked:anthropic_key]" in str(screen.view.text(shown))
        assert screen.tally.masked["anthropic_key"] == 1


async def test_a_line_appended_on_disk_updates_its_row_in_place(tui_root, tui_processes):
    app = live_app(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.pause(0.5)  # let the watcher come up
        runs = table(app)
        ident = ident_of(app, "wf_1a8e2cea-7df")
        runs.move_cursor(3)
        chosen = runs.cursor_key()
        assert runs.cell_text(ident, "parity").startswith("5/4")
        await return_the_call_in_flight(pilot, ident)
        await pilot.pause()
        assert runs.cell_text(ident, "parity").startswith("5/5")
        assert runs.cursor_key() == chosen


async def test_the_app_loop_never_folds_a_line_it_only_applies_change_sets(
    tui_root, tui_processes, monkeypatch
):
    """Nor does it make what the list sorts and filters by (a project's short name, the
    status shown), which 20,000 runs would pay at the first `o` or `s`, or the counts of a
    row's parity bar (a 50,000-call run cost 26 ms per row drawn)."""
    import wftop.core.model as model

    folded_on: list[int] = []
    made_on: list[int] = []
    feed_all = JournalFold.feed_all

    def counted(fold: JournalFold, records: list[Any]) -> JournalFold:
        if records:
            folded_on.append(threading.get_ident())
        return feed_all(fold, records)

    monkeypatch.setattr(JournalFold, "feed_all", counted)
    for name in ("short_project", "status_word", "count_calls"):  # count_calls: parity bars
        real = getattr(model, name)
        monkeypatch.setattr(
            model, name, lambda *a, real=real: made_on.append(threading.get_ident()) or real(*a)
        )
    app = live_app(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.pause(0.5)  # let the watcher come up
        ident = ident_of(app, "wf_1a8e2cea-7df")
        before, made_before = len(folded_on), len(made_on)
        await return_the_call_in_flight(pilot, ident)
        assert app.store.rows[ident].returned == 5
        await pilot.press(*"oooo", *"s" * 10)  # every order and every status filter
        await pilot.pause()
    loop_thread = threading.get_ident()
    assert len(folded_on) > before > 0
    assert loop_thread not in folded_on
    assert len(made_on) > made_before > 0
    assert loop_thread not in made_on


async def test_attention_follows_changes(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert len(app.store.rows) == 9 and app.attention() == 3
        dead = app.store.rows[ident_of(app, "wf_1a8e2cea-7df")]
        changed(app, dataclasses.replace(dead, status=Status.DEAD))
        assert app.attention() == 4
        removed(app, dead.ident)
        assert app.attention() == 3 and dead.ident not in app.store.rows


@pytest.mark.parametrize(
    ("before", "after", "severity", "words"),
    [
        (Status.RUNNING, Status.DEAD, "error", "died"),
        (Status.STALLED, Status.DEAD, "error", "died"),
        (Status.RUNNING, Status.STALLED, "warning", "stalled"),
        (Status.RUNNING, Status.COMPLETED, "information", "finished: ✔ completed"),
        (Status.DEAD, Status.COMPLETED, "information", "finished"),
        (Status.RUNNING, Status.FAILED, "error", "finished: ! failed"),
        (Status.STALLED, Status.RUNNING, None, None),
        (Status.COMPLETED, Status.SUPERSEDED, None, None),
    ],
)
def test_which_changes_raise_an_alert(before, after, severity, words):
    from wftop.tui.alerts import alert_for

    run = _one_run("killed")
    alert = alert_for(
        dataclasses.replace(run, status=before), dataclasses.replace(run, status=after)
    )
    if severity is None:
        assert alert is None
    else:
        assert alert is not None and alert.severity == severity and words in alert.message


def _one_run(name: str):  # type: ignore[no-untyped-def]
    from tests.corpus import tree
    from wftop.core.index.coldpass import scan_roots
    from wftop.core.system.procs import FakeProcessTable

    (run,) = scan_roots([str(tree(name))], processes=FakeProcessTable()).runs
    return run


async def test_an_owner_that_dies_on_disk_raises_the_death_alert(tui_root, tui_processes):
    """SIGKILL leaves the owner's registry file: the engine's owner re-check (every few
    seconds) finds it gone, and the row that comes says dead."""
    app = live_app(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        ident = ident_of(app, "wf_1a8e2cea-7df")
        assert app.store.rows[ident].status is Status.RUNNING
        del tui_processes.processes[4242]  # the owner is SIGKILLed: its registry file stays
        await until(pilot, lambda: bool(app.alerts), "the owner's death")
        await pilot.pause()
        (alert,) = app.alerts
        assert (alert.ident, alert.after) == (ident, "dead")
        assert app.store.rows[ident].status is Status.DEAD
        assert table(app).cell_text(ident, "status") == "✖ dead"


async def test_what_the_first_run_opened_needs_is_readied_in_a_worker_once_listed(
    tui_root, tui_processes, monkeypatch
):
    """The run screen and the price data took the first ``enter`` 150-240 ms at 20,000
    rows: a live app imports them in a worker once every run is listed, and only then."""
    import wftop.tui.navigator as navigator

    readied: list[tuple[bool, bool]] = []
    monkeypatch.setattr(
        navigator,
        "ready",
        lambda: readied.append(
            (threading.current_thread() is threading.main_thread(), app.store.progress.loaded)
        ),
    )
    app = live_app(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await until(pilot, lambda: readied, "the run screen readied")
        await pilot.press("enter")
        await pilot.pause()
        assert readied == [(False, True)]


async def test_what_readying_a_run_loaded_is_kept_out_of_the_collectors_reach(
    tui_root, tui_processes, monkeypatch
):
    """What the readying loads stays for good (modules, the price data: some 36,000 objects
    at 20,000 rows); left to the cyclic collector, its next full pass walked them all on
    whatever key came then."""
    import gc

    import wftop.tui.navigator as navigator

    loaded: list[list[object]] = []

    def ready() -> None:
        kept: list[object] = []
        kept.append(kept)  # a container the collector tracks, as the price data's are
        loaded.append(kept)

    monkeypatch.setattr(app_module, "READY_AFTER", 3600.0)  # readied below, not by its timer
    monkeypatch.setattr(navigator, "ready", ready)
    app = live_app(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await until(pilot, lambda: app.store.progress.loaded and gc.isenabled(), "listed")
        app.navigator.ready_run_screen()
        await until(pilot, lambda: loaded, "the run screen readied")
        await pilot.pause()
        await pilot.pause()
        tracked = gc.get_objects()  # every generation the collector walks, not the kept
        assert not any(item is loaded[0] for item in tracked)


@pytest.mark.parametrize("after", [3600.0, 0.01])
async def test_what_opening_a_run_needs_is_readied_after_the_list_is_drawn(
    tui_root, tui_processes, monkeypatch, after
):
    # its imports run in a thread, under the lock every thread shares: not in the list's
    # first frame, and not for a while after it
    monkeypatch.setattr(app_module, "READY_AFTER", after)
    readied: list[int] = []
    monkeypatch.setattr(
        Navigator, "ready_run_screen", lambda self: readied.append(len(table(self.app).item_keys))
    )
    app = live_app(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # every run in the table (under load the engine's first rows may come late)
        await until(pilot, lambda: table(app).item_keys and app.store.progress.loaded, "listed")
        listed = len(app.store.rows)
        assert listed and table(app).item_keys
        if after > 1:
            assert readied == []  # the list is drawn; the run screen waits its turn
        else:
            await until(pilot, lambda: readied, "the run screen readied")
            assert readied == [listed]
