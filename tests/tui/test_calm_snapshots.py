"""Pictures of what a person meets first and what tells them something: toasts at 60
columns (a death, the demo's banner), the first run's list, the plan under read-only.

Baselines live in ``snapshots/test_calm_snapshots/`` (the ``snapshots_at_root`` fixture);
each test says what a reviewer should see in its SVG.
"""

from __future__ import annotations

import argparse
import dataclasses

import pytest
from textual.widgets import Static

from tests.tui_kit import build, changed, finished, ident_of, settle, table, until
from wftop.cli.commands.demo import why_read_only
from wftop.core.model import Status
from wftop.core.notify.ledger import MemoryLedger
from wftop.core.notify.notifier import Notifier
from wftop.core.notify.settings import NotifySettings
from wftop.core.system.procs import FakeProcessTable
from wftop.tui.screens.plan import ResumePlanScreen

NARROW = (60, 20)
SIZE = (100, 30)
DEAD = "wf_cd4c7489-d27"
"""The dead run of the TUI's tree (`tests.conftest.tui_root`)."""
RUNNING = "wf_1a8e2cea-7df"
"""Its run with a live owner."""


def quiet() -> Notifier:
    """A notifier with no channel: nothing leaves the test, the app rings no bell of its own."""
    return Notifier(NotifySettings(), [], MemoryLedger(), report=lambda line: None)


pytestmark = pytest.mark.usefixtures("snapshots_at_root")


def test_a_death_toast_at_60_columns(snap_compare, tui_root, tui_processes):
    """The list at 60 by 20 just after its running run died: the top row reads ✖ dead and
    the counts line ✖2; above the key bar the toast, 58 columns wide with a red bar on its
    left, says 'Run died' and 'mock-six (wf_1a8e2cea-7df) died with 1 worker in flight' in
    two rows; the key bar and every row of the table stay whole around it."""
    app = build(tui_root, tui_processes, notifier=quiet())

    async def died(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        running = app.store.rows[ident_of(app, RUNNING)]
        changed(app, dataclasses.replace(running, status=Status.DEAD, dead_workers=1))
        await until(pilot, lambda: app.toasts, "the toast")
        assert app.toasts[-1].title == "Run died"

    assert snap_compare(app, run_before=died, terminal_size=NARROW)


def test_the_demo_banner_at_60_columns(snap_compare, tui_root, tui_processes):
    """The bundled demo's banner (no claude CLI) at 60 by 20: its title 'wftop demo:
    read-only' and two lines of its text cut with …, no more; the list's header starts
    with the same title, which stays there once the toast has gone; the key bar says r plan."""
    banner, reason = why_read_only(argparse.Namespace(read_only=False, bundled=False))
    app = build(
        tui_root,
        tui_processes,
        read_only=True,
        banner=("wftop demo: read-only", banner),
        read_only_reason=reason,
    )

    async def shown(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await until(pilot, lambda: app.toasts, "the banner")

    assert snap_compare(app, run_before=shown, terminal_size=NARROW)


def test_the_first_run_list_at_60_columns(snap_compare, tui_home):
    """No ~/.claude: the list at 60 by 20 is empty, its counts line all zero, and four lines
    above the key bar say, whole, 'No ~/.claude here: Claude Code has not run on this machine
    yet. wftop keeps watching; runs show up here as they come. Another config dir: wftop
    --root DIR. To see wftop at work: wftop demo.'"""
    app = build(tui_home / ".claude", FakeProcessTable())
    assert snap_compare(app, run_before=settle, terminal_size=NARROW)


def test_the_read_only_plan(snap_compare, tui_root, tui_processes):
    """r on the dead run under --read-only opens the plan, not a toast: the instant
    forecast's table, the guard and the cost; the verdict ends with 'launching is off: wftop
    was started with --read-only.'; the plan's key line offers no enter resume, no f and no s;
    the box's border is whole."""
    app = build(tui_root, tui_processes, read_only=True)

    async def planned(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        table(app).move_to_key(ident_of(app, DEAD))
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ResumePlanScreen), "the plan")
        verdict = app.screen.query_one("#verdict", Static)
        await until(pilot, lambda: "launching is off" in str(verdict.render()), "the verdict")
        await finished(app)
        await pilot.pause()

    assert snap_compare(app, run_before=planned, terminal_size=SIZE)
