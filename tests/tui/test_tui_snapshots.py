"""Pictures of the screens on fixed data, a fixed clock and a fixed terminal size.

Baselines live in the top-level ``snapshots/`` folder (see the ``snapshots_at_root``
fixture). Each test says what a reviewer should see in its SVG.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui_kit import build, finished, ident_of
from wftop.core.config import Config
from wftop.tui.navigator import run_folder
from wftop.tui.screens.agent import AgentScreen
from wftop.tui.screens.journal import JournalScreen

SIZE = (100, 30)
NARROW = (60, 20)
SMALL = (80, 24)

pytestmark = pytest.mark.usefixtures("snapshots_at_root")


def app_for(root: Path, processes):  # type: ignore[no-untyped-def]
    return build(root, processes, config=Config(bell=False, notify=False))


async def loaded(pilot) -> None:  # type: ignore[no-untyped-def]
    for _ in range(2000):
        if pilot.app.store.progress.known:
            break
        await pilot.pause(0.01)
    await pilot.pause()


async def viewer_ready(pilot, screen) -> None:  # type: ignore[no-untyped-def]
    """The file indexed, the rows in view read and the row under the cursor shown whole."""
    for _ in range(2000):
        view = screen.view
        shown = range(min(view.count, view.page))
        if screen.indexed and all(view.text(row) is not None for row in shown):
            break
        await pilot.pause(0.01)
    await finished(pilot.app)
    await pilot.pause()


def test_runs_every_status(snap_compare, tui_root, tui_processes):
    """Nine runs, newest first: running, dead, stalled, two completed, one partial
    (completed with a3 failed: ⚠), failed, killed, superseded; counts line reads 1 running ·
    1 stalled · 1 dead · 2 completed · 1 failed · 1 partial · 1 killed · 1 superseded; parity
    bars show ░ for in flight and ✗ for failed calls; the dead run has 1 in the DEAD column."""
    assert snap_compare(app_for(tui_root, tui_processes), run_before=loaded, terminal_size=SIZE)


def test_runs_at_80_by_24(snap_compare, tui_root, tui_processes):
    """At 80 columns the PROJECT column is dropped; status, name, run, age, parity and dead
    stay; nothing wraps. The counts line keeps the words of what needs you (stalled, dead,
    failed, partial) and shows the others as icons."""
    assert snap_compare(app_for(tui_root, tui_processes), run_before=loaded, terminal_size=SMALL)


def test_runs_narrow_pane(snap_compare, tui_root, tui_processes):
    """A 60-column pane keeps status, name, age, the parity cell and the dead count; the
    counts line is cut with an ellipsis, not wrapped; the key line ends with q quit ? help."""
    assert snap_compare(app_for(tui_root, tui_processes), run_before=loaded, terminal_size=NARROW)


def test_runs_grouped_by_status(snap_compare, tui_root, tui_processes):
    """v groups by status, what needs attention first: dead, stalled, failed, partial,
    running …"""
    app = app_for(tui_root, tui_processes)
    assert snap_compare(app, run_before=loaded, press=["v"], terminal_size=SIZE)


def test_run_killed_in_parallel(snap_compare, tui_root, tui_processes):
    """The killed-in-parallel run: 4 started · 3 returned · 0 failed; a3 is a dead worker in
    the Fan phase; a1, a2, a4 done with their results; no snapshot, so the args line was
    read from the session transcript (the run had none: "-"), and TIME, TOKENS and TOOLS
    from the agents' transcripts (30 tokens and 1 tool call each; a3 died before answering:
    0 and 0)."""
    app = app_for(tui_root, tui_processes)

    async def open_run(pilot) -> None:  # type: ignore[no-untyped-def]
        await loaded(pilot)
        ident = ident_of(app, "wf_cd4c7489-d27")
        pilot.app.screen.query_one("RunTable").move_to_key(ident)
        await pilot.press("enter")
        await finished(pilot.app)  # the args, read from the transcript
        await pilot.pause()

    assert snap_compare(app, run_before=open_run, terminal_size=SIZE)


def test_agent_with_a_masked_secret(snap_compare, tui_root, tui_processes):
    """a3's transcript, one row per line of conversation: the prompt without the harness
    framing, with the injected key shown as [masked:anthropic_key], in the row and whole below
    it; the header counts 1 masked (anthropic_key ×1) and 1 line of conversation."""
    (transcript,) = tui_root.glob("projects/*/cb526ab9-*/subagents/workflows/*/agent-a5eb*.jsonl")
    text = transcript.read_text()
    transcript.write_text(
        text.replace(
            "Part three.", "Part three. Call it with sk-ant-api03-FAKE0123456789abcdef.", 1
        )
    )
    app = app_for(tui_root, tui_processes)

    async def open_agent(pilot) -> None:  # type: ignore[no-untyped-def]
        await loaded(pilot)
        run = next(run for run in app.store.rows.values() if run.run_id == "wf_cd4c7489-d27")
        screen = AgentScreen(app.services, run, "a5eb88c6f1aa356a8", "a3", run_folder(run))
        await pilot.app.push_screen(screen)
        await viewer_ready(pilot, screen)

    assert snap_compare(app, run_before=open_agent, terminal_size=SIZE)


def test_help_on_the_runs_screen(snap_compare, tui_root, tui_processes):
    """? over the runs screen: its keys (open, resume, copy, journal, filter, status, project,
    group, sort …) then the general ones (quit, help, palette, back, j/k)."""
    app = app_for(tui_root, tui_processes)
    assert snap_compare(app, run_before=loaded, press=["question_mark"], terminal_size=SIZE)


def test_agent_with_an_api_error(snap_compare, tui_root, tui_processes):
    """a6 of the api-errors-429 run: its prompt ("Check: a5"), then the API error 429 ·
    rate_limit_error in the error colour; 0 masked; the prompt shown whole below."""
    app = app_for(tui_root, tui_processes)

    async def open_agent(pilot) -> None:  # type: ignore[no-untyped-def]
        await loaded(pilot)
        run = next(run for run in app.store.rows.values() if run.run_id == "wf_44b36b23-fcc")
        screen = AgentScreen(app.services, run, "ac21a94c7efc8ce9e", "a6", run_folder(run))
        await pilot.app.push_screen(screen)
        await viewer_ready(pilot, screen)

    assert snap_compare(app, run_before=open_agent, terminal_size=SIZE)


def open_journal(app, run_id: str, keys: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await loaded(pilot)
        run = next(run for run in app.store.rows.values() if run.run_id == run_id)
        screen = JournalScreen(app.services, run, run.journal)
        await pilot.app.push_screen(screen)
        await viewer_ready(pilot, screen)
        for key in keys:
            await pilot.press(key)
            await viewer_ready(pilot, screen)

    return run_before


def test_journal_one_line_per_row(snap_compare, tui_root, tui_processes):
    """The killed-in-parallel journal: the header says journal · 8 lines · its path; each row
    is one line, its number, its type, then label, agentId and the rest, cut with …; the
    cursor on line 1."""
    app = app_for(tui_root, tui_processes)
    run_before = open_journal(app, "wf_cd4c7489-d27")
    assert snap_compare(app, run_before=run_before, terminal_size=SIZE)


def test_journal_narrow_with_a_line_shown_whole(snap_compare, tui_root, tui_processes):
    """At 60×20, G then enter: the cursor on line 8 (a4's result), every row cut with …,
    and line 8 pretty-printed below the list."""
    app = app_for(tui_root, tui_processes)
    run_before = open_journal(app, "wf_cd4c7489-d27", ("G", "enter"))
    assert snap_compare(app, run_before=run_before, terminal_size=NARROW)


def test_plan_table_at_60_columns(snap_compare, tui_root, tui_processes):
    """r on the dead run in a 60-column pane tall enough for the whole plan: the table of
    strategies keeps STRATEGY, CACHE, LIVE, RISK, FORECAST and DOLLARS (the tokens give way),
    the selected resume-owner row is marked ▶ and bold and starred as the
    recommended one, each row reads 3 from cache, 1+ live, estimate, ≥ $0.0004; the plain line
    under it wraps inside the box (at 100 and 200 columns: the every-screen plan pictures)."""
    from tests.tui.test_tui_every_screen import SCREENS

    app = app_for(tui_root, tui_processes)
    assert snap_compare(app, run_before=SCREENS["plan"], terminal_size=(60, 40))
