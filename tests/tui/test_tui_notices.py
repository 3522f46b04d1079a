"""The TUI's notifications and its runs marked seen: a run's death goes out on the channels
(once, not while its screen is shown), ``a`` and ``A`` mark runs seen (the title's count
drops, the row is dimmed, ``wftop status`` reads the same marks), ``--read-only`` keeps them
for the session."""

from __future__ import annotations

import dataclasses
import threading

from tests.tui_kit import SIZE, build, changed, ident_of, settle, table, until
from wftop.core.attention import RunState
from wftop.core.model import Status
from wftop.core.notify.acks import Acks
from wftop.core.notify.events import Event
from wftop.core.notify.ledger import MemoryLedger
from wftop.core.notify.notifier import Notifier
from wftop.core.notify.settings import NotifySettings
from wftop.core.row import RunRow
from wftop.tui.notices import state_of
from wftop.tui.screens.run import RunScreen
from wftop.tui.widgets.run_table import RunTable

RUNNING = "wf_1a8e2cea-7df"
"""The run with a live owner in the TUI's tree (`tests.conftest.tui_root`)."""


class Heard:
    """A channel that keeps what it was sent."""

    name = "heard"

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.lock = threading.Lock()

    def send(self, event: Event) -> None:
        with self.lock:
            self.events.append(event)


def dimmed(runs: RunTable, row: RunRow) -> bool:
    """The row's name and status cells are drawn dim."""
    layout = [(spec, 12) for spec in runs.columns() if spec.key in ("name", "status")]
    return all(
        any("dim" in str(span.style) for span in cell.spans) for cell in runs.cells(row, layout)
    )


def notifier(heard: Heard) -> Notifier:
    return Notifier(NotifySettings(), [heard], MemoryLedger(), report=lambda line: None)


async def test_a_death_is_told_on_the_channels_unless_its_screen_is_shown(tui_root, tui_processes):
    heard = Heard()
    app = build(tui_root, tui_processes, notifier=notifier(heard))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await until(pilot, lambda: app.notices.notifier is not None, "the notifier")
        ident = ident_of(app, RUNNING)
        running = app.store.rows[ident]
        changed(app, dataclasses.replace(running, status=Status.DEAD, dead_workers=1))
        await until(pilot, lambda: bool(heard.events), "the death told")
        (event,) = heard.events
        assert (event.kind.value, event.ident, event.before, event.after) == (
            "died",
            ident,
            "running",
            "dead",
        )
        changed(app, running)  # resumed: running again
        await pilot.pause(0.1)
        app.push_screen(RunScreen(app.store, app.services, ident))
        await until(pilot, lambda: app.shown_run() == ident, "the run's screen shown")
        changed(app, dataclasses.replace(running, status=Status.STALLED))
        await pilot.pause(0.3)
        assert [event.kind.value for event in heard.events] == ["died"]


async def test_a_marks_the_run_seen_and_A_every_run_that_needs_you(
    tui_root, tui_processes, tmp_path, monkeypatch
):
    monkeypatch.setenv("WFTOP_STATE_DIR", str(tmp_path / "state"))
    app = build(tui_root, tui_processes, notifier=notifier(Heard()))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await until(pilot, lambda: app.notices.notifier is not None, "the marks read")
        window = app.config.attention_window
        needy = app.store.needing(app.services.clock(), window)
        assert len(needy) == app.attention() >= 2
        await until(pilot, lambda: app.terminal_title == f"wftop · {len(needy)} need attention")
        runs = table(app)
        first = needy[0]
        runs.move_cursor(runs.item_keys.index(first.ident))
        await pilot.press("a")
        await until(pilot, lambda: app.attention() == len(needy) - 1, "one run seen")
        told = f"wftop · {len(needy) - 1} need attention"
        await until(pilot, lambda: app.terminal_title == told, "the title told one less")
        await until(pilot, lambda: dimmed(runs, first), "the seen run dimmed")
        assert not dimmed(runs, needy[1])
        await pilot.press("A")
        await until(pilot, lambda: app.attention() == 0, "every run seen")
        await until(pilot, lambda: app.terminal_title == "wftop", "the title told none")
        assert set(app.store.rows) >= {row.ident for row in needy}  # still listed
    marks = Acks(tmp_path / "state").load()
    assert all(marks.seen(state_of(row)) for row in needy)


async def test_read_only_marks_last_the_session(tui_root, tui_processes, tmp_path, monkeypatch):
    monkeypatch.setenv("WFTOP_STATE_DIR", str(tmp_path / "state"))
    app = build(tui_root, tui_processes, notifier=notifier(Heard()), read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await until(pilot, lambda: app.notices.notifier is not None, "the notifier")
        count = app.attention()
        await pilot.press("A")
        await until(pilot, lambda: app.attention() == 0, "every run seen")
        assert count > 0
    assert not (tmp_path / "state").exists()


class Silent:
    """An engine that never answers: the list is never drawn."""

    async def connect(self):  # type: ignore[no-untyped-def]
        import asyncio

        await asyncio.Event().wait()


async def test_the_marks_are_read_at_the_start_and_the_notifier_made_once_the_list_is_drawn(
    tui_root, tui_processes, tmp_path, monkeypatch
):
    """What the notifier imports and asks (tmux) is not the first frame's, and nothing is
    told before the list: it is made once the list is drawn. The marks dim the list's runs:
    they are read as the app starts."""
    monkeypatch.setenv("WFTOP_STATE_DIR", str(tmp_path / "state"))
    marked = RunState("an-ident", "wf_0000", "dead", 1.0)
    Acks(tmp_path / "state").ack([marked], now=2.0)
    waiting = build(tui_root, tui_processes, notifier=notifier(Heard()), connector=Silent())
    async with waiting.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: waiting.notices.acks.seen(marked), "the marks read")
        await pilot.pause(0.3)
        assert waiting.notices.notifier is None and not waiting.store.progress.loaded
    app = build(tui_root, tui_processes, notifier=notifier(Heard()))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await until(pilot, lambda: app.notices.notifier is not None, "the notifier")


def test_a_run_no_mark_names_is_unseen_without_its_state_made(monkeypatch):
    """The title asks whether each run within the attention window is marked seen at every
    change of the store: a run no mark names is unseen by its ident alone, and a marked
    one is seen only as it stood when marked."""
    from tests.tui.test_tui_units import only_row
    from wftop.tui import notices as module

    made: list[str] = []

    def counted(row: RunRow) -> RunState:
        made.append(row.run_id)
        return state_of(row)

    monkeypatch.setattr(module, "state_of", counted)
    notices = module.Notices(0.0, None)
    marked = only_row("killed")
    others = [dataclasses.replace(marked, run_id=f"wf_{number:08x}-000") for number in range(50)]
    notices.acks.ack([state_of(marked)], 100.0)
    assert notices.seen(marked)
    assert not any(notices.seen(row) for row in others)
    assert made == [marked.run_id]
    assert not notices.seen(dataclasses.replace(marked, status=Status.STALLED))
    later = (marked.last_activity or 0.0) + 60.0
    assert not notices.seen(dataclasses.replace(marked, last_activity=later))


def test_a_run_first_seen_idle_since_before_the_start_makes_no_event_and_no_facts():
    """The last rows of a first read come with the moment every run is known: a run first
    seen that was last active before the app started makes no event, told without the rules
    of telling made; one active since is told as before."""
    from tests.tui.test_tui_units import only_row
    from wftop.tui.notices import Notices

    run = dataclasses.replace(only_row("killed"), status=Status.DEAD)
    last = run.last_activity or 0.0
    notices = Notices(last + 60.0, None)
    assert notices.event(None, run, last + 120.0) is None
    assert notices.event(None, dataclasses.replace(run, last_activity=None), last + 120.0) is None
    assert notices._telling is None  # noqa: SLF001 - the rules were not made for them
    since = dataclasses.replace(run, last_activity=last + 90.0)
    event = notices.event(None, since, last + 120.0)
    assert event is not None and event.ident == run.ident
