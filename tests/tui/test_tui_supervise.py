"""The TUI's side of ``wftop supervise``: ``m`` marks the run under the cursor auto (the row
says so, the supervisor's state holds it), ``M`` shows what the supervisor decided."""

from __future__ import annotations

from tests.tui_kit import SIZE, build, ident_of, settle, table, until
from wftop.core.supervise.audit import AuditLine
from wftop.core.supervise.state import SuperviseStore
from wftop.tui.screens.supervisor import SupervisorScreen

RUN = "wf_cd4c7489-d27"


def name_cell(app, ident: str) -> str:  # type: ignore[no-untyped-def]
    grid = table(app)
    run = app.store.rows[ident]
    return grid._cell(run, "name", 40).plain


async def test_m_marks_the_run_auto_and_m_again_takes_the_mark_off(tui_root, tui_processes):
    store = SuperviseStore()
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        ident = ident_of(app, RUN)
        table(app).move_to_key(ident)
        assert not name_cell(app, ident).startswith("auto ")
        await pilot.press("m")
        await until(pilot, lambda: name_cell(app, ident).startswith("auto "))
        run = app.store.rows[ident]
        assert store.read_state().marked(RUN, run.root)
        assert any(f"wftop supervise may resume {RUN}" in n.message for n in app.toasts)
        await pilot.press("m")
        await until(pilot, lambda: not name_cell(app, ident).startswith("auto "))
        assert store.read_state().marks == ()


async def test_marks_made_elsewhere_show_when_the_list_opens(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        ident = ident_of(app, RUN)
        root = app.store.rows[ident].root
    SuperviseStore().toggle(RUN, root)
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await until(pilot, lambda: name_cell(app, ident).startswith("auto "))


async def test_read_only_refuses_to_mark(tui_root, tui_processes):
    app = build(tui_root, tui_processes, read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await pilot.pause(0.2)
        assert any("read-only" in note.message for note in app.toasts)
    assert SuperviseStore().read_state().marks == ()


async def test_a_state_file_wftop_cannot_use_is_said_and_left_alone(tui_root, tui_processes):
    store = SuperviseStore()
    store.folder.mkdir(parents=True)
    store.state_path.write_text("not a state")
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await until(pilot, lambda: any("state.json:1:" in n.message for n in app.toasts))
    assert store.state_path.read_text() == "not a state"


async def test_M_shows_the_supervisors_decisions(tui_root, tui_processes):
    store = SuperviseStore()
    store.audit.append(
        AuditLine(1_800_000_000.0, RUN, "refused", "no cap (--max-usd, or [supervise] max_usd)")
    )
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("M")
        screen = app.screen
        assert isinstance(screen, SupervisorScreen)

        def shown() -> str:
            return str(screen.query_one("#supervisor-log").render())

        await until(pilot, lambda: RUN in shown())
        assert "refused     no cap (--max-usd" in shown()
        header = str(screen.query_one("#supervisor-header").render())
        assert header.startswith("supervisor not running")
        await pilot.press("escape")
        assert not isinstance(app.screen, SupervisorScreen)
