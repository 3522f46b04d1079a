"""Every screen of the TUI draws hostile text as text: the bytes the app writes to the
terminal hold no planted escape, C1 control, BEL, bidirectional control or line break.

The app runs over `tests.hostile_kit`'s tree (every hostile value planted at once) with a
driver that records what it writes (Textual's headless driver writes nothing), and is
walked through every screen: the runs list (with a row from another host whose values are
hostile too), a run with the hostile call under the cursor, the copy window, the dead call's
transcript, the journal, the resume plan, help, the sessions list, a session's report, the
attempts plot, a toast about the run. Each must show a planted value gated (``␛]52;c;…``)
and none raw; the app's own sequences (its colours, cursor moves, title) are told apart by
their shapes and by the tokens the planted values carry. The last line of defence
(`wftop.tui.net`) must not have had anything to drop: every field was gated where drawn.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from textual.drivers.headless_driver import HeadlessDriver

from tests.hostile_kit import (
    A4_AGENT,
    DEEP_AGENT,
    HOSTILE_AGENT,
    RUN,
    TEXT,
    drawn,
    hostile_tree,
    raw_leaks,
    strays,
)
from tests.tui.test_tui_snapshots import viewer_ready
from tests.tui_kit import build, changed, finished, settle
from wftop.core.model import Status
from wftop.core.row import RunRow
from wftop.core.system.procs import FakeProcessTable
from wftop.tui import net
from wftop.tui.alerts import alert_for
from wftop.tui.calls import CallRow
from wftop.tui.screens.copy import CopyScreen, resume_command, run_choices
from wftop.tui.widgets.call_table import CallTable


class Terminal:
    """What the app wrote to the terminal, and since when."""

    def __init__(self) -> None:
        self.writes: list[str] = []
        self.seen = 0

    def since(self) -> str:
        text = "".join(self.writes[self.seen :])
        self.seen = len(self.writes)
        return text


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> Terminal:
    """Textual's headless driver, made to draw (it says it is not headless) into a list."""
    recorded = Terminal()
    monkeypatch.setattr(HeadlessDriver, "is_headless", property(lambda _self: False))
    monkeypatch.setattr(HeadlessDriver, "write", lambda _self, data: recorded.writes.append(data))
    return recorded


async def until(pilot: Any, ready: Callable[[], bool]) -> None:
    for _ in range(1000):
        if ready():
            break
        await pilot.pause(0.01)
    assert ready(), "the screen never got there"
    await finished(pilot.app)
    await pilot.pause()
    await pilot.pause()


def on(app: Any, name: str) -> Callable[[], bool]:
    return lambda: getattr(app.screen, "SCREEN_NAME", "") == name


def rows_of(app: Any, selector: str) -> Callable[[], bool]:
    return lambda: bool(app.screen.query(selector)) and app.screen.query_one(selector).row_count


def hostile_remote_row(run: Any) -> Any:
    """The run as a hostile host would send its row: every text field hostile."""
    row = run.to_json()
    row.update(name=f"remote {TEXT}", run_id=f"wf_remote{TEXT}", project=TEXT, cwd=TEXT)
    row.update(in_flight=[TEXT], failed_calls=[TEXT], journal=f"/x/{TEXT}/journal.jsonl")
    return RunRow.from_json(row, host="build-box")


@pytest.mark.parametrize("size", [(60, 20), (200, 50)], ids=["60x20", "200x50"])
async def test_every_screen_draws_hostile_text_as_text(tmp_path, tui_home, terminal, size):
    tree = hostile_tree(tmp_path / "tree")
    app = build(tree.root, FakeProcessTable())
    frames: dict[str, str] = {}
    dropped = net.dropped()

    def look(name: str) -> None:
        frames[name] = terminal.since()

    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        run = next(run for run in app.store.rows.values() if run.run_id == RUN)
        changed(app, hostile_remote_row(run))
        await until(pilot, on(app, "runs"))
        look("runs")
        app.screen.query_one("RunTable").move_to_key(run.ident)
        await pilot.press("enter")
        await until(pilot, on(app, "run"))
        calls = app.screen.query_one(CallTable)
        rows = {row.agent_id: row for row in calls._items if isinstance(row, CallRow)}
        # the deep values: a4's result nested 100,000 levels, a label object as deep
        assert (rows[A4_AGENT].state, rows[DEEP_AGENT].state) == ("done", "dead")
        calls.move_to_key(rows[HOSTILE_AGENT].key)  # the hostile label and agent id
        await pilot.pause()
        look("run")
        await pilot.press("y")
        await until(pilot, on(app, "copy"))
        look("copy")
        await pilot.press("escape")
        calls.move_to_key(next(row.key for row in rows.values() if row.state == "dead"))
        await pilot.press("enter")
        await until(pilot, on(app, "agent"))
        await viewer_ready(pilot, app.screen)
        app.screen.view.action_last()  # its last words
        await until(pilot, lambda: True)
        look("agent")
        await pilot.press("escape", "J")
        await until(pilot, on(app, "journal"))
        await viewer_ready(pilot, app.screen)
        await pilot.press("enter")  # the line under the cursor, whole
        await until(pilot, lambda: True)
        look("journal")
        await pilot.press("escape", "escape", "r")
        await until(pilot, lambda: getattr(app.screen, "plan", None) is not None)
        look("plan")
        await pilot.press("escape", "question_mark")
        await until(pilot, on(app, "help"))
        look("help")
        await pilot.press("escape", "escape", "S")
        await until(pilot, rows_of(app, "#sessions-table"))
        look("sessions")
        await pilot.press("enter")
        await until(pilot, on(app, "session-report"))
        await until(pilot, lambda: app.screen.data is not None)
        look("session report")
        await pilot.press("escape", "p")
        await until(pilot, lambda: bool(app.screen.query("AttemptPlot")))
        await until(pilot, lambda: bool(app.screen.query_one("AttemptPlot").runs))
        look("attempts")
        await pilot.press("escape", "escape")
        await until(pilot, on(app, "runs"))
        app.config = dataclasses.replace(app.config, notify=True)
        alert = alert_for(dataclasses.replace(run, status=Status.RUNNING), run)
        assert alert is not None
        app.raise_alert(alert)
        await until(pilot, lambda: True)
        look("toast")
    everything = "".join(terminal.writes)
    assert raw_leaks(everything) == []
    assert strays(everything) == []
    for name, frame in frames.items():
        assert raw_leaks(frame) == [], name
        if name not in ("help", "attempts"):  # they show no planted value whole enough
            assert drawn(frame), f"{name}: no planted value drawn"
    assert "remote ␛]52;c;" in frames["runs"] or size[0] < 100
    assert net.dropped() == dropped, "the net had to drop what a screen did not gate"


async def test_the_net_drops_what_a_screen_forgot_to_gate(terminal):
    """A widget that draws raw text (no gate) still writes no control to the terminal."""
    from textual.app import App
    from textual.widgets import Static

    class Careless(App[None]):
        def compose(self):  # type: ignore[no-untyped-def]
            yield Static(f"careless {TEXT}", markup=False)

    dropped = net.dropped()
    net.install()
    async with Careless().run_test(size=(200, 10)) as pilot:
        await pilot.pause()
    everything = "".join(terminal.writes)
    assert "careless" in everything and "HOSTILE-csi8" in everything
    assert raw_leaks(everything) == [] and strays(everything) == []
    assert net.dropped() > dropped


# -- y: what is copied --------------------------------------------------------------------------


async def test_y_refuses_a_value_holding_a_control_character_and_says_why(
    tmp_path, tui_home, monkeypatch
):
    tree = hostile_tree(tmp_path / "tree")
    app = build(tree.root, FakeProcessTable())
    copied: list[str] = []
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
        run = next(run for run in app.store.rows.values() if run.run_id == RUN)
        choices = run_choices(run, HOSTILE_AGENT)
        labels = [label for label, _value in choices]
        await app.push_screen(CopyScreen(choices))
        await pilot.pause()
        await pilot.press(*["down"] * labels.index("agent id"), "enter")
        await finished(app)
        await pilot.pause()
        assert copied == []
        (note,) = list(app.toasts)
        assert note.title == "Not copied"
        assert "it holds a control character (␛)" in note.message
        await app.push_screen(CopyScreen(choices))
        await pilot.pause()
        await pilot.press(*["down"] * labels.index("run id"), "enter")
        await finished(app)
        await pilot.pause()
        assert copied == [RUN]  # a clean value is copied as it is


def test_the_resume_command_is_copied_shell_quoted(tmp_path):
    tree = hostile_tree(tmp_path / "tree")
    from wftop.core.index.coldpass import scan_roots

    (run,) = [run for run in scan_roots([str(tree.root)]).runs if run.run_id == RUN]
    assert resume_command(run) == f"wftop resume {RUN}"
    odd = dataclasses.replace(run, folder=dataclasses.replace(run.folder, run_id="wf_a b;rm -rf"))
    assert resume_command(odd) == "wftop resume 'wf_a b;rm -rf'"


async def test_a_toast_never_reads_its_text_as_markup(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.notify("[b]bold?[/b] [link=https://x]here[/link] \x1b[2J", title="[red]t\x07")
        await pilot.pause()
        (note,) = [note for note in app.toasts if "bold?" in note.message]
        assert note.message == "[b]bold?[/b] [link=https://x]here[/link] ␛[2J"
        assert note.title == "[red]t␇" and note.markup is False
