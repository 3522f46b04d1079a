"""A 60-column pane and the keys of the lists: what fits, what stays, what each key does."""

from __future__ import annotations

from rich.console import Console
from textual.widgets import Static

from tests.tui_kit import build, finished, ident_of, settle, table
from wftop.tui.calls import PhaseRow
from wftop.tui.screens.help import HelpScreen, help_table
from wftop.tui.screens.plan import ResumePlanScreen
from wftop.tui.screens.run import RunScreen
from wftop.tui.screens.sessions import SessionsScreen
from wftop.tui.widgets.call_table import CallTable
from wftop.tui.widgets.key_bar import KeyBar, fit_keys

PANE = (60, 20)
DEAD_RUN = "wf_cd4c7489-d27"


def bar_text(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.screen.query_one(KeyBar).render())


async def open_plan(pilot) -> ResumePlanScreen:  # type: ignore[no-untyped-def]
    app = pilot.app
    table(app).move_to_key(ident_of(app, DEAD_RUN))
    await pilot.press("r")
    screen = app.screen
    assert isinstance(screen, ResumePlanScreen)
    await finished(app)
    await pilot.pause()
    return screen


# -- the footer ------------------------------------------------------------------------------


def test_a_narrow_key_line_keeps_quit_and_help_and_says_what_it_dropped():
    screen = [("⏎", "open"), ("r", "resume"), ("y", "copy"), ("J", "journal"), ("/", "filter")]
    app = [("quit", "q", "quit"), ("help", "?", "help"), ("command_palette", "^p", "palette")]
    shown, cut, kept = fit_keys(screen, app, 44)
    assert cut and kept == [("q", "quit"), ("?", "help")]
    assert shown == [("⏎", "open"), ("r", "resume"), ("y", "copy")]
    assert fit_keys(screen, app, 200) == (screen, False, [(k, w) for _a, k, w in app])


async def test_the_footer_at_sixty_columns_ends_with_quit_and_help(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=PANE) as pilot:
        await settle(pilot)
        line = bar_text(app)
        assert line.rstrip().endswith("q quit  ? help") and "…" in line
        assert len(line) <= 58


async def test_the_sessions_footer_shows_each_binding_once(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("S")
        assert isinstance(app.screen, SessionsScreen)
        await pilot.pause()
        line = bar_text(app)
        assert line.count("palette") == 1 and "q quit" in line and "? help" in line


# -- the run list ----------------------------------------------------------------------------


async def test_sixty_columns_keep_the_dead_count(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=PANE) as pilot:
        await settle(pilot)
        assert table(app).cell_text(ident_of(app, DEAD_RUN), "dead").strip() == "1"


# -- help --------------------------------------------------------------------------------------


async def test_help_in_a_pane_keeps_every_binding_id_whole(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=PANE) as pilot:
        await settle(pilot)
        console = Console(width=54, record=True, color_system=None)
        console.print(help_table(app.services.keymap, "runs"))
        text = console.export_text()
        for binding_id in ("command-palette", "filter-project", "clear-filter", "sessions"):
            assert binding_id in text
        assert "…" not in text


async def test_question_mark_lists_the_keys_of_the_sessions_screen(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("S", "question_mark")
        assert isinstance(app.screen, HelpScreen)
        rows = {(keys, words) for keys, words, _id in app.screen.own}
        assert {("⏎", "report"), ("p", "plot"), ("f5", "reload")} <= rows


async def test_question_mark_works_on_the_plan(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=PANE) as pilot:
        await settle(pilot)
        await open_plan(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert app.screen.under_name == "plan"
        await pilot.press("escape")
        assert isinstance(app.screen, ResumePlanScreen)


# -- the plan ----------------------------------------------------------------------------------


async def test_the_plan_verdict_and_its_keys_stay_in_view_at_sixty_by_twenty(
    tui_root, tui_processes
):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=PANE) as pilot:
        await settle(pilot)
        screen = await open_plan(pilot)
        verdict = screen.query_one("#verdict")
        text = str(verdict.render())
        assert text.startswith("guard") and "esc close" in text
        region = verdict.region
        assert region.height >= 2 and region.bottom <= PANE[1] - 1


async def test_no_toast_over_the_plan_what_it_would_say_is_said_inside_it(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=PANE) as pilot:
        await settle(pilot)
        app.notify("one")
        app.notify("two")
        await open_plan(pilot)
        assert not app.showing
        app.notify("three")
        app.notify("four")
        await pilot.pause()
        assert not app.showing
        said = app.screen.query_one("#said", Static)
        assert said.display and str(said.render()) == "four"


# -- keys --------------------------------------------------------------------------------------


async def test_g_and_shift_g_and_half_pages_move_the_list_cursor(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=(60, 12)) as pilot:
        await settle(pilot)
        runs = table(app)
        await pilot.press("G")
        assert runs.cursor_row == runs.row_count - 1
        await pilot.press("g", "g")
        assert runs.cursor_row == 0
        await pilot.press("ctrl+d")
        down = runs.cursor_row
        assert 0 < down < runs.row_count - 1  # half of the 8 rows on screen
        await pilot.press("ctrl+u")
        assert runs.cursor_row == 0
        await pilot.press("v")  # group by status (g is the top, as in the journal)
        assert runs.item_keys[0] == "group:dead"


async def test_enter_on_a_phase_row_folds_it(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        table(app).move_to_key(ident_of(app, DEAD_RUN))
        await pilot.press("enter")
        assert isinstance(app.screen, RunScreen)
        calls = app.screen.query_one(CallTable)
        before = len(calls.item_keys)
        calls.move_to_key("phase:Fan")
        await pilot.press("enter")
        assert isinstance(app.screen, RunScreen)
        assert len(calls.item_keys) == before - 3
        row = calls.cursor_item()
        assert isinstance(row, PhaseRow) and row.folded
        assert calls.cell_text("phase:Fan", "label").startswith("▸")
        await pilot.press("enter")
        assert len(calls.item_keys) == before


def test_a_wide_pane_does_not_stretch_the_name_past_its_cap():
    from wftop.tui.widgets.columns import fit
    from wftop.tui.widgets.run_table import RUN_COLUMNS

    widths = dict((spec.key, width) for spec, width in fit(RUN_COLUMNS, 200))
    assert widths["name"] == 48
    assert [spec.key for spec, _ in fit(RUN_COLUMNS, 60)] == [
        "status",
        "name",
        "age",
        "parity",
        "dead",
    ]


async def test_help_names_the_price_data_dollars_come_from(tui_root, tui_processes):
    from importlib.metadata import version

    from textual.widgets import Static

    app = build(tui_root, tui_processes)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        shown = [str(static.render()) for static in app.screen.query(Static)]
        wanted = f"Dollars: prices: genai-prices {version('genai-prices')} (offline)"
        assert wanted in shown
