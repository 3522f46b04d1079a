"""What the journal screen and the transcript screen share: a file shown line by line.

The file is indexed in a job (`wftop.tui.work`; `wftop.core.read.lineindex`), a piece at a
time, so the first rows show while the rest is still being scanned; only the rows in view are
read, parsed and drawn (`LineView`), and the whole of the row under the cursor is shown below it on
``enter``. A file that grows is followed (the screen looks again every second); one that
was replaced is read anew. ``/`` searches the file's bytes, ``n`` and ``N`` go to the next
and previous line found. Subclasses say which lines are rows and how a row reads.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Input, Static

from wftop.core.read.lineindex import Line, LineIndex
from wftop.core.row import RunRow
from wftop.core.text.redact import Redactor
from wftop.tui.messages import GoBack, OpenCopy
from wftop.tui.screens.viewer_parts import Asked, Scanned, Tally
from wftop.tui.services import Services
from wftop.tui.styles import Palette
from wftop.tui.widgets.key_bar import KeyBar
from wftop.tui.widgets.line_view import LineView
from wftop.tui.work import Working

FOLLOW_INTERVAL = 1.0
"""Seconds between looks at a file that may grow."""

FIRST_SCAN_BYTES = 1024 * 1024
"""Bytes indexed before the first rows are shown; the rest follows in larger pieces."""

SCAN_STEP_BYTES = 64 * 1024 * 1024

DETAIL_CHARS = 100_000
"""Characters of one row shown whole below the list; the rest is counted."""


class FileViewer(Working, Screen[None]):
    """A JSON Lines file, one row per line (or per line that matches `ROWS`)."""

    ROWS: ClassVar[re.Pattern[bytes] | None] = None
    """Which lines are rows (None: every line)."""
    DETAIL_OPEN: ClassVar[bool] = False
    """The whole of the row under the cursor shows from the start."""

    def __init__(self, services: Services, run: RunRow, path: str) -> None:
        super().__init__()
        self.services = services
        self.run = run
        """The row of the run the file is of."""
        self.path = path
        self.index = LineIndex(path, rows=self.row_pattern())
        self.tally = Tally()
        self.search_text = ""
        self._latest_search = 0
        """Searches asked so far: only the latest one's result is used."""
        self._box_waits_for: int | None = None
        """The search the open box waits for (it closes when that one is done)."""
        self.indexed = False
        """The file was indexed to its end once."""
        self.error = ""
        self._detail_open = self.DETAIL_OPEN
        self._shape = self.row_shape()
        self._told = ""
        """The count of what was masked the header last said."""

    # -- for subclasses --------------------------------------------------------------------

    def render_row(self, line: Line, mask: Redactor, palette: Palette) -> Text:
        raise NotImplementedError

    def render_detail(self, line: Line, mask: Redactor, palette: Palette) -> Text:
        raise NotImplementedError

    def header(self) -> Text:
        raise NotImplementedError

    def following(self) -> bool:
        """The screen looks for appended lines now."""
        return self.services.live

    def row_pattern(self) -> re.Pattern[bytes] | None:
        """Which lines are rows now (`ROWS`, unless a subclass filters them)."""
        return self.ROWS

    def above_rows(self) -> ComposeResult:
        """Widgets between the header and the rows (the journal table's column names)."""
        yield from ()

    def row_shape(self) -> object:
        """What every row's drawing depends on beyond its own line (the journal's number
        column width): when it changes, the rows read so far are read again."""
        return None

    def start_at_end(self) -> bool:
        """The cursor goes to the last row once the first rows are known."""
        return False

    # -- layout ----------------------------------------------------------------------------

    @property
    def view(self) -> LineView:
        return self.query_one(LineView)

    def compose(self) -> ComposeResult:
        yield Static("", id="viewer-header")
        yield from self.above_rows()
        yield LineView(self.rows, id="viewer-lines")
        with VerticalScroll(id="viewer-detail"):
            yield Static("", id="viewer-detail-text")
        yield Input(placeholder="search (lower case: any case)", id="viewer-search")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#viewer-detail").display = self._detail_open
        self.query_one("#viewer-search").display = False
        self.view.focus()
        self._show_header()
        self.scan()
        self.set_interval(FOLLOW_INTERVAL, self._look_again)

    def _show_header(self) -> None:
        self._told = self.tally.summary()
        self.query_one("#viewer-header", Static).update(self.header())

    # -- indexing --------------------------------------------------------------------------

    def scan(self) -> None:
        """Index what is new in the file, in a job; the first piece small, so rows show at
        once. Each piece indexed is reported; a file replaced starts a new index."""
        budget = FIRST_SCAN_BYTES if not self.indexed else None
        index, path, rows = self.index, self.path, self.row_pattern()

        def work(report: Callable[[Scanned], None]) -> None:
            nonlocal index, budget
            try:
                while True:
                    change = index.update(budget)
                    if change == "reset":
                        index = LineIndex(path, rows=rows)
                        report(Scanned(index, "reset"))
                        continue
                    report(Scanned(index, change))
                    if index.done:
                        break
                    budget = SCAN_STEP_BYTES
            except (OSError, ValueError) as error:  # ValueError: a NUL in a path read from disk
                report(Scanned(index, "same", getattr(error, "strerror", None) or str(error)))
                return
            report(Scanned(index, "same", done=True))

        self.jobs.stream("viewer-index", work, self._scanned, what="Couldn't read the file")

    def _scanned(self, scanned: Scanned) -> None:
        if scanned.error:
            self.error = scanned.error
            self._show_header()
            return
        if scanned.change == "reset":
            self.index = scanned.index
            self.view.reset()
            return
        if scanned.done:
            self.indexed = True
            self._show_header()
            self.view.read_ahead_end()
            return
        self._indexed(scanned.index, scanned.change)

    def _indexed(self, index: LineIndex, change: str) -> None:
        if index is not self.index:
            return
        view = self.view
        before = view.count
        shape = self.row_shape()
        if shape != self._shape:
            self._shape = shape
            if before:
                view.read_again()
        view.set_count(index.row_count)
        if change == "grew" and before and before <= view.count:
            view.forget(before - 1)  # the last line may have been open: read it again
        if not before and view.count:
            if self.start_at_end():
                view.action_last()
            self._moved(view.cursor)
        self._show_header()

    def _look_again(self) -> None:
        busy = self.jobs.busy("viewer-index")
        if self.indexed and self.following() and self.is_current and not busy:
            self.scan()

    # -- rows ------------------------------------------------------------------------------

    def rows(self, first: int, count: int) -> dict[int, Text]:
        """The texts of some rows (in a job, for the `LineView`)."""
        palette = self.services.palette
        texts: dict[int, Text] = {}
        for row, line in enumerate(self.index.read_rows(first, count), start=first):
            mask = Redactor()
            texts[row] = self.render_row(line, mask, palette)
            self.tally.add(line.number, mask.masked)
        return texts

    @on(LineView.Filled)
    def _filled(self) -> None:
        if self.tally.summary() != self._told:  # the header counts what rows drawn masked
            self._show_header()

    @on(LineView.Moved)
    def _cursor_moved(self, event: LineView.Moved) -> None:
        self._moved(event.row)

    def _moved(self, row: int) -> None:
        if self._detail_open:
            self.load_detail(row)

    def load_detail(self, row: int) -> None:
        index, palette = self.index, self.services.palette

        def read() -> Text | None:
            lines = index.read_rows(row, 1)
            if not lines:
                return None
            text = self.render_detail(lines[0], Redactor(), palette)
            if len(text) > DETAIL_CHARS:
                more = len(text) - DETAIL_CHARS
                text.truncate(DETAIL_CHARS)
                text.append(f"\n… {more:,} more characters not shown", style="dim")
            return text

        self.jobs.start("viewer-detail", read, self._show_detail, what="Couldn't read the line")

    def _show_detail(self, text: Text | None) -> None:
        if text is None:
            return
        self.query_one("#viewer-detail-text", Static).update(text)
        self.query_one("#viewer-detail", VerticalScroll).scroll_home(animate=False)
        self._show_header()

    def action_detail(self) -> None:
        self._detail_open = not self._detail_open
        self.query_one("#viewer-detail").display = self._detail_open
        if self._detail_open:
            self.load_detail(self.view.cursor)

    # -- search ----------------------------------------------------------------------------

    def action_search(self) -> None:
        box = self.query_one("#viewer-search", Input)
        box.value = self.search_text
        self._box_waits_for = None  # a search still running moves the cursor, not this box
        self._prompting(True)  # in the key bar's place: the rows keep their height
        box.focus()

    @on(Input.Submitted, "#viewer-search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.search_text = event.value
        view = self.view
        if event.value and view.count:
            # The box stays up, saying what is looked for, until the line is found: then
            # it closes, the match shows and the cursor moves in one frame.
            self.search(event.value, self.index.row_line(view.cursor))
            self._box_waits_for = self._latest_search
            return
        self._close_search()
        self._highlight(event.value)

    def _highlight(self, text: str) -> None:
        view = self.view
        if view.match != text:
            view.match = text
            view.redraw()

    def _prompting(self, prompting: bool) -> None:
        self.query_one("#viewer-search", Input).display = prompting
        self.query_one(KeyBar).display = not prompting

    def _close_search(self) -> None:
        self._prompting(False)
        if self.focused is not self.view:
            self.set_focus(self.view)

    def action_search_next(self) -> None:
        self._search_again(backward=False)

    def action_search_previous(self) -> None:
        self._search_again(backward=True)

    def _search_again(self, *, backward: bool) -> None:
        if not self.search_text:
            self.notify("/ searches first", timeout=2)
            return
        view = self.view
        if view.count:
            self.search(self.search_text, self.index.row_line(view.cursor), backward)

    def search(self, text: str, line: int, backward: bool = False) -> None:
        """Find the next line holding ``text`` after ``line`` (before it, backward)."""
        view = self.view
        self._latest_search += 1
        self._search(Asked(self._latest_search, text, line, backward, view.page, view.generation))

    def _search(self, asked: Asked) -> None:
        """The line found, and the rows of the page it will show on, read in the same
        job: the cursor moves and the page draws in one go, not after a second read."""
        index = self.index

        def find() -> tuple[Asked, int | None, dict[int, Text]]:
            found = index.find(asked.text, asked.line, backward=asked.backward)
            row = None if found is None else index.row_of_line(found)
            page = asked.page
            texts = {} if row is None else self.rows(LineView.centred_top(row, page), page)
            return asked, row, texts

        self.jobs.start("viewer-search", find, self._found, what="Couldn't search the file")

    def _found(self, found: tuple[Asked, int | None, dict[int, Text]]) -> None:
        asked, row, texts = found
        if asked.number != self._latest_search:
            return  # a later search was asked, or esc dropped this one
        text = asked.text
        if self._box_waits_for == asked.number:
            self._box_waits_for = None
            self._close_search()
        self._highlight(text if row is not None else "")
        if row is None:
            self.notify(f"not found: {text}", timeout=3)
            return
        view = self.view
        view.add_rows(asked.generation, texts)
        view.move_cursor(row, center=True)

    # -- moving ----------------------------------------------------------------------------

    def action_top(self) -> None:
        self.view.action_first()

    def action_bottom(self) -> None:
        self.view.action_last()

    def action_back(self) -> None:
        if self.query_one("#viewer-search").display:
            if self._box_waits_for is not None:  # esc while it looks: the search is dropped
                self._box_waits_for = None
                self._latest_search += 1
            self._close_search()
            return
        self.post_message(GoBack())

    def action_copy(self) -> None:
        self.post_message(OpenCopy(self.run.ident, self.copy_agent()))

    def copy_agent(self) -> str | None:
        """The agent whose ids the copy menu offers too (None: the run's only)."""
        return None
