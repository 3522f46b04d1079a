"""Calm toasts: at most a title and two lines at 60 columns, the same one merged rather than
stacked, each gone by itself, and over the resume plan said inside its box (a toast would
cover its border)."""

from __future__ import annotations

from textual.widgets import Static

from tests.tui_kit import build, ident_of, settle, table, until
from wftop.tui.screens.plan import ResumePlanScreen
from wftop.tui.toasts import calm

LONG = (
    "mock-six (wf_c4e8dc39-03f) died with 1 worker in flight; its journal stops at a5, which "
    "the owner started and never returned: resume it with r, or look at the journal with J"
)


def test_a_toast_keeps_two_lines_cut_with_an_ellipsis():
    assert calm("short", 40) == "short"
    two = calm(LONG, 52)
    assert two.split("\n") == [
        "mock-six (wf_c4e8dc39-03f) died with 1 worker in",
        "flight; its journal stops at a5, which the owner…",
    ]
    assert calm("one\ntwo\nthree", 40) == "one\ntwo…"


def toasts(app):  # type: ignore[no-untyped-def]
    return list(app.screen.query("Toast"))


async def test_at_60_columns_a_toast_is_three_rows_and_the_same_one_is_merged(
    tui_root, tui_processes
):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=(60, 20), notifications=True) as pilot:
        await settle(pilot)
        app.notify(LONG, title="Run died", severity="error")
        app.notify(LONG, title="Run died", severity="error")
        await pilot.pause(0.1)
        (toast,) = toasts(app)
        assert toast.region.height == 3
        assert toast.region.width == 58
        assert [note.message for note in app.toasts] == [LONG, LONG]  # whole, for the log
        app.notify("another", title="Seen")
        await pilot.pause(0.1)
        assert len(toasts(app)) == 2


async def test_over_the_plan_a_toast_is_said_inside_its_box(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=(60, 30), notifications=True) as pilot:
        await settle(pilot)
        app.notify("said before the plan", title="Before")
        await pilot.pause(0.1)
        assert len(toasts(app)) == 1
        table(app).move_to_key(ident_of(app, "wf_cd4c7489-d27"))
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ResumePlanScreen), "the plan")
        app.notify("Press s to stop the relaunch.", title="Tripwire", severity="error")
        await pilot.pause(0.1)
        assert toasts(app) == []
        said = app.screen.query_one("#said", Static)
        assert said.display and str(said.render()) == "Tripwire: Press s to stop the relaunch."
