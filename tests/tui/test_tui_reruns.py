"""Pilot tests: the tokens spent on re-runs in the run list (column, key, total) and the
run screen."""

from __future__ import annotations

from tests.corpus import tree
from tests.tui_kit import SIZE, build, ident_of, settle, table
from wftop.core.procs import FakeProcessTable
from wftop.tui.screens.run import RunScreen

RERUN = "wf_6838482f-c9a"
"""mid-failure-resumed: its resume re-ran a4, which had returned (30 tokens)."""


async def test_the_list_shows_the_tokens_spent_twice_and_their_total():
    app = build(tree("mid-failure-resumed"), FakeProcessTable())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        runs = table(app)
        assert runs.visible_columns[-1] == "rerun"  # room at 100 columns: shown
        assert runs.cell_text(ident_of(app, RERUN), "rerun").strip() == "30"
        header = str(app.screen.query_one("#runs-header").render())
        assert header.endswith("· 30 tokens on re-runs")
        await pilot.press("t")
        assert "rerun" not in runs.visible_columns
        await pilot.press("t")
        assert "rerun" in runs.visible_columns


async def test_sixty_columns_hide_the_column_until_t_shows_it():
    app = build(tree("mid-failure-resumed"), FakeProcessTable())
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        runs = table(app)
        assert "rerun" not in runs.visible_columns
        await pilot.press("t")
        assert runs.visible_columns[-1] == "rerun"
        assert runs.cell_text(ident_of(app, RERUN), "rerun").strip() == "30"
        await pilot.press("t")
        assert "rerun" not in runs.visible_columns


async def test_the_run_screen_names_the_re_run_calls_and_their_tokens():
    app = build(tree("mid-failure-resumed"), FakeProcessTable())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        assert isinstance(app.screen, RunScreen)
        summary = str(app.screen.query_one("#run-summary").render())
        assert "re-runs  1 call ran again after returning (a4): 30 tokens spent twice" in summary
