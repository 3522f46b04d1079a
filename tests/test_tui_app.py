"""Pilot tests of the wftop app: navigation, filter, live rows, alerts, keys."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import orjson
import pytest

from core.model import Status
from tests.conftest import TUI_NOW
from tui.app import WftopApp
from tui.config import Config
from tui.main import make_app
from tui.screens.agent import AgentScreen
from tui.screens.copy import CopyScreen
from tui.screens.help import HelpScreen
from tui.screens.journal import JournalScreen
from tui.screens.plan import ResumePlanScreen
from tui.screens.run import RunScreen
from tui.screens.runs import RunsScreen
from tui.source import ChangeSet
from tui.widgets.call_table import CallTable
from tui.widgets.run_table import RunTable

SIZE = (100, 30)


def build(root: Path, processes, **kwargs) -> WftopApp:  # type: ignore[no-untyped-def]
    config = kwargs.pop("config", Config(bell=False))
    return make_app(
        [str(root)], config=config, processes=processes, now=lambda: TUI_NOW, live=False, **kwargs
    )


async def settle(pilot) -> None:  # type: ignore[no-untyped-def]
    for _ in range(2000):
        if pilot.app.loaded:
            break
        await pilot.pause(0.01)
    await pilot.pause()


def table(app: WftopApp) -> RunTable:
    return app.screen.query_one(RunTable)


def ident_of(app: WftopApp, run_id: str, status: Status | None = None) -> str:
    return next(
        run.ident
        for run in app.runs.values()
        if run.run_id == run_id and (status is None or run.status is status)
    )


async def test_home_lists_every_run_with_counts(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, RunsScreen)
        assert len(table(app).item_keys) == 9
        header = str(app.screen.query_one("#runs-header").render())
        counts = "1 running · 1 stalled · 1 dead · 3 done · 1 failed · 1 killed · 1 superseded"
        assert counts in header
        assert app.terminal_title == "wftop · 2 need attention"


async def test_enter_drills_in_and_esc_comes_back(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table(app).move_to_key(ident_of(app, "wf_cd4c7489-d27"))
        await pilot.press("enter")
        assert isinstance(app.screen, RunScreen)
        calls = app.screen.query_one(CallTable)
        assert calls.cursor_row == 1  # the first call, under the Plan phase
        await pilot.press("j", "j")
        assert calls.cursor_row == 3  # Plan, a1, Fan, a2
        await pilot.press("enter")
        assert isinstance(app.screen, AgentScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, RunScreen)
        await pilot.press("J")
        assert isinstance(app.screen, JournalScreen)
        await pilot.press("escape", "escape")
        assert isinstance(app.screen, RunsScreen)


async def test_slash_filters_by_label_and_esc_clears(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"d27")
        assert table(app).item_keys == [ident_of(app, "wf_cd4c7489-d27")]
        await pilot.press("enter")  # leaves the box, keeps the filter
        assert len(table(app).item_keys) == 1
        await pilot.press("escape")
        assert len(table(app).item_keys) == 9


async def test_status_filter_and_grouping(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")  # attention: dead, stalled, failed
        statuses = {app.runs[key].status.value for key in table(app).item_keys}
        assert statuses == {"dead", "stalled", "failed"}
        await pilot.press("escape", "g")
        keys = table(app).item_keys
        assert keys[0] == "group:dead"
        assert sum(key.startswith("group:") for key in keys) == 7
        table(app).move_to_key("group:dead")
        await pilot.press("enter")  # folds the dead group
        assert table(app).item_keys[1] == "group:stalled"


async def test_live_change_updates_the_row_in_place_and_keeps_the_cursor(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        runs = table(app)
        runs.move_cursor(4)
        chosen = runs.cursor_key()
        before = list(runs.item_keys)
        running = app.runs[ident_of(app, "wf_1a8e2cea-7df")]
        stalled = dataclasses.replace(running, status=Status.STALLED)
        app.apply_changes(ChangeSet(1, (), (stalled,), ()))
        await pilot.pause()
        assert runs.item_keys == before
        assert runs.cursor_key() == chosen
        assert runs.cell_text(running.ident, "status") == "‖ stalled"


async def test_death_raises_a_toast_and_the_title(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        running = app.runs[ident_of(app, "wf_1a8e2cea-7df")]
        dead = dataclasses.replace(running, status=Status.DEAD)
        app.apply_changes(ChangeSet(1, (), (dead,), ()))
        await pilot.pause()
        (alert,) = app.alerts
        assert (alert.before, alert.after, alert.severity) == ("running", "dead", "error")
        assert "died with 1 worker in flight" in alert.message
        assert any("died" in note.message for note in app._notifications)
        assert app.terminal_title == "wftop · 3 need attention"


async def test_sixty_columns_keep_status_name_age_parity(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        assert table(app).visible_columns == ["status", "name", "age", "parity"]
    app = build(tui_root, tui_processes)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "run" in table(app).visible_columns


async def test_resume_keys_reach_the_plan_hook_and_read_only_refuses(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table(app).move_to_key(ident_of(app, "wf_cd4c7489-d27"))
        await pilot.press("r")
        assert isinstance(app.screen, ResumePlanScreen)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("R")
        assert isinstance(app.screen, ResumePlanScreen)
    app = build(tui_root, tui_processes, read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("r")
        assert isinstance(app.screen, RunsScreen)
        assert any("read-only" in note.message for note in app._notifications)


async def test_y_copies_the_run_id(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("y")
        assert isinstance(app.screen, CopyScreen)
        await pilot.press("enter")
        assert app.clipboard == table(app).cursor_key().split("/")[1]


async def test_help_lists_screen_and_general_keys(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("question_mark")
        assert isinstance(app.screen, RunsScreen)


async def test_keys_table_remaps_by_binding_id(tui_root, tui_processes):
    app = build(tui_root, tui_processes, config=Config(bell=False, keys={"resume": "e"}))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("r")
        assert isinstance(app.screen, RunsScreen)
        await pilot.press("e")
        assert isinstance(app.screen, ResumePlanScreen)


async def test_agent_screen_follows_a_growing_transcript(tui_root, tui_processes):
    app = make_app(
        [str(tui_root)],
        config=Config(bell=False),
        processes=tui_processes,
        now=lambda: TUI_NOW,
        live=True,
        poll_interval=3600,
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        run = app.runs[ident_of(app, "wf_1a8e2cea-7df")]
        call = run.in_flight_calls[0]
        agent = call.agent_ids[-1]
        screen = AgentScreen(run, agent, call.label)
        await app.push_screen(screen)
        for _ in range(2000):
            if screen.loaded:
                break
            await pilot.pause(0.01)
        assert app.screen is screen and screen.following
        shown = screen.items
        line = (
            '{"type":"assistant","message":{"role":"assistant","content":'
            '[{"type":"text","text":"still working, key sk-ant-api03-FAKEFAKEFAKEFAKE"}]}}\n'
        )
        with open(screen.path, "a") as handle:
            handle.write(line)
        for _ in range(400):
            if screen.items > shown:
                break
            await pilot.pause(0.05)
        assert screen.items == shown + 1
        assert screen.mask.masked["anthropic_key"] == 1


@pytest.mark.parametrize("argv", [[], ["--read-only", "--no-mouse"]])
def test_wftop_without_a_command_opens_the_tui(monkeypatch, argv):
    import tui.main
    from tui.cli import main

    seen = []
    monkeypatch.setattr(tui.main, "run_tui", lambda args: seen.append(args) or 0)
    assert main(argv) == 0
    assert seen and seen[0].command is None


async def test_a_line_appended_on_disk_updates_its_row_in_place(tui_root, tui_processes):
    app = make_app(
        [str(tui_root)],
        config=Config(bell=False),
        processes=tui_processes,
        now=lambda: TUI_NOW,
        live=True,
        poll_interval=0.2,
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.pause(0.5)  # let the watcher come up
        runs = table(app)
        ident = ident_of(app, "wf_1a8e2cea-7df")
        runs.move_cursor(3)
        chosen = runs.cursor_key()
        assert runs.cell_text(ident, "parity").startswith("5/4")
        run = app.runs[ident]
        (call,) = run.in_flight_calls
        line = {"type": "result", "key": call.key, "agentId": call.agent_ids[-1], "result": {}}
        with open(run.folder.journal, "ab") as handle:
            handle.write(orjson.dumps(line) + b"\n")
        for _ in range(400):
            if app.runs[ident].fold.result_lines == 5:
                break
            await pilot.pause(0.05)
        await pilot.pause()
        assert runs.cell_text(ident, "parity").startswith("5/5")
        assert runs.cursor_key() == chosen


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
    from tui.app import alert_for

    run = _one_run("killed")
    alert = alert_for(
        dataclasses.replace(run, status=before), dataclasses.replace(run, status=after)
    )
    if severity is None:
        assert alert is None
    else:
        assert alert is not None and alert.severity == severity and words in alert.message


def _one_run(name: str):  # type: ignore[no-untyped-def]
    from core.procs import FakeProcessTable
    from core.scan import scan_roots
    from tests.corpus import tree

    (run,) = scan_roots([str(tree(name))], processes=FakeProcessTable()).runs
    return run


async def test_the_palette_offers_every_action_of_the_screen(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = {command.title for command in app.get_system_commands(app.screen)}
        for expected in (
            "Plan and resume the run",
            "Relaunch fresh",
            "Show the raw journal",
            "Filter by name, run id, project or label",
            "Cycle the status filter",
            "Sort by status",
            "Group by project",
            "Show dead runs",
            "Theme",
            "Quit",
        ):
            assert expected in titles


def test_no_color_is_honoured(monkeypatch, tui_root, tui_processes):
    monkeypatch.setenv("NO_COLOR", "1")
    assert build(tui_root, tui_processes).no_color


def test_a_bad_config_stops_wftop_with_one_line(tmp_path, monkeypatch, capsys):
    from tui.cli import main

    config = tmp_path / "config.toml"
    config.write_text('[keys]\nresume = "y"\n')
    monkeypatch.setenv("WFTOP_CONFIG", str(config))
    assert main(["--no-default-root", "--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "'y' would be bound to both 'resume' and 'copy'" in err


def test_no_mouse_and_read_only_reach_the_app(tmp_path, monkeypatch, tui_root):
    import tui.app
    from tui.cli import main

    monkeypatch.setenv("WFTOP_CONFIG", str(tmp_path / "none.toml"))
    seen = {}

    def fake_run(self, **kwargs):  # type: ignore[no-untyped-def]
        seen.update(kwargs, read_only=self.read_only)

    monkeypatch.setattr(tui.app.WftopApp, "run", fake_run)
    argv = ["--no-default-root", "--root", str(tui_root), "--no-mouse", "--read-only"]
    assert main(argv) == 0
    assert seen == {"mouse": False, "read_only": True}


async def test_an_owner_that_dies_on_disk_raises_the_death_alert(tui_root, tui_processes):
    app = make_app(
        [str(tui_root)],
        config=Config(bell=False),
        processes=tui_processes,
        now=lambda: TUI_NOW,
        live=True,
        poll_interval=0.2,
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        ident = ident_of(app, "wf_1a8e2cea-7df")
        assert app.runs[ident].status is Status.RUNNING
        del tui_processes.processes[4242]  # the owner is SIGKILLed: its registry file stays
        for _ in range(600):
            if app.alerts:
                break
            await pilot.pause(0.05)
        (alert,) = app.alerts
        assert (alert.ident, alert.after) == (ident, "dead")
        assert app.runs[ident].status is Status.DEAD
        assert table(app).cell_text(ident, "status") == "✖ dead"


async def test_text_from_the_user_or_disk_is_never_read_as_markup(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"[b]", "enter")
        header = str(app.screen.query_one("#runs-header").render())
        assert '[filter "[b]" · 0 of 9]' in header
