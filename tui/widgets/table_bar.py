"""A table's scrollbar (`wftop.tui.widgets.table.FittedTable`): Textual's, but it asks for no
layout of its own and keeps the lines it drew while it shows the same cells."""

from __future__ import annotations

from rich.color import Color
from textual.geometry import Region, Size
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip


class TableBar(ScrollBar):
    """A table's scrollbar, whose size changing does not lay the screen out again: it is
    sized in the layout that sized its table (the box of the filter shown or hidden), and
    Textual's scrollbar asked for a second one, every widget of the screen drawn again
    (10-15 ms of ``/`` at 20,000 rows)."""

    def __init__(
        self, vertical: bool = True, name: str | None = None, *, thickness: int = 1
    ) -> None:
        super().__init__(vertical, name, thickness=thickness)
        self._drawn: tuple[object, list[Strip]] | None = None
        """What its lines were last drawn of (`_drawing`), and the lines."""

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        return super()._size_updated(size, virtual_size, container_size, layout=False)

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines drawn last while the bar shows the same cells: its thumb keeps its place
        over most changes of its table's rows (20,000 runs, then the 8,857 ``s`` shows),
        and drawing them again cost 3-14 ms."""
        drawing = self._drawing(crop)
        drawn = self._drawn
        if drawn is not None and drawn[0] == drawing:
            self._dirty_regions.clear()  # as drawn: those lines are the ones kept
            return list(drawn[1])
        lines = super().render_lines(crop)
        self._drawn = (drawing, lines)
        return list(lines)

    def _drawing(self, crop: Region) -> object:
        """What the bar's lines are made of: the cells Textual's renderer gives it at its
        size (its thumb, colours and mouse actions), and what styles them on screen."""
        shown = self.render()
        cells: object = shown
        if isinstance(shown, ScrollBarRender):
            style = self.app.console.get_style(shown.style)
            width, height = self.size
            bar = shown.render_bar(
                size=height if shown.vertical else width,
                virtual_size=shown.virtual_size,
                window_size=shown.window_size,
                position=shown.position,
                thickness=width if shown.vertical else height,
                vertical=shown.vertical,
                back_color=style.bgcolor or Color.parse("#555555"),
                bar_color=style.color or Color.parse("bright_magenta"),
            )
            cells = tuple(bar.segments)
        app = self.app
        return (
            crop,
            self.size,
            cells,
            self.background_colors,
            self.styles._cache_key,
            tuple(self.get_line_filters()),
            app.ansi_theme,
            app.native_ansi_color,
        )
