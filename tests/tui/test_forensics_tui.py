"""The Sessions screen, its report drill-down, ``r`` on a dead workflow, and the plot."""

from __future__ import annotations

import re

from textual.widgets import DataTable, Static

from tests.corpus import copy_tree, tree
from tests.forensics_kit import fixture
from tests.tui_kit import ScreenHost, services_for
from wftop.tui.messages import OpenRunAt
from wftop.tui.screens.attempts import AttemptPlot, AttemptsScreen
from wftop.tui.screens.sessions import SessionReportScreen, SessionsScreen

SIZE = (120, 40)


def Host(roots: list[str]) -> ScreenHost:  # noqa: N802 - an app, made as its class was
    """The sessions screen on its own, over ``roots`` (a plan it asks for is only noted)."""
    return ScreenHost(SessionsScreen, services_for(roots), kept=(OpenRunAt,))


async def wait_for(pilot, condition, tries=500):
    for _ in range(tries):
        if condition():
            return
        await pilot.pause(0.01)
    raise AssertionError("condition never held")


def roots():
    return [str(fixture("bg-workers-killed")), str(fixture("api-401")), str(tree("clean"))]


async def test_sessions_list_then_report_then_resume():
    app = Host(roots())

    def opened() -> list[str]:
        return [ask.run_id for ask in app.asked if isinstance(ask, OpenRunAt)]

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
        assert opened() == []
        workers.move_cursor(row=kinds.index("workflow"))
        await pilot.press("r")
        await wait_for(pilot, lambda: opened() == ["wf_0d7d5918-9b6"])
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
    from wftop.core.config import Config
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
        assert app.screen.services.roots == (str(tui_root),)
        await pilot.press("S")
        assert not isinstance(app.screen, SessionsScreen)


async def test_a_session_under_two_roots_says_which_root(tmp_path):
    from tests.corpus import copy_tree

    one, two = copy_tree("clean", tmp_path / "one"), copy_tree("clean", tmp_path / "two")
    app = Host([str(one), str(two)])
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: len(screen.rows) == 2)
        table = screen.query_one("#sessions-table", DataTable)
        shown = sorted(str(table.get_row_at(row)[-1]) for row in range(2))
        assert [where.rsplit("(root ", 1)[-1] for where in shown] == [f"{one})", f"{two})"]


LONG = "/home/a-person-with-a-rather-long-login-name/clients/acme-corporation"


def long_cwds(tmp_path, start=LONG, ends=("backend/api", "frontend/storybook-site")):
    """Two sessions whose cwds differ only after a long common start."""
    planted = []
    for name, end in zip(("killed", "clean"), ends, strict=True):
        root = copy_tree(name, tmp_path)
        for transcript in (root / "projects").glob("*/*.jsonl"):
            text = transcript.read_text()
            transcript.write_text(re.sub(r'"cwd":"[^"]*"', f'"cwd":"{start}/{end}"', text))
        planted.append(str(root))
    return planted


def cwd_cells(screen):
    table = screen.query_one("#sessions-table", DataTable)
    return [str(table.get_row_at(row)[-1]) for row in range(table.row_count)]


async def cut_at_100_columns(app, pilot, ends):
    """The two rows' cwds, each cut from its start to what fits: the table does not scroll
    sideways."""
    await wait_for(pilot, lambda: len(app.screen.rows) == 2)
    table = app.screen.query_one("#sessions-table", DataTable)
    cut = sorted(cwd_cells(app.screen))
    assert [cell[0] for cell in cut] == ["…", "…"]
    assert [shown.endswith(end) for shown, end in zip(cut, ends, strict=True)] == [True, True], cut
    assert table.virtual_size.width <= table.scrollable_content_region.width  # no scrolling
    return table


async def test_a_cwd_of_wide_characters_is_cut_to_its_cells_not_its_characters(tmp_path):
    """A CJK name takes two cells a character: cut by characters, the cwd overflowed its
    column and the table scrolled sideways at 100 columns."""
    start, ends = (
        "/home/利用者/顧客/株式会社アクメ/開発チーム",
        ("バックエンド/接続口", "フロントエンド/見本帳"),
    )
    app = Host(long_cwds(tmp_path, start, ends))
    async with app.run_test(size=(100, 30)) as pilot:
        await cut_at_100_columns(app, pilot, [f"/{end}" for end in ends])


async def test_a_narrow_screen_shows_the_end_of_each_cwd_and_the_selected_one_whole(tmp_path):
    app = Host(long_cwds(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        ends = ["-corporation/backend/api", "/frontend/storybook-site"]
        table = await cut_at_100_columns(app, pilot, ends)
        table.move_cursor(row=1)
        await pilot.pause()
        details = str(screen.query_one("#sessions-evidence", Static).render())
        assert details.splitlines()[1] == screen.rows[1]["cwd"]
        await pilot.resize_terminal(160, 30)
        await wait_for(pilot, lambda: cwd_cells(screen)[0].startswith("/home/"))
        assert sorted(cwd_cells(screen)) == [
            f"{LONG}/backend/api",
            f"{LONG}/frontend/storybook-site",
        ]
        assert table.cursor_row == 1  # on the row it was on
