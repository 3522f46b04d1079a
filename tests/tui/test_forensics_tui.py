"""The Sessions screen, its report drill-down, ``r`` on a dead workflow, and the plot."""

from __future__ import annotations

from textual.app import App
from textual.widgets import DataTable, Static

from tests.corpus import tree
from tests.forensics_kit import fixture
from wftop.core.system.procs import FakeProcessTable
from wftop.tui.screens.attempts import AttemptPlot, AttemptsScreen
from wftop.tui.screens.sessions import SessionReportScreen, SessionsScreen

SIZE = (120, 40)


class FakeIndex:
    def __init__(self, roots):
        self.roots = roots

    def get(self, ident):
        return None


class Host(App[None]):
    def __init__(self, roots):
        super().__init__()
        self.index = FakeIndex(roots)

    def on_mount(self) -> None:
        self.push_screen(SessionsScreen(processes=FakeProcessTable()))


async def wait_for(pilot, condition, tries=500):
    for _ in range(tries):
        if condition():
            return
        await pilot.pause(0.01)
    raise AssertionError("condition never held")


def roots():
    return [str(fixture("bg-workers-killed")), str(fixture("api-401")), str(tree("clean"))]


async def test_sessions_list_then_report_then_resume(monkeypatch):
    opened = []
    monkeypatch.setattr(
        "wftop.tui.screens.plan.open_resume_plan", lambda app, run: opened.append(run.run_id)
    )
    app = Host(roots())
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        await wait_for(pilot, lambda: len(screen.rows) == 3)
        table = screen.query_one("#sessions-table", DataTable)
        assert table.row_count == 3
        causes = {row["session_id"][:8]: (row["dead"], row["cause"]) for row in screen.rows}
        assert causes["d81d4d64"] == (1, "auth_expired")
        assert causes["fd368cff"] == (3, "clean_or_unknown")
        table.move_cursor(row=[r["session_id"][:8] for r in screen.rows].index("fd368cff"))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionReportScreen))
        report = app.screen
        await wait_for(pilot, lambda: report.data is not None)
        workers = report.query_one("#report-workers", DataTable)
        kinds = [worker["kind"] for worker in report.data["dead_workers"]]
        assert workers.row_count == 3
        body = str(report.query_one("#report-text", Static).render())
        assert "TERMINATION" in body and "shape matching, not a guarantee" in body
        workers.move_cursor(row=kinds.index("agent"))
        await pilot.press("r")
        assert opened == []
        workers.move_cursor(row=kinds.index("workflow"))
        await pilot.press("r")
        await wait_for(pilot, lambda: opened == ["wf_0d7d5918-9b6"])
        await pilot.press("escape")
        assert isinstance(app.screen, SessionsScreen)


async def test_plot_has_a_row_per_run_and_a_dot_per_attempt():
    app = Host([str(tree("mid-failure-resumed")), str(tree("killed"))])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, AttemptsScreen))
        plot = app.screen.query_one(AttemptPlot)
        await wait_for(pilot, lambda: len(plot.runs) == 2)
        text = plot.render_plot(100).plain
        lines = text.splitlines()
        assert len(lines) == 2
        assert lines[0].count("●") + lines[0].count("○") in (5, 10)
        assert "●●○●●●●●●●" in text and "●●●●○" in text
        header = str(app.screen.query_one("#attempts-header", Static).render())
        assert "1 resumes re-ran completed calls" in header


async def test_the_app_opens_sessions_with_S_and_from_the_palette(tui_root, tui_processes):
    from tests.conftest import TUI_NOW
    from wftop.tui.config import Config
    from wftop.tui.start import make_app

    app = make_app(
        [str(tui_root)],
        config=Config(bell=False),
        processes=tui_processes,
        now=lambda: TUI_NOW,
        live=False,
    )
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Sessions" in titles
        await pilot.press("S")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen))
        assert app.screen.roots == [str(tui_root)]
        await pilot.press("S")
        assert not isinstance(app.screen, SessionsScreen)
