"""A list of file lines that draws only what is in view (toolong's model).

The view knows how many rows there are and where the cursor is; it holds the `Text` of
the rows near the screen only, and asks its `source` (a function run in a job,
`wftop.tui.work`: it reads and parses from disk) for the rows it is about to draw. A row
not read yet is drawn as a placeholder and redrawn when its text arrives. Every row is one line,
ellipsized to the pane's width; the screen shows a row whole elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from dataclasses import dataclass
from typing import ClassVar

from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from wftop.tui.keys import LIST_WIDGET_IDS, binding
from wftop.tui.work import Working

Source = Callable[[int, int], dict[int, Text]]
"""Rows ``first`` … ``first + count - 1`` as texts (run in a thread: it may read disk)."""

PLACEHOLDER = Text("…", style="dim")


class _Either:
    """Rows in either of two sets of rows."""

    def __init__(self, one: Container[int], other: Container[int]) -> None:
        self.one, self.other = one, other

    def __contains__(self, row: object) -> bool:
        return row in self.one or row in self.other


def missing_spans(held: Container[int], first: int, count: int) -> list[tuple[int, int]]:
    """The runs of rows from ``first`` (``count`` of them) not in ``held``, as (first, count)."""
    spans: list[tuple[int, int]] = []
    start = None
    for row in range(first, first + count + 1):
        gap = row < first + count and row not in held
        if gap and start is None:
            start = row
        elif not gap and start is not None:
            spans.append((start, row - start))
            start = None
    return spans


class LineView(Working, ScrollView, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [
        binding(binding_id) for binding_id in sorted(LIST_WIDGET_IDS)
    ]
    """The focused view holds its moves (first and last too: ScrollView's own home and end
    would scroll without moving the cursor)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"line-view--cursor", "line-view--match"}

    DEFAULT_CSS = """
    LineView {
        height: 1fr;
        scrollbar-gutter: stable;
        background: $surface;
        & > .line-view--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
        }
        &:focus > .line-view--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
        }
        & > .line-view--match { background: $warning 40%; }
    }
    """

    cursor: reactive[int] = reactive(0, always_update=True, repaint=False)
    """The highlighted row (0-based)."""

    @dataclass
    class Moved(Message):
        """The cursor moved to another row."""

        view: LineView
        row: int

        @property
        def control(self) -> LineView:
            return self.view

    @dataclass
    class Filled(Message):
        """Rows read came in (what they masked may have changed the screen's header)."""

        view: LineView

        @property
        def control(self) -> LineView:
            return self.view

    def __init__(self, source: Source, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.source = source
        self.count = 0
        self.match = ""
        """Text to highlight in the rows drawn (the last search)."""
        self._texts: dict[int, Text] = {}
        self._strips: dict[int, tuple[int, Strip]] = {}
        self._asked: tuple[int, int] | None = None
        self._generation = 0
        self._reading: set[int] = set()
        """Rows asked of the source whose text has not come back yet (not asked again)."""

    # -- rows ------------------------------------------------------------------------------

    @property
    def page(self) -> int:
        return max(1, self.scrollable_content_region.height)

    def set_count(self, count: int) -> None:
        """The number of rows grew (or shrank); the cursor stays at the end if it was there."""
        at_end = self.count > 0 and self.cursor >= self.count - 1
        self.count = count
        self.virtual_size = Size(self._width(), count)
        if at_end and count:
            self.cursor = count - 1
        self._want()
        self.refresh()

    def reset(self) -> None:
        """Forget every row (the file was replaced): they are read again."""
        self._generation += 1
        self._texts.clear()
        self._strips.clear()
        self._reading.clear()
        self._asked = None
        self.count = 0
        self.cursor = 0
        self.virtual_size = Size(self._width(), 0)
        self.refresh()

    def read_again(self) -> None:
        """Read every row anew (how rows are drawn changed); the count and cursor stay."""
        self._generation += 1
        self._texts.clear()
        self._strips.clear()
        self._reading.clear()
        self._asked = None
        self._want()
        self.refresh()

    def forget(self, row: int) -> None:
        """Read one row again (the open last line of a growing file changed)."""
        self._texts.pop(row, None)
        self._strips.pop(row, None)
        self._asked = None
        self._want()
        self.refresh()

    def text(self, row: int) -> Text | None:
        """The row's text, once read."""
        return self._texts.get(row)

    def _window(self) -> tuple[int, int]:
        """The rows to hold: a page each side of the page shown (and of the cursor, when
        it is on or next to that page; far from it, the cursor is about to be scrolled to
        or was scrolled away from, and the rows between are not read)."""
        top, page = round(self.scroll_y), self.page
        cursor = self.cursor if abs(self.cursor - top) <= 2 * page else top
        first = max(0, min(top, cursor) - page)
        return first, min(self.count, max(top, cursor) + 2 * page) - first

    def _want(self) -> None:
        """Ask the source for the rows near the screen that are not read yet."""
        first, count = self._window()
        if count <= 0:
            return
        if self._asked == (first, count):
            return
        texts, reading = self._texts, self._reading
        spans = missing_spans(_Either(texts, reading), first, count)
        if not spans:
            return
        self._asked = (first, count)
        for start, length in spans:
            reading.update(range(start, start + length))
        self._load(self._generation, spans)

    def _load(self, generation: int, spans: list[tuple[int, int]]) -> None:
        source = self.source

        def read() -> dict[int, Text]:
            texts: dict[int, Text] = {}
            for first, count in spans:
                texts.update(source(first, count))
            return texts

        def read_back(texts: dict[int, Text]) -> None:
            if generation == self._generation:
                for first, count in spans:
                    self._reading.difference_update(range(first, first + count))
            self._fill(generation, texts)

        self.jobs.start(
            "line-view",
            read,
            read_back,
            what="Couldn't read the file's lines",
            superseded=False,  # rows read are rows to keep (a reset bumps the generation)
        )

    def read_ahead_end(self) -> None:
        """Read the last rows now, as if the view were there: `end` then draws at once."""
        count = min(self.count, 2 * self.page)
        first = self.count - count
        if count and any(row not in self._texts for row in range(first, self.count)):
            self._load_ahead(self._generation, first, count)

    def _load_ahead(self, generation: int, first: int, count: int) -> None:
        # A kind of its own: a window asked for meanwhile (`_load`) must not replace it.
        source = self.source
        self.jobs.start(
            "line-view-ahead",
            lambda: source(first, count),
            lambda texts: self._fill(generation, texts),
            what="Couldn't read the file's lines",
        )

    @property
    def generation(self) -> int:
        """Bumped by `reset`: rows read before it are not added (`add_rows`)."""
        return self._generation

    def add_rows(self, generation: int, texts: dict[int, Text]) -> None:
        """Rows read elsewhere (a search reads the page it lands on), unless the view
        was `reset` since ``generation``."""
        self._fill(generation, texts)

    @staticmethod
    def centred_top(row: int, page: int) -> int:
        """The first row shown when ``row`` is centred (`move_cursor` with ``center``)."""
        return max(0, row - page // 2)

    def _fill(self, generation: int, texts: dict[int, Text]) -> None:
        if generation != self._generation:
            return
        top = round(self.scroll_y)
        shown = range(top, top + self.page)
        drawn = False
        for row, text in texts.items():
            if row not in self._texts:  # a row read twice (a search read it first) stays
                self._texts[row] = text
                self._strips.pop(row, None)
                drawn = drawn or row in shown
        first, count = self._window()
        keep = range(first - self.page, first + count + self.page)
        if len(self._texts) > 4 * len(keep):
            self._texts = {row: text for row, text in self._texts.items() if row in keep}
            self._strips = {row: strip for row, strip in self._strips.items() if row in keep}
        self._asked = None
        if drawn:  # rows read ahead, out of view, need no frame
            self.refresh()
        self._want()
        self.post_message(self.Filled(self))

    # -- cursor ----------------------------------------------------------------------------

    def move_cursor(self, row: int, *, center: bool = False) -> None:
        if not self.count:
            return
        row = max(0, min(row, self.count - 1))
        if center:
            self.scroll_to(y=self.centred_top(row, self.page), animate=False, immediate=True)
        self.cursor = row

    def watch_cursor(self, old: int, new: int) -> None:
        self._strips.pop(old, None)
        self._strips.pop(new, None)
        top, page = round(self.scroll_y), self.page
        if new < top:
            self.scroll_to(y=new, animate=False, immediate=True)
        elif new >= top + page:
            self.scroll_to(y=new - page + 1, animate=False, immediate=True)
        self.refresh()
        self._want()
        if old != new:
            self.post_message(self.Moved(self, new))

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._want()

    def action_cursor_down(self) -> None:
        self.move_cursor(self.cursor + 1)

    def action_cursor_up(self) -> None:
        self.move_cursor(self.cursor - 1)

    def action_page_down(self) -> None:
        self.move_cursor(self.cursor + self.page)

    def action_page_up(self) -> None:
        self.move_cursor(self.cursor - self.page)

    def action_half_page_down(self) -> None:
        self.move_cursor(self.cursor + self.page // 2)

    def action_half_page_up(self) -> None:
        self.move_cursor(self.cursor - self.page // 2)

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        self.move_cursor(self.count - 1)

    def on_click(self, event: events.Click) -> None:
        row = event.y + round(self.scroll_y)
        if 0 <= row < self.count:
            self.move_cursor(row)

    # -- drawing ---------------------------------------------------------------------------

    def _width(self) -> int:
        return max(10, self.scrollable_content_region.width)

    def on_resize(self, _event: events.Resize) -> None:
        self._strips.clear()
        self.virtual_size = Size(self._width(), self.count)
        self._want()

    def render_line(self, y: int) -> Strip:
        width = self._width()
        row = y + round(self.scroll_y)
        if not 0 <= row < self.count:
            return Strip.blank(width, self.rich_style)
        cached = self._strips.get(row)
        if cached is not None and cached[0] == width:
            return cached[1]
        text = self._texts.get(row)
        strip = self._draw(text if text is not None else PLACEHOLDER, width, row)
        if text is not None:
            self._strips[row] = (width, strip)
        return strip

    def _draw(self, text: Text, width: int, row: int) -> Strip:
        line = text.copy()
        line.no_wrap = True
        if "\n" in line.plain:
            line = line.split("\n", allow_blank=True)[0]
        if self.match:
            style = self.get_component_rich_style("line-view--match")
            line.highlight_words(
                [self.match], style, case_sensitive=self.match != self.match.lower()
            )
        line.truncate(width, overflow="ellipsis")
        base = self.rich_style
        if row == self.cursor:
            base = base + self.get_component_rich_style("line-view--cursor")
        segments = [
            Segment(segment.text, base + segment.style if segment.style else base)
            for segment in line.render(self.app.console)
            if segment.text != "\n"
        ]
        return Strip(segments).adjust_cell_length(width, base)

    def redraw(self) -> None:
        """Draw the rows anew (the search text changed)."""
        self._strips.clear()
        self.refresh()
