"""The journal and transcript screens on large files: the first rows without reading the
whole file, search far down, keys that move like less, and lines appended while open."""

from __future__ import annotations

import orjson
import pytest

from tests.tui_kit import SIZE, build, settle
from wftop.tui.screens import journal as journal_screen
from wftop.tui.screens.journal import JournalScreen

RUN_ID = "wf_cd4c7489-d27"
GROWN = 50_000


def grow(path: str, lines: int, needle_at: int | None = None) -> None:
    """Append ``lines`` started/result lines (and a needle on line ``needle_at``)."""
    with open(path, "rb") as handle:
        before = handle.read().count(b"\n")
    out = []
    for number in range(before + 1, before + lines + 1):
        label = "NEEDLE-far" if number == needle_at else f"c{number}"
        record = {"type": "started", "key": f"v2:{number}", "agentId": f"a{number}", "label": label}
        out.append(orjson.dumps(record))
    with open(path, "ab") as handle:
        handle.write(b"\n".join(out) + b"\n")


async def open_journal(app, pilot) -> JournalScreen:  # type: ignore[no-untyped-def]
    run = next(run for run in app.runs.values() if run.run_id == RUN_ID)
    screen = JournalScreen(run)
    await app.push_screen(screen)
    await until(pilot, lambda: screen.indexed and screen.view.text(0) is not None)
    return screen


async def until(pilot, condition) -> None:  # type: ignore[no-untyped-def]
    for _ in range(1000):
        if condition():
            return
        await pilot.pause(0.01)
    raise AssertionError("not reached")


@pytest.fixture
def counted(monkeypatch):
    """How many lines the journal screen asked the reader to parse."""
    calls: list[int] = []
    real = journal_screen.line_verdict

    def counting(raw: bytes, size: int, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(size)
        return real(raw, size, **kwargs)

    monkeypatch.setattr(journal_screen, "line_verdict", counting)
    return calls


def journal_of(app) -> str:  # type: ignore[no-untyped-def]
    return next(run for run in app.runs.values() if run.run_id == RUN_ID).folder.journal


async def test_a_large_journal_shows_its_first_lines_parsing_only_those(
    tui_root, tui_processes, counted
):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        grow(journal_of(app), GROWN)
        screen = await open_journal(app, pilot)
        await pilot.app.workers.wait_for_complete()
        assert screen.view.count == 8 + GROWN
        assert "launched" in screen.view.text(0).plain
        assert 0 < len(counted) <= 4 * screen.view.page
        await pilot.press("end")
        await until(pilot, lambda: screen.view.text(screen.view.count - 1) is not None)
        assert f"c{8 + GROWN}" in screen.view.text(screen.view.count - 1).plain
        assert len(counted) <= 8 * screen.view.page


async def test_search_finds_a_line_far_down_and_n_and_N_go_on(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        grow(journal_of(app), GROWN, needle_at=40_000)
        screen = await open_journal(app, pilot)
        await pilot.press("slash", *"needle-far", "enter")
        await until(pilot, lambda: screen.view.cursor == 40_000 - 1)
        await until(pilot, lambda: screen.view.text(40_000 - 1) is not None)
        assert "NEEDLE-far" in screen.view.text(40_000 - 1).plain
        await pilot.press("g", "g")
        assert screen.view.cursor == 0
        await pilot.press("N")  # backward from the top wraps to the same line
        await until(pilot, lambda: screen.view.cursor == 40_000 - 1)
        await pilot.press("slash", *"NEEDLE-FAR", "enter")  # a capital: exact case only
        await pilot.pause(0.3)
        await pilot.app.workers.wait_for_complete()
        assert screen.view.cursor == 40_000 - 1
        assert any("not found: NEEDLE-FAR" in note.message for note in app._notifications)


async def test_keys_move_as_in_less(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        grow(journal_of(app), 500)
        screen = await open_journal(app, pilot)
        view = screen.view
        await pilot.press("ctrl+d")
        assert view.cursor == view.page // 2
        await pilot.press("ctrl+u")
        assert view.cursor == 0
        await pilot.press("pagedown")
        assert view.cursor == view.page
        await pilot.press("G")
        assert view.cursor == view.count - 1
        await pilot.press("g", "g")  # as less and vim users type it
        assert view.cursor == 0
        await pilot.press("end")
        assert view.cursor == view.count - 1
        await pilot.press("g")  # one g: the top, as on the lists
        assert view.cursor == 0


async def test_lines_appended_while_open_show_and_the_cursor_follows(tui_root, tui_processes):
    app = build(tui_root, tui_processes, live=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_journal(app, pilot)
        await pilot.press("G")
        assert screen.view.cursor == 7
        with open(screen.path, "ab") as handle:
            handle.write(b'{"type":"started","key":"v2:x","agentId":"ax","label":"late"}\n')
        await until(pilot, lambda: screen.view.text(8) is not None)
        assert screen.view.cursor == 8
        assert '"label":"late"' in screen.view.text(8).plain
        assert "9 lines" in str(screen.header())
