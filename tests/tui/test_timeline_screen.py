"""``t`` on the run screen (binding id ``timeline``): the run's timeline, read in a job, on the
real ``killed-in-parallel-resumed`` tree; the runs list's ``t`` stays the RE-RUN toggle."""

from __future__ import annotations

import threading
from typing import Any

from rich.text import Text
from textual.widgets import Static

from tests.corpus import tree
from tests.tui_kit import build, finished, settle
from wftop.core.system.procs import FakeProcessTable
from wftop.tui.screens import timeline as timeline_module
from wftop.tui.screens.run import RunScreen
from wftop.tui.screens.runs import RunsScreen
from wftop.tui.screens.timeline import TimelineScreen
from wftop.tui.widgets.run_table import RunTable

TREE = "killed-in-parallel-resumed"


def static_text(screen: Any, selector: str) -> str:
    content = screen.query_one(selector, Static).content
    return content.plain if isinstance(content, Text) else str(content)


async def drawn(pilot: Any, screen: TimelineScreen) -> list[str]:
    """The lanes and bands once read, laid out and drawn."""
    for _ in range(2000):
        view = screen.view
        if view.count and all(view.text(row) is not None for row in range(view.count)):
            break
        await pilot.pause(0.01)
    await finished(pilot.app)
    await pilot.pause()
    view = screen.view
    return [view.text(row).plain for row in range(view.count)]  # type: ignore[union-attr]


async def test_t_on_the_run_screen_shows_the_timeline_read_off_the_loop(monkeypatch):
    threads = []
    read = timeline_module.read_timeline

    def recording(run, progress=None):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread() is threading.main_thread())
        return read(run, progress)

    monkeypatch.setattr(timeline_module, "read_timeline", recording)
    app = build(tree(TREE), FakeProcessTable())
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        assert isinstance(app.screen, RunScreen)
        await pilot.press("t")
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        rows = await drawn(pilot, screen)
        assert threads == [False]  # read off the loop
        header = static_text(screen, "#timeline-header")
        assert "6 calls" in header and "1 death ·" in header and "1 resume" in header
        lanes = {row.split()[0]: row for row in rows if row[:2] in ("a1", "a3", "a5")}
        assert "▒" in lanes["a3"] and "█" in lanes["a3"] and lanes["a3"].rstrip().endswith("done")
        assert lanes["a3"].index("▒") < lanes["a3"].index("█")  # the dead attempt, then the rerun
        assert "◆" in lanes["a1"] and lanes["a1"].rstrip().endswith("cached")
        bands = [row.split()[0] for row in rows if "─" in row]
        assert bands == ["Plan", "Fan", "Finish"]
        marks = static_text(screen, "#timeline-axis").splitlines()[0]
        assert marks.index("✖") < marks.index("↻")
        assert all(len(row.rstrip()) <= 60 - 2 for row in rows)  # the pane's padding aside
        await pilot.press("escape")
        assert isinstance(app.screen, RunScreen)


async def test_t_on_the_runs_list_stays_the_rerun_toggle():
    app = build(tree(TREE), FakeProcessTable())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        runs = screen.query_one(RunTable)
        before = "rerun" in runs.visible_columns
        await pilot.press("t")
        await pilot.pause()
        assert app.screen is screen
        assert ("rerun" in runs.visible_columns) != before
