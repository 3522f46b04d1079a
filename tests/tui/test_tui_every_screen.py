"""Every screen at the three pane sizes people keep wftop in: 60×20, 100×30 and 200×50.

Baselines live in ``snapshots/test_tui_every_screen/`` and are the pictures of
``docs/guide.md`` (``python -m tests.tui.guide_pictures`` copies them there). What a
reviewer should see in each, at every size:

* runs: status, name, parity and dead always; age, then the run id, then the project as
  the pane widens; a cut name ends with ``…``; the key line ends with ``q quit  ? help``.
* run: the summary lines end with ``…`` when cut, but a path's (script, cwd) starts with
  ``…`` and keeps its end; the calls keep CALL, STATE and RESULT.
* agent, journal: the header cut with ``…``; one row per line, each cut with ``…``; the
  agent's row under the cursor shown whole below the list, wrapped.
* help: the binding ids whole; descriptions wrap in a narrow pane.
* plan: the guard's verdict and ``enter resume · 1/2/3 strategy · esc close`` docked at the
  bottom of the window, the plan scrolling above them.
* copy: the choices, each cut with ``…``.
* sessions, attempts: their own key line (``? help`` included, the palette once).
* journal: the table's columns (LINE, TIME, EVENT, LABEL, #, the preview; PHASE, AGENT and KEY
  from 100 columns), ``v raw`` and ``& only`` in the key line.
* timeline: a lane per call (a1, a2, a3, a4: a3's bar ``▒`` dead to the moment the run died),
  the phases Plan and Fan as bands, ``✖`` on the axis at the death, the states at the right.

(The session report is left out: it prints the transcript's full path, which is a
temporary folder in a test.)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from tests.tui.test_tui_snapshots import app_for, loaded, viewer_ready
from tests.tui_kit import finished
from wftop.tui.navigator import run_folder
from wftop.tui.screens.agent import AgentScreen

SIZES = {"60x20": (60, 20), "100x30": (100, 30), "200x50": (200, 50)}
DEAD_RUN = "wf_cd4c7489-d27"

pytestmark = pytest.mark.usefixtures("snapshots_at_root")

Steps = Callable[[Any], Awaitable[None]]


async def settled(pilot: Any) -> None:
    """Workers done, their results applied, and what those scheduled laid out (a DataTable
    sizes its columns to new rows on a later refresh)."""
    await finished(pilot.app)
    for _ in range(3):
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()


async def on_dead_run(pilot: Any) -> None:
    await loaded(pilot)
    app = pilot.app
    ident = next(run.ident for run in app.store.rows.values() if run.run_id == DEAD_RUN)
    app.screen.query_one("RunTable").move_to_key(ident)


def pressing(*keys: str, until: Callable[[Any], bool] | None = None) -> Steps:
    """Press ``keys`` on the dead run; then wait until ``until(screen)`` holds (a screen
    that reads in a worker started from its mount)."""

    async def steps(pilot: Any) -> None:
        await on_dead_run(pilot)
        for key in keys:
            await pilot.press(key)
            await settled(pilot)
        for _ in range(2000):
            if until is None or until(pilot.app.screen):
                break
            await pilot.pause(0.01)
        await settled(pilot)

    return steps


def has_rows(selector: str) -> Callable[[Any], bool]:
    """The DataTable has rows and has sized its first column to them (it does so when idle)."""

    def ready(screen: Any) -> bool:
        if not screen.query(selector):
            return False
        table = screen.query_one(selector)
        first = next(iter(table.columns.values()), None)
        return table.row_count > 0 and first is not None and first.content_width > len("last write")

    return ready


def plotted(screen: Any) -> bool:
    return bool(screen.query("AttemptPlot")) and bool(screen.query_one("AttemptPlot").runs)


async def agent(pilot: Any) -> None:
    await loaded(pilot)
    app = pilot.app
    run = next(run for run in app.store.rows.values() if run.run_id == DEAD_RUN)
    screen = AgentScreen(app.services, run, "a5eb88c6f1aa356a8", "a3", run_folder(run))
    await app.push_screen(screen)
    await viewer_ready(pilot, screen)


async def journal(pilot: Any) -> None:
    await pressing("J")(pilot)
    await viewer_ready(pilot, pilot.app.screen)


SCREENS: dict[str, Steps] = {
    "runs": pressing(),
    "run": pressing("enter"),
    "agent": agent,
    "journal": journal,
    "help": pressing("question_mark"),
    "plan": pressing("r", until=lambda screen: getattr(screen, "plan", None) is not None),
    "copy": pressing("y"),
    "sessions": pressing("S", until=has_rows("#sessions-table")),
    "attempts": pressing("S", "p", until=plotted),
    "timeline": pressing("enter", "t", until=lambda screen: timeline_drawn(screen)),
}


def timeline_drawn(screen: Any) -> bool:
    """The timeline read, its axis laid out and the lanes in view drawn."""
    if getattr(screen, "SCREEN_NAME", "") != "timeline" or screen.timeline is None:
        return False
    view = screen.view
    return view.count > 0 and all(view.text(row) is not None for row in range(view.count))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("screen", SCREENS)
def test_screen(snap_compare, tui_root, tui_processes, screen, size):
    app = app_for(tui_root, tui_processes)
    assert snap_compare(app, run_before=SCREENS[screen], terminal_size=SIZES[size])


def test_guide_pictures_are_the_baselines():
    """docs/screens/ holds every screen at 100 and 60 columns, exactly as the baselines
    (``python -m tests.tui.guide_pictures`` copies them)."""
    from tests.tui.guide_pictures import PICTURES, pictures

    wanted = pictures()
    assert len(wanted) == 2 * len(SCREENS)
    assert set(PICTURES.glob("*.svg")) == set(wanted)
    for picture, baseline in wanted.items():
        assert picture.read_bytes() == baseline.read_bytes(), (
            f"{picture.name} is not its baseline: run python -m tests.tui.guide_pictures"
        )
