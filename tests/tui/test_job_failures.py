"""Background work, one discipline: a failure of any job (the app's, a screen's, a widget's)
reaches the user as a toast and the log and never ends the app; a superseded result is
dropped."""

from __future__ import annotations

import threading
from pathlib import Path

from tests.tui_kit import SIZE, build, finished, ident_of, settle, table, until
from wftop.core.index.details import Details
from wftop.core.read.lineindex import LineIndex
from wftop.tui.log import log_path
from wftop.tui.screens.journal import JournalScreen
from wftop.tui.screens.run import RunScreen

DEAD = "wf_cd4c7489-d27"


async def test_a_screens_job_that_fails_is_a_toast_and_a_logged_traceback(
    tui_root, tui_processes, monkeypatch
):
    def broken(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise OSError("the disk went away")

    monkeypatch.setattr(Details, "read", broken)
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table(app).move_to_key(ident_of(app, DEAD))
        await pilot.press("enter")
        assert isinstance(app.screen, RunScreen)
        await until(pilot, lambda: any(t.title == "Couldn't read the run" for t in app.toasts))
        (toast,) = [t for t in app.toasts if t.title == "Couldn't read the run"]
        assert toast.severity == "error" and "OSError: the disk went away" in toast.message
        logged = Path(log_path()).read_text()
        assert "Couldn't read the run: OSError: the disk went away" in logged
        assert "Traceback" in logged and "broken" in logged
        await pilot.press("escape")  # the app goes on
        assert app.is_running and app.screen.SCREEN_NAME == "runs"  # type: ignore[attr-defined]


async def test_a_widgets_job_that_fails_is_a_toast(tui_root, tui_processes, monkeypatch):
    def broken(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise ValueError("a torn block")

    monkeypatch.setattr(LineIndex, "read_rows", broken)
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table(app).move_to_key(ident_of(app, DEAD))
        await pilot.press("J")
        assert isinstance(app.screen, JournalScreen)
        await until(pilot, lambda: any("a torn block" in t.message for t in app.toasts))
        said = {(t.title, t.severity) for t in app.toasts if "a torn block" in t.message}
        assert said == {("Couldn't read the file's lines", "error")}
        assert app.is_running


async def test_a_superseded_result_is_dropped(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        applied: list[str] = []
        let_go = threading.Event()

        def slow() -> str:
            assert let_go.wait(10)
            return "first"

        app.jobs.start("look", slow, applied.append, what="Couldn't look")
        app.jobs.start("look", lambda: "second", applied.append, what="Couldn't look")
        await until(pilot, lambda: applied == ["second"])
        let_go.set()
        await finished(app)
        await pilot.pause()
        assert applied == ["second"] and not app.jobs.busy("look")
