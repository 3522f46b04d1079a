"""Pilot tests of the wftop app: navigation, filter, keys, and the options that start it."""

from __future__ import annotations

import threading

import pytest
from textual.widgets import Static

from tests.tui_kit import SIZE, build, finished, ident_of, settle, table, until
from wftop.core.config import Config
from wftop.core.read import snapshot as snapshot_module
from wftop.tui.messages import OpenAgent, OpenJournal
from wftop.tui.screens.agent import AgentScreen
from wftop.tui.screens.copy import CopyScreen
from wftop.tui.screens.help import HelpScreen
from wftop.tui.screens.journal import JournalScreen
from wftop.tui.screens.plan import ResumePlanScreen
from wftop.tui.screens.run import RunScreen
from wftop.tui.screens.runs import RunsScreen
from wftop.tui.widgets.call_table import CallTable
from wftop.tui.widgets.key_bar import KeyBar


async def test_home_lists_every_run_with_counts(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=(130, 30)) as pilot:  # room for every count in words
        await settle(pilot)
        assert isinstance(app.screen, RunsScreen)
        assert len(table(app).item_keys) == 9
        header = str(app.screen.query_one("#runs-header").render())
        counts = (
            "1 running · 1 stalled · 1 dead · 2 completed · 1 failed · 1 partial · 1 killed · "
            "1 superseded"
        )
        assert counts in header
        costs = [row.cost_usd for row in app.store.rows.values()]
        assert all(cost is not None and cost > 0 for cost in costs)
        total = sum(cost for cost in costs if cost)
        assert header.endswith(f"{counts} · ${total:.4f} spent")  # the runs listed spent
        assert app.terminal_title == "wftop · 3 need attention"  # stalled, dead, partial
        partial = ident_of(app, "wf_6838482f-c9a")
        assert table(app).cell_text(partial, "status") == "⚠ partial"


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
        await pilot.press("s")  # attention: dead, stalled, failed, partial
        statuses = {app.store.rows[key].shown_status for key in table(app).item_keys}
        assert statuses == {"dead", "stalled", "failed", "partial"}
        await pilot.press("escape", "v")
        keys = table(app).item_keys
        assert keys[0] == "group:dead"
        assert [key for key in keys if key.startswith("group:")] == [
            f"group:{word}"
            for word in (
                "dead",
                "stalled",
                "failed",
                "partial",
                "running",
                "killed",
                "completed",
                "superseded",
            )
        ]
        table(app).move_to_key("group:dead")
        await pilot.press("enter")  # folds the dead group
        assert table(app).item_keys[1] == "group:stalled"


async def test_sixty_columns_keep_status_name_parity_and_dead(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        assert table(app).visible_columns == ["status", "name", "age", "parity", "dead"]
    app = build(tui_root, tui_processes)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert table(app).visible_columns == ["status", "name", "run", "age", "parity", "dead"]


async def test_resume_keys_reach_the_plan_and_read_only_shows_it_with_launching_off(
    tui_root, tui_processes
):
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
        assert "r plan" in str(app.screen.query_one(KeyBar).render())
        table(app).move_to_key(ident_of(app, "wf_cd4c7489-d27"))
        await pilot.press("r")
        assert isinstance(app.screen, ResumePlanScreen)
        shown = app.screen.query_one("#verdict", Static)
        await until(pilot, lambda: "launching is off" in str(shown.render()), "the verdict")
        said = str(shown.render())
        assert "launching is off: wftop was started with --read-only." in said
        assert "enter resume" not in said
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.launches == 0
        assert app.toasts[-1].title == "Launching is off"


async def test_y_copies_the_run_id(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("y")
        assert isinstance(app.screen, CopyScreen)
        await pilot.press("enter")
        assert app.clipboard == app.store.rows[table(app).cursor_key()].run_id


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


@pytest.mark.parametrize("argv", [[], ["--read-only", "--no-mouse"]])
def test_wftop_without_a_command_opens_the_tui(monkeypatch, argv):
    import wftop.cli.main
    from wftop.cli.main import main

    seen = []
    monkeypatch.setattr(wftop.cli.main, "run_tui", lambda args: seen.append(args) or 0)
    assert main(argv) == 0
    assert seen and seen[0].command is None


async def test_the_palette_offers_every_action_of_the_screen(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = {command.title for command in app.get_system_commands(app.screen)}
        for expected in (
            "Plan and resume the run",
            "Relaunch fresh",
            "Show the journal as a table",
            "Filter by name, run id, project or label",
            "Cycle the status filter",
            "Sort by status",
            "Group by project",
            "Show dead runs",
            "Theme",
            "Quit",
        ):
            assert expected in titles


def test_a_bad_config_stops_wftop_with_one_line(tmp_path, monkeypatch, capsys):
    from wftop.cli.main import main

    config = tmp_path / "config.toml"
    config.write_text('[keys]\nresume = "y"\n')
    monkeypatch.setenv("WFTOP_CONFIG", str(config))
    assert main(["--no-default-root", "--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "'y' would be bound to both 'resume' and 'copy'" in err


def test_no_mouse_and_read_only_reach_the_app(tmp_path, monkeypatch, tui_root):
    import wftop.tui.app
    from wftop.cli.main import main

    monkeypatch.setenv("WFTOP_CONFIG", str(tmp_path / "none.toml"))
    seen = {}

    def fake_run(self, **kwargs):  # type: ignore[no-untyped-def]
        seen.update(kwargs, read_only=bool(self.services.read_only))
        if self.pause is not None:
            self.pause.end()  # as the app's end does: the collector back on

    monkeypatch.setattr(wftop.tui.app.WftopApp, "run", fake_run)
    argv = ["--no-default-root", "--root", str(tui_root), "--no-mouse", "--read-only"]
    assert main(argv) == 0
    assert seen == {"mouse": False, "read_only": True}


async def test_text_from_the_user_or_disk_is_never_read_as_markup(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"[b]", "enter")
        header = str(app.screen.query_one("#runs-header").render())
        assert '[filter "[b]" · 0 of 9]' in header


async def test_a_run_with_many_calls_has_its_rows_made_off_the_loop(
    tui_root, tui_processes, monkeypatch
):
    import threading

    from wftop.tui import calls as calls_module
    from wftop.tui.screens import run as run_screen

    made: list[bool] = []
    real = calls_module.call_rows

    def counting(run, usage=None, spends=None):  # type: ignore[no-untyped-def]
        made.append(threading.current_thread() is threading.main_thread())
        return real(run, usage, spends)

    monkeypatch.setattr(calls_module, "call_rows", counting)
    monkeypatch.setattr(run_screen, "BACKGROUND_CALLS", 3)  # the six-call runs count as many
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table(app).move_to_key(ident_of(app, "wf_cd4c7489-d27"))
        await pilot.press("enter")
        calls = app.screen.query_one(CallTable)
        for _ in range(500):
            if calls.row_count:
                break
            await pilot.pause(0.01)
        assert calls.cursor_row == 1  # the first call, under the Plan phase
        await finished(pilot.app)
        # made in a job: once when the run is read, once more with the tokens the agents'
        # transcripts say (read in a job of their own)
        assert made and not any(made)
        await pilot.press("escape", "enter")  # the same run again: read again, off the loop
        await finished(pilot.app)
        assert made and not any(made)


async def test_a_changed_row_reads_the_run_again_and_its_rows_are_made_from_that(
    tui_root, tui_processes, monkeypatch
):
    import dataclasses

    from wftop.tui.screens import run as run_screen

    monkeypatch.setattr(run_screen, "BACKGROUND_CALLS", 3)  # the six-call runs count as many
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        ident = ident_of(app, "wf_cd4c7489-d27")
        table(app).move_to_key(ident)
        await pilot.press("enter")
        screen = app.screen
        await finished(pilot.app)
        await pilot.pause()
        first = screen.run
        assert first is not None and screen._built is not None and screen._built.run is first
        row = app.store.rows[ident]
        app.store.take([dataclasses.replace(row, unreadable_lines=row.unreadable_lines + 1)])
        await until(pilot, lambda: screen.run is not first, "the run read again")
        await finished(pilot.app)
        await pilot.pause()
        assert screen._built is not None and screen._built.run is screen.run


async def test_the_header_counts_what_was_masked_once_the_rows_come(
    tui_root, tui_processes, monkeypatch
):
    """However late the rows are read (their worker after the index and the detail), the
    header then says what they masked."""
    import time

    (transcript,) = tui_root.glob("projects/*/cb526ab9-*/subagents/workflows/*/agent-a5eb*.jsonl")
    secret = "sk-ant-api03-FAKE0123456789abcdef"
    transcript.write_text(transcript.read_text().replace("Part three.", f"Part {secret}.", 1))
    real = AgentScreen.rows

    def slow_rows(screen: AgentScreen, first: int, count: int):  # type: ignore[no-untyped-def]
        time.sleep(0.3)
        return real(screen, first, count)

    monkeypatch.setattr(AgentScreen, "rows", slow_rows)
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.post_message(OpenAgent(ident_of(app, "wf_cd4c7489-d27"), "a5eb88c6f1aa356a8", "a3"))
        await until(pilot, lambda: isinstance(app.screen, AgentScreen), "the transcript")
        screen = app.screen
        for _ in range(200):
            if screen.indexed and screen.view.text(0) is not None:
                break
            await pilot.pause(0.02)
        await pilot.pause()
        header = str(screen.query_one("#viewer-header").render())
        assert "1 masked (anthropic_key ×1)" in header
        assert secret not in str(screen.view.text(0))


async def test_the_last_rows_are_read_once_the_file_is_indexed(tmp_path):
    """`end` on a long journal draws at once: its last rows were read ahead, like the first."""
    import orjson

    from tests.corpus import copy_tree, only_journal
    from wftop.core.system.procs import FakeProcessTable

    root = copy_tree("clean", tmp_path)
    with only_journal(root).open("ab") as journal:
        for number in range(2000):
            line = {"type": "started", "key": f"v2:more{number}", "agentId": f"m{number}"}
            journal.write(orjson.dumps(line) + b"\n")
    app = build(root, FakeProcessTable())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.post_message(OpenJournal(next(iter(app.store.rows))))
        await until(pilot, lambda: isinstance(app.screen, JournalScreen), "the journal")
        screen = app.screen
        view = screen.view
        for _ in range(200):
            if screen.indexed and view.text(0) is not None:
                break
            await pilot.pause(0.02)
        await finished(app)
        await pilot.pause()
        assert view.count > 2000 and view.cursor == 0
        assert view.text(view.count - 1) is not None  # read before any key asked for it
        assert "m1999" in view.text(view.count - 1).plain
        await pilot.press("end")
        assert view.cursor == view.count - 1


async def test_the_run_screen_reads_the_snapshot_rows_in_a_worker(
    tui_root, tui_processes, monkeypatch
):
    """A listed run holds its snapshot's agent ids, not its agent rows: the run screen
    reads those from the file when it opens, never on the app's loop."""
    on_loop: list[bool] = []
    real = snapshot_module._read_object

    def reading(path: str):  # type: ignore[no-untyped-def]
        on_loop.append(threading.current_thread() is threading.main_thread())
        return real(path)

    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        monkeypatch.setattr(snapshot_module, "_read_object", reading)
        run = next(row for row in app.store.rows.values() if row.snapshot_current)
        table(app).move_to_key(run.ident)
        await pilot.press("enter")
        await finished(pilot.app)
        await pilot.pause()
        calls = app.screen.query_one(CallTable)
        assert calls.row_count and on_loop and not any(on_loop)  # read, never on the loop


async def test_a_run_without_a_journal_says_so_instead_of_opening_one(
    tmp_path, tui_processes, monkeypatch
):
    import shutil

    from tests.corpus import DATA

    root = tmp_path / "root"
    shutil.copytree(DATA / "shapes" / "no-journal", root)
    app = build(root, tui_processes)
    said: list[str] = []
    notify = app.notify
    monkeypatch.setattr(app, "notify", lambda text, **kw: (said.append(text), notify(text, **kw)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        (row,) = app.store.rows.values()
        assert row.journal is None
        table(app).move_to_key(row.ident)
        await pilot.press("J")
        await pilot.pause()
        assert isinstance(app.screen, RunsScreen)
        assert any("has no journal.jsonl on disk" in text for text in said), said
