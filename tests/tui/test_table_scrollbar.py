"""The runs table's scrollbar is fitted and drawn again only when it shows something else: a
key that lays the screen out for another widget (a letter typed in the filter's box) leaves
it as drawn, rows that leave its thumb in its place are not drawn again, and the box shown or
hidden lays the screen out once."""

from __future__ import annotations

from dataclasses import replace

from textual.screen import Screen

from tests.tui_kit import build, finished, rows, settle, table

SHORT = (100, 8)
"""Fewer lines than runs: the table shows its scrollbar."""


def drawings(bar, monkeypatch) -> list[int]:  # type: ignore[no-untyped-def]
    """The times ``bar``'s lines are drawn anew (Textual keeps them until a refresh)."""
    drawn: list[int] = []
    real = type(bar)._render_content

    def render_content(self):  # type: ignore[no-untyped-def]
        if self is bar:
            drawn.append(self.window_virtual_size)
        return real(self)

    monkeypatch.setattr(type(bar), "_render_content", render_content)
    return drawn


async def test_letters_that_keep_the_rows_do_not_draw_the_scrollbar_again(
    tui_root, tui_processes, monkeypatch
):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SHORT) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await finished(app)
        await pilot.pause()
        runs = table(app)
        bar = runs.vertical_scrollbar
        assert bar.display and runs.row_count > runs.size.height
        keys = list(runs.item_keys)
        drawn = drawings(bar, monkeypatch)
        await pilot.press("space", "space", "space")  # the box's text grows, no run filtered
        await pilot.pause()
        assert app.screen.query_one("#runs-filter").value == "   "
        assert runs.item_keys == keys
        assert drawn == []


async def test_rows_that_leave_the_thumb_in_place_do_not_draw_the_scrollbar_again(
    tui_root, tui_processes, monkeypatch
):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SHORT) as pilot:
        await settle(pilot)
        runs = table(app)
        some = next(iter(rows(app).values()))
        many = [replace(some, run_id=f"wf_{n:08x}-aaa") for n in range(2000)]
        runs.show(many)
        await pilot.pause()
        bar = runs.vertical_scrollbar
        drawn = drawings(bar, monkeypatch)
        runs.show(many[:1200])  # a thumb of one cell at the top, as before
        await pilot.pause()
        assert bar.window_virtual_size == 1201
        assert drawn == []
        runs.move_cursor(1199)  # the thumb at the bottom
        await pilot.pause()
        assert drawn


async def test_the_filter_box_shown_lays_the_screen_out_once(tui_root, tui_processes, monkeypatch):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SHORT) as pilot:
        await settle(pilot)
        await pilot.press("slash", "escape")  # the box shown once: its own first sizes
        await finished(app)
        await pilot.pause()
        laid: list[Screen[object]] = []
        real = Screen._refresh_layout

        def refresh_layout(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            laid.append(self)
            return real(self, *args, **kwargs)

        monkeypatch.setattr(Screen, "_refresh_layout", refresh_layout)
        height = table(app).size.height
        await pilot.press("slash")
        await pilot.pause()
        assert table(app).size.height < height  # the box took a line of the table's
        assert len(laid) == 1
