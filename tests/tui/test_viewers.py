"""The journal and transcript screens on large files: the first rows without reading the
whole file, search far down, keys that move like less, and lines appended while open."""

from __future__ import annotations

import threading

import orjson
import pytest

from tests.tui_kit import SIZE, build, finished, settle, until
from wftop.tui.screens import journal as journal_screen
from wftop.tui.screens.journal import JournalScreen
from wftop.tui.widgets import line_view
from wftop.tui.widgets.key_bar import KeyBar
from wftop.tui.widgets.line_view import LineView, missing_spans

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
    run = next(run for run in app.store.rows.values() if run.run_id == RUN_ID)
    screen = JournalScreen(app.services, run, run.journal)
    await app.push_screen(screen)
    await until(pilot, lambda: screen.indexed and screen.view.text(0) is not None)
    return screen


async def grown(app, pilot, lines: int, needle_at: int | None = None) -> JournalScreen:  # type: ignore[no-untyped-def]
    """The app settled, its test journal grown by ``lines`` lines, its journal screen open."""
    await settle(pilot)
    grow(journal_of(app), lines, needle_at)
    return await open_journal(app, pilot)


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
    return next(run for run in app.store.rows.values() if run.run_id == RUN_ID).journal


async def test_a_large_journal_shows_its_first_lines_parsing_only_those(
    tui_root, tui_processes, counted
):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        screen = await grown(app, pilot, GROWN)
        await finished(pilot.app)
        assert screen.view.count == 8 + GROWN
        assert "launched" in screen.view.text(0).plain
        # the rows in view, drawn again once the run's calls are read (a result line's label)
        assert 0 < len(counted) <= 8 * screen.view.page
        await pilot.press("end")
        await until(pilot, lambda: screen.view.text(screen.view.count - 1) is not None)
        assert f"c{8 + GROWN}" in screen.view.text(screen.view.count - 1).plain
        assert len(counted) <= 12 * screen.view.page


async def test_search_finds_a_line_far_down_and_n_and_N_go_on(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        screen = await grown(app, pilot, GROWN, needle_at=40_000)
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
        await finished(pilot.app)
        assert screen.view.cursor == 40_000 - 1
        assert any("not found: NEEDLE-FAR" in note.message for note in app.toasts)


async def test_keys_move_as_in_less(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        screen = await grown(app, pilot, 500)
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
        assert screen.view.text(8).plain.split()[1:3] == ["started", "late"]
        assert "9 lines" in str(screen.header())


async def test_a_search_lands_on_rows_it_has_read_already(tui_root, tui_processes, monkeypatch):
    """The search reads the page its line will show on in the same worker: the cursor moves
    onto a row that is there to draw, not onto a placeholder read by a second worker."""
    landed: list[bool] = []
    real = LineView.watch_cursor

    def watch(view: LineView, old: int, new: int) -> None:
        top = round(view.scroll_y)
        shown = range(top, min(view.count, top + view.page))
        landed.append(all(view.text(row) is not None for row in (new, *shown)))
        real(view, old, new)

    asked: list[tuple[int, int]] = []
    rows = JournalScreen.rows

    def reading(screen: JournalScreen, first: int, count: int):  # type: ignore[no-untyped-def]
        asked.append((first, count))
        return rows(screen, first, count)

    monkeypatch.setattr(LineView, "watch_cursor", watch)
    monkeypatch.setattr(JournalScreen, "rows", reading)
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        screen = await grown(app, pilot, GROWN, needle_at=40_000)
        landed.clear()
        await pilot.press("slash", *"needle-far", "enter")
        await until(pilot, lambda: screen.view.cursor == 40_000 - 1)
        assert landed == [True]
        # The rows around that page are read after it, and the page itself is not read again.
        view = screen.view
        await finished(pilot.app)
        top = round(view.scroll_y)
        page = set(range(top, top + view.page))
        reads = [set(range(first, first + count)) for first, count in asked]
        assert sum(1 for read in reads if read & page) == 1
        assert view.text(top - 1) is not None and view.text(top + view.page) is not None


async def test_the_search_box_takes_the_key_bars_line_and_closes_once_found(
    tui_root, tui_processes
):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        screen = await grown(app, pilot, 500, needle_at=400)
        view, box, keys = screen.view, screen.query_one("#viewer-search"), screen.query_one(KeyBar)
        page = view.page
        await pilot.press("slash")
        await pilot.pause()
        assert (box.display, keys.display) == (True, False)
        assert view.page == page  # the rows keep their height: no second layout, no re-read
        await pilot.press(*"needle-far", "enter")
        await until(pilot, lambda: view.cursor == 400 - 1)
        await pilot.pause()
        assert (box.display, keys.display) == (False, True)
        assert screen.focused is view
        await pilot.press("slash", *"not-there", "enter")
        await until(pilot, lambda: not box.display)
        assert keys.display and screen.focused is view and view.cursor == 400 - 1


def test_missing_spans_are_the_runs_of_rows_not_held():
    assert missing_spans({3, 4, 8}, 0, 10) == [(0, 3), (5, 3), (9, 1)]
    assert missing_spans(set(), 5, 3) == [(5, 3)]
    assert missing_spans(set(range(10)), 0, 10) == []


async def test_the_key_bar_follows_the_focus_without_laying_the_screen_out_again(
    tui_root, tui_processes, monkeypatch
):
    """A new text in the one-line bar cannot change the layout: asking for one costs the
    screen a second frame after the key that moved the focus."""
    layouts: list[bool] = []
    real = KeyBar.update

    def update(bar: KeyBar, content, *, layout: bool = True) -> None:  # type: ignore[no-untyped-def]
        layouts.append(layout)
        real(bar, content, layout=layout)

    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_journal(app, pilot)
        keys = screen.query_one(KeyBar)
        before = str(keys.render())
        monkeypatch.setattr(KeyBar, "update", update)
        await pilot.press("slash")  # the search box takes the keys
        await pilot.pause()
        assert str(keys.render()) != before and layouts == [False]
        await pilot.press("escape")
        await pilot.pause()
        assert str(keys.render()) == before and layouts == [False, False]
        keys._bindings_changed(screen)  # the same keys again: nothing to draw
        assert layouts == [False, False]


async def test_esc_while_a_search_looks_drops_it(tui_root, tui_processes, monkeypatch):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        screen = await grown(app, pilot, 500, needle_at=400)
        view = screen.view
        release = threading.Event()
        find = screen.index.find

        def slow(*args, **kwargs):  # type: ignore[no-untyped-def]
            release.wait(5)
            return find(*args, **kwargs)

        monkeypatch.setattr(screen.index, "find", slow)
        await pilot.press("slash", *"needle-far", "enter")
        await pilot.pause()
        assert screen.query_one("#viewer-search").display  # still saying what it looks for
        await pilot.press("escape")
        release.set()
        await finished(pilot.app)
        await pilot.pause()
        assert view.cursor == 0 and app.screen is screen
        assert not screen.query_one("#viewer-search").display


async def test_a_far_jump_reads_the_rows_near_it_only(tui_root, tui_processes, monkeypatch):
    """Scrolling to a line far from the cursor (a search, a mouse wheel) looks at the rows
    near where the view is, not at every row between it and the cursor."""
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        screen = await grown(app, pilot, GROWN)
        view = screen.view
        looked: list[int] = []
        spans = line_view.missing_spans

        def counting(held, first: int, count: int):  # type: ignore[no-untyped-def]
            looked.append(count)
            return spans(held, first, count)

        monkeypatch.setattr(line_view, "missing_spans", counting)
        view.scroll_to(y=40_000, animate=False, immediate=True)
        await until(pilot, lambda: view.text(40_000) is not None)
        assert looked and max(looked) <= 4 * view.page


async def test_line_numbers_stay_aligned_past_99999_lines(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        screen = await grown(app, pilot, 100_000)
        view = screen.view
        await pilot.press("end")
        await until(pilot, lambda: view.text(view.count - 1) is not None)
        await until(pilot, lambda: view.text(view.count - 4) is not None)
        rows = range(view.count - 4, view.count)
        assert view.count > 99_999 + 4  # the last rows cross from five digits to six
        assert [view.text(row).plain[:7] for row in rows] == [f"{row + 1:>6} " for row in rows]
        await pilot.press("home")
        await until(pilot, lambda: view.text(0) is not None)
        assert view.text(0).plain.startswith("     1 ")  # the column is as wide for every row
