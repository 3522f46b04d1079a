"""A table on Textual's line API: columns fit the pane by priority, rows update in place.

Only the visible lines are drawn (`render_line`), from a per-row strip cache, so
a list of thousands of runs costs what a screenful costs. Subclasses say which
columns exist (`SPECS`), how an item becomes cells (`cells`) and what its row key
is (`key_of`). `show` keeps the cursor on the same row key, and at the same
height on screen, whatever moved around it; `rewrite` redraws one row.
"""

from __future__ import annotations

from functools import partial
from operator import is_
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from wftop.tui.keys import KEYS, LIST_WIDGET_IDS, binding
from wftop.tui.messages import Request
from wftop.tui.widgets.columns import ColumnSpec, fit, measured
from wftop.tui.widgets.row_line import Pieces, line_of, row_segments

HEADER_LINES = 1


class FittedTable(ScrollView, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [
        binding(binding_id) for binding_id in KEYS if binding_id in LIST_WIDGET_IDS
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "fitted-table--header",
        "fitted-table--cursor",
    }

    DEFAULT_CSS = """
    FittedTable {
        height: 1fr;
        scrollbar-gutter: stable;
        background: $surface;
        & > .fitted-table--header { text-style: bold; background: $panel; color: $foreground; }
        & > .fitted-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus > .fitted-table--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
            text-style: $block-cursor-text-style;
        }
    }
    """

    SPECS: ClassVar[list[ColumnSpec]] = []
    WANTS_KEPT: ClassVar[int] = 1
    """Answers of `wants` kept, each with the items it measured: more than one, and the
    lists shown again are not measured again until `forget_widths`."""

    cursor_row: reactive[int] = reactive(0, always_update=True, repaint=False)
    """Index of the highlighted row."""

    class Chosen(Request):
        """A row was chosen: a second click on the highlighted row, or `action_choose`.

        (The screens bind ``enter`` themselves, under the ``open`` binding id, so it
        can be remapped.)
        """

        SAID = ("table", "key", "item")

        def __init__(self, table: FittedTable, key: str, item: object) -> None:
            self.table = table
            self.key = key
            self.item = item
            super().__init__()

        @property
        def control(self) -> FittedTable:
            return self.table

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self._items: list[object] = []
        self._keys: list[str] = []
        self._indexed: dict[str, int] | None = {}
        """Each row key's row (`_index`), None until asked for after the rows changed."""
        self._layout: list[tuple[ColumnSpec, int]] = []
        self._strips: dict[str, tuple[object, int, Strip]] = {}
        self._pieces: Pieces = {}
        """The styled cells drawn, in stretches (`row_segments`): let go with the strips
        when every row is drawn anew."""
        self._wants: list[tuple[list[object], list[str], object, dict[str, int]]] = []
        """The items, columns and `wants_key` `wants` was last asked of, and its answer
        (`WANTS_KEPT`, the latest last; they hold their items)."""

    # -- for subclasses ------------------------------------------------------------------

    def key_of(self, item: object) -> str:
        raise NotImplementedError

    def columns(self) -> list[ColumnSpec]:
        """The columns that may show now (`SPECS` unless the subclass lets some be toggled)."""
        return self.SPECS

    def cells(self, item: object, layout: list[tuple[ColumnSpec, int]]) -> list[Text]:
        raise NotImplementedError

    def wants(self, items: list[object], columns: list[str]) -> dict[str, int]:
        """The widest cell among ``items`` of each of ``columns`` (columns that grow to
        their cells: `wftop.tui.widgets.columns.fit`); unknown unless a subclass says."""
        return {}

    def wants_key(self) -> object:
        """What `wants` reads besides the items and columns (a subclass that reads more
        says it here): its answer is kept while the items and this stay the same."""
        return None

    # -- public ----------------------------------------------------------------------------

    @property
    def item_keys(self) -> list[str]:
        return list(self._keys)

    @property
    def row_count(self) -> int:
        return len(self._keys)

    @property
    def visible_columns(self) -> list[str]:
        return [spec.key for spec, _ in self._layout]

    @property
    def _index(self) -> dict[str, int]:
        """Each row key's row, made when first asked for (a key that changes the rows shown
        makes none: the cursor's row is looked for among the keys)."""
        index = self._indexed
        if index is None:
            keys = self._keys
            index = self._indexed = dict(zip(keys, range(len(keys)), strict=True))
        return index

    def cursor_key(self) -> str | None:
        if not self._keys or not 0 <= self.cursor_row < len(self._keys):
            return None
        return self._keys[self.cursor_row]

    def cursor_item(self) -> object | None:
        return self._items[self.cursor_row] if self.cursor_key() is not None else None

    def cell_text(self, key: str, column: str) -> str:
        """The plain text of one cell as drawn now (for tests and copying)."""
        at = self._index[key]
        for (spec, _), cell in zip(
            self._layout, self.cells(self._items[at], self._layout), strict=True
        ):
            if spec.key == column:
                return cell.plain.rstrip()
        msg = f"column {column!r} is not shown"
        raise KeyError(msg)

    def keys_of(self, items: list[object]) -> list[str]:
        """The row key of each item (`key_of`); a table of many rows may do it faster."""
        return [self.key_of(item) for item in items]

    def show(self, items: list[object]) -> None:
        """Show ``items`` in this order; the cursor stays on its row key."""
        keys = self.keys_of(items)
        if keys == self._keys:
            before, layout = self._items, self._layout
            self._items = list(items)
            if self._layout:
                self._relayout()
            if self._layout is layout:
                self._redraw_changed(before)
            else:
                self.refresh()
            return
        old_key, old_row = self.cursor_key(), self.cursor_row
        offset = old_row - round(self.scroll_y)
        self._items, self._keys, self._indexed = list(items), keys, None
        if self._layout:  # laid out once: its names may want other widths now
            self._relayout()
        self._resize_virtual()
        top = 0
        if not keys:
            self.cursor_row = 0
        else:
            target = _found(keys, old_key) if old_key is not None else 0
            if target < 0:
                target = min(old_row, len(keys) - 1)
            self.set_reactive(FittedTable.cursor_row, target)
            top = max(0, target - max(0, offset))
            self.scroll_to(y=top, animate=False, immediate=True)
        # the rows drawn before that are on screen now; the others let go (kept, they would
        # be many objects the collector walks again and again)
        body = max(1, self.scrollable_content_region.height - HEADER_LINES)
        strips = self._strips
        self._strips = {key: strips[key] for key in keys[top : top + body] if key in strips}
        self.refresh()

    def _redraw_changed(self, before: list[object]) -> None:
        """Redraw the lines shown whose item is not the one drawn (the same rows in the same
        order: a run that appended lines costs its own line, not the whole pane)."""
        top = round(self.scroll_y)
        body = max(1, self.scrollable_content_region.height - HEADER_LINES)
        items = self._items
        for at in range(top, min(top + body, len(items), len(before))):
            if items[at] is not before[at]:
                self.refresh_line(at + HEADER_LINES)

    def forget_widths(self) -> None:
        """Let go of the widths kept for lists not shown now (their items changed)."""
        del self._wants[:-1]

    def invalidate(self) -> None:
        """Draw every row anew (time moved, or the theme changed)."""
        self._strips.clear()
        self._pieces.clear()
        self.refresh()

    def rewrite(self, item: object) -> None:
        """Take a new version of one row's item and redraw that row (when shown)."""
        key = self.key_of(item)
        at = self._index.get(key)
        if at is None:
            return
        self._items[at] = item
        self.refresh_line(at + HEADER_LINES)

    def move_to_key(self, key: str) -> None:
        at = self._index.get(key)
        if at is not None:
            self.move_cursor(at)

    def move_cursor(self, row: int) -> None:
        if not self._keys:
            return
        self.cursor_row = max(0, min(row, len(self._keys) - 1))

    # -- cursor ----------------------------------------------------------------------------

    def watch_cursor_row(self, old: int, new: int) -> None:
        self.refresh_line(old + HEADER_LINES)
        self.refresh_line(new + HEADER_LINES)
        body = max(1, self.scrollable_content_region.height - HEADER_LINES)
        top = round(self.scroll_y)
        if new < top:
            self.scroll_to(y=new, animate=False, immediate=True)
        elif new >= top + body:
            self.scroll_to(y=new - body + 1, animate=False, immediate=True)

    def action_cursor_down(self) -> None:
        self.move_cursor(self.cursor_row + 1)

    def action_cursor_up(self) -> None:
        self.move_cursor(self.cursor_row - 1)

    def _page(self) -> int:
        return max(1, self.scrollable_content_region.height - HEADER_LINES - 1)

    def action_page_down(self) -> None:
        self.move_cursor(self.cursor_row + self._page())

    def action_page_up(self) -> None:
        self.move_cursor(self.cursor_row - self._page())

    def action_half_page_down(self) -> None:
        self.move_cursor(self.cursor_row + max(1, self._page() // 2))

    def action_half_page_up(self) -> None:
        self.move_cursor(self.cursor_row - max(1, self._page() // 2))

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        self.move_cursor(len(self._keys) - 1)

    def action_choose(self) -> None:
        key = self.cursor_key()
        if key is not None:
            self.post_message(self.Chosen(self, key, self._items[self.cursor_row]))

    def on_click(self, event: events.Click) -> None:
        row = event.y - HEADER_LINES + round(self.scroll_y)
        if event.y < HEADER_LINES or not 0 <= row < len(self._keys):
            return
        if row == self.cursor_row and event.chain >= 2:
            self.action_choose()
        self.move_cursor(row)

    # -- layout and drawing ----------------------------------------------------------------

    def _width(self) -> int:
        return max(10, self.scrollable_content_region.width)

    def _resize_virtual(self) -> None:
        self.virtual_size = Size(self._width(), len(self._keys) + HEADER_LINES)

    def _fitted(self) -> list[tuple[ColumnSpec, int]]:
        """The columns that fit the pane now, names as wide as the rows shown need."""
        specs, width = self.columns(), self._width()
        growing = measured(specs, width)
        return fit(specs, width, self._wanted(growing) if growing else None)

    def _wanted(self, columns: list[str]) -> dict[str, int]:
        """`wants` of the rows shown, kept while they are the same rows (each the same item:
        a letter typed that lets every run through measures none of 20,000 again)."""
        items, wants_key, kept = self._items, self.wants_key(), self._wants
        for at, held in enumerate(kept):
            if (
                held[1] == columns
                and held[2] == wants_key
                and len(held[0]) == len(items)
                and all(map(is_, held[0], items))
            ):
                kept.append(kept.pop(at))  # the latest last
                return held[3]
        found = self.wants(items, columns)
        kept.append((items, columns, wants_key, found))
        del kept[: -self.WANTS_KEPT]
        return found

    def _relayout(self) -> None:
        layout = self._fitted()
        if layout != self._layout:
            self._layout = layout
            self._strips.clear()

    def on_resize(self, _event: events.Resize | None = None) -> None:
        self._relayout()
        self._resize_virtual()
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self._width()
        if not self._layout:
            self._layout = self._fitted()
        if y < HEADER_LINES:
            return self._header_strip(width)
        row = y - HEADER_LINES + round(self.scroll_y)
        if not 0 <= row < len(self._keys):
            return Strip.blank(width, self.rich_style)
        strip = self._row_strip(row, width)
        if row == self.cursor_row:
            cursor = self.get_component_rich_style("fitted-table--cursor")
            strip = Strip(Segment.apply_style(strip, post_style=cursor), strip.cell_length)
        return strip

    def _header_strip(self, width: int) -> Strip:
        style = self.get_component_rich_style("fitted-table--header")
        line = Text(no_wrap=True)
        for spec, column_width in self._layout:
            label = f"{spec.label:>{column_width}}" if spec.right else spec.label
            line.append(label[:column_width].ljust(column_width) + " ")
        return self._strip(line, width, style)

    def _row_strip(self, row: int, width: int) -> Strip:
        key, item = self._keys[row], self._items[row]
        cached = self._strips.get(key)
        if cached is not None and cached[0] is item and cached[1] == width:
            return cached[2]
        layout, style = self._layout, self.rich_style
        cells, widths = self.cells(item, layout), [column_width for _, column_width in layout]
        resolve = partial(self.app.console.get_style, default=Style.null())
        segments = row_segments(cells, widths, style, resolve, self._pieces)
        if segments is None:  # a cell cut to its column
            strip = self._strip(line_of(cells, widths), width, style)
        else:
            strip = Strip(segments).adjust_cell_length(width, style)
        self._strips[key] = (item, width, strip)
        return strip

    def _strip(self, line: Text, width: int, style: Style) -> Strip:
        segments = [
            Segment(segment.text, style + segment.style if segment.style else style)
            for segment in line.render(self.app.console)
            if segment.text != "\n"
        ]
        return Strip(segments).adjust_cell_length(width, style)


def _found(keys: list[str], key: str) -> int:
    """Where ``key`` is among ``keys`` (-1: not there), looked for in C: no index made."""
    try:
        return keys.index(key)
    except ValueError:
        return -1
