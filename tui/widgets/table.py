"""A DataTable whose columns fit the pane by priority and whose rows update in place.

Subclasses say which columns exist (`SPECS`), how an item becomes cells
(`cells`) and what its row key is (`key_of`). `show` keeps the cursor on the
same row key, and at the same height on screen, whatever moved around it;
when the keys and their order are unchanged it only rewrites cells.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.widgets import DataTable

from tui.keys import binding
from tui.widgets.columns import ColumnSpec, fit


class FittedTable(DataTable[Text]):
    BINDINGS: ClassVar[list[BindingType]] = [binding("cursor-down"), binding("cursor-up")]

    DEFAULT_CSS = """
    FittedTable {
        height: 1fr;
        scrollbar-gutter: stable;
        & > .datatable--header { text-style: bold; }
    }
    """

    SPECS: ClassVar[list[ColumnSpec]] = []

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id, cursor_type="row", cell_padding=0, zebra_stripes=False)
        self._items: list[object] = []
        self._keys: list[str] = []
        self._index: dict[str, int] = {}
        self._layout: list[tuple[ColumnSpec, int]] = []

    # -- for subclasses ------------------------------------------------------------------

    def key_of(self, item: object) -> str:
        raise NotImplementedError

    def cells(self, item: object, layout: list[tuple[ColumnSpec, int]]) -> list[Text]:
        raise NotImplementedError

    # -- public ----------------------------------------------------------------------------

    @property
    def item_keys(self) -> list[str]:
        return list(self._keys)

    @property
    def visible_columns(self) -> list[str]:
        return [spec.key for spec, _ in self._layout]

    def cursor_key(self) -> str | None:
        if not self._keys or not 0 <= self.cursor_row < len(self._keys):
            return None
        return self._keys[self.cursor_row]

    def cursor_item(self) -> object | None:
        key = self.cursor_key()
        return self._items[self._index[key]] if key is not None else None

    def show(self, items: list[object]) -> None:
        """Show ``items`` in this order; update in place when only their content changed."""
        keys = [self.key_of(item) for item in items]
        if keys == self._keys and self._layout:
            self._items = list(items)
            for item in items:
                self.rewrite(item)
            return
        self._items, self._keys = list(items), keys
        self._index = {key: at for at, key in enumerate(keys)}
        self._rebuild()

    def rewrite(self, item: object) -> None:
        """Rewrite one row's cells (when the row is shown)."""
        key = self.key_of(item)
        at = self._index.get(key)
        if at is None:
            return
        self._items[at] = item
        for (spec, _), value in zip(self._layout, self.cells(item, self._layout), strict=True):
            if self.get_cell(key, spec.key) != value:
                self.update_cell(key, spec.key, value)

    def move_to_key(self, key: str) -> None:
        at = self._index.get(key)
        if at is not None:
            self.move_cursor(row=at)

    # -- layout ----------------------------------------------------------------------------

    def _width(self) -> int:
        return max(10, self.scrollable_content_region.width)

    def on_resize(self, _event: events.Resize) -> None:
        layout = fit(self.SPECS, self._width())
        if [(spec.key, width) for spec, width in layout] != [
            (spec.key, width) for spec, width in self._layout
        ]:
            self._rebuild()

    def _rebuild(self) -> None:
        old_key, old_row = self.cursor_key(), self.cursor_row
        offset = old_row - round(self.scroll_y)
        layout = fit(self.SPECS, self._width())
        if [spec.key for spec, _ in layout] != self.visible_columns or [w for _, w in layout] != [
            w for _, w in self._layout
        ]:
            self.clear(columns=True)
            self._layout = layout
            for spec, width in layout:
                label = Text(f"{spec.label:>{width}}" if spec.right else spec.label)
                self.add_column(label, width=width + 1, key=spec.key)
        else:
            self.clear()
        for item, key in zip(self._items, self._keys, strict=True):
            self.add_row(*self.cells(item, layout), key=key)
        if not self._keys:
            return
        target = self._index.get(old_key, min(old_row, len(self._keys) - 1)) if old_key else 0
        self.move_cursor(row=target, scroll=False)
        top = max(0, target - max(0, offset))
        self.call_after_refresh(self.scroll_to, y=top, animate=False)
