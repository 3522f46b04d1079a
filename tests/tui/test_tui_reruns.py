"""Pilot tests: the tokens spent on re-runs in the run list (column, key, total) and the
run screen."""

from __future__ import annotations

from tests.corpus import tree
from tests.tui_kit import SIZE, build, finished, ident_of, settle, table
from wftop.core.system.procs import FakeProcessTable
from wftop.tui.screens.run import RunScreen
from wftop.tui.widgets.call_table import CallTable

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


async def test_a_dead_run_shows_time_tokens_and_tools_from_its_transcripts(monkeypatch):
    """killed has no snapshot (no progress rows): the transcripts say what each agent used,
    a5 (dead in flight) included. Which agents those are is found off the loop: it walks
    every call of the run (50,000 of them cost 64 ms on the loop, twice)."""
    import threading

    import wftop.tui.screens.run as run_screen

    found_on: list[int] = []
    real = run_screen.usage_wanted
    monkeypatch.setattr(
        run_screen, "usage_wanted", lambda run: found_on.append(threading.get_ident()) or real(run)
    )
    app = build(tree("killed"), FakeProcessTable())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await finished(app)
        await pilot.pause()
        calls = app.screen.query_one(CallTable)
        keys = [key for key in calls.item_keys if key.startswith("call:")]
        shown = [
            tuple(calls.cell_text(key, column).strip() for column in ("tokens", "tools"))
            for key in keys
        ]
        # a1..a4 returned (10 in + 20 out, one StructuredOutput call); a5 died before its
        # first answer: nothing used yet, which is known, not blank
        assert shown == [("30", "1")] * 4 + [("0", "0")]
        assert all(calls.cell_text(key, "duration").strip().endswith("ms") for key in keys[:4])
    assert found_on and threading.get_ident() not in found_on
