"""The journal of a run, one line per row: a table (`wftop.tui.screens.journal_table`), or
the raw lines (``v``, binding id ``raw``); ``enter`` shows the row's line pretty-printed; ``&``
keeps only the lines whose event, label or phase hold a text, as in less (``line-filter``;
``/`` still searches).

What each line is (a record, or unreadable and why) is what `wftop.core.read.jsonl` reads
(`line_verdict`, the reader's rules for one line): a line the run list folds is never
shown here as unreadable, and the other way round. Only the lines in view are read, and a
filter is a pattern the line index looks for as it scans, so a 100,000-line journal is not
read whole to show a page of it. What the run knows of each call (the table's label, phase,
attempt and failure of a line that names none) is read with the run, in a job.
"""

from __future__ import annotations

import os
import re
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.widgets import Input, Static

from wftop.core.model import Run
from wftop.core.read.deepjson import dumps, layout
from wftop.core.read.jsonl import Problem
from wftop.core.read.lineindex import Line, LineIndex
from wftop.core.read.lineverdict import ELIDED_BYTES, line_verdict
from wftop.core.row import RunRow
from wftop.core.text.gate import gate, gate_lines, shown
from wftop.core.text.redact import Redactor
from wftop.tui.format import size
from wftop.tui.keys import LIST_WIDGET_IDS, bindings_for
from wftop.tui.screens.journal_table import (
    NARROW,
    Column,
    JournalFacts,
    columns_for,
    header_line,
    line_filter,
    table_row,
)
from wftop.tui.screens.viewer import FileViewer
from wftop.tui.screens.viewer_parts import where_read
from wftop.tui.services import Services
from wftop.tui.styles import Palette
from wftop.tui.widgets.key_bar import KeyBar

MAX_LINE_BYTES = 64 * 1024
"""A record of a longer line is shown without its result."""

ROW_CHARS = 1000
"""Characters of a record drawn in its row (a row is one line, cut to the pane)."""

ROW_FIRST = ("label", "phase", "agentId")
"""Fields a row shows first (the key, long and alike from line to line, after them)."""

SHOWN_PROBLEMS = 5
"""Unreadable lines named in the header."""


def verdict_of(line: Line) -> dict[str, Any] | str | None:
    """The reader's record or reason for a line; None for an empty or unfinished line."""
    verdict = line_verdict(line.raw, line.size, keep_bytes=MAX_LINE_BYTES)
    if not line.complete and not isinstance(verdict, dict):
        return None  # the reader waits for the rest of the line
    return verdict


def number_width(lines: int) -> int:
    """Digits of the line numbers column for a file of ``lines`` lines (at least five)."""
    return max(5, len(str(lines)))


def _lead(
    line: Line, palette: Palette, verdict: Any, width: int = 5
) -> tuple[Text, dict[str, Any] | None]:
    """The line number and what the line is; the record when it is one."""
    out = Text(no_wrap=True)
    out.append(f"{line.number:>{width}} ", style=palette["muted"])
    if isinstance(verdict, str):
        out.append(f"✗ unreadable: {verdict}  ", style=palette["error"])
        return out, None
    if verdict is None:
        if not line.complete:
            note = "… partial line (no newline yet; the writer may be mid-line)"
            out.append(note, style=palette["warning"])
        else:
            out.append("(empty line)", style=palette["muted"])
        return out, None
    record = dict(verdict)
    out.append(f"{gate(str(record.get('type', '?'))):<9}", style=palette["primary"])
    if not line.complete:
        out.append(" (no newline yet)", style=palette["warning"])
    if record.pop(ELIDED_BYTES, None) is not None:
        out.append(f" (line of {size(line.size)}, its result not shown)", style=palette["warning"])
    return out, record


def render_line(line: Line, mask: Redactor, palette: Palette, width: int = 5) -> Text:
    """One row: number (``width`` digits), kind, and the record's other fields on one line."""
    verdict = verdict_of(line)
    out, record = _lead(line, palette, verdict, width)
    if isinstance(verdict, str):
        out.append(gate(mask(line.raw[:ROW_CHARS].decode("utf-8", errors="replace"))))
    elif record is not None:
        record.pop("type", None)
        first = {name: record.pop(name) for name in ROW_FIRST if name in record}
        body = dumps(first | record).decode()[:ROW_CHARS]
        out.append(" " + gate(mask(body)))
    return out


def render_whole(line: Line, mask: Redactor, palette: Palette) -> Text:
    """The line under the cursor, pretty-printed."""
    verdict = verdict_of(line)
    out, record = _lead(line, palette, verdict)
    out.no_wrap = False
    if isinstance(verdict, str):
        raw = line.raw[:MAX_LINE_BYTES].decode("utf-8", errors="replace")
        out.append("\n" + gate(mask(raw)))
    elif record is not None:
        body, note = layout(record)
        if note is not None:
            out.append(f"\n({note})", style=palette["warning"])
        out.append("\n" + gate_lines(mask(body)))
    return out


class JournalScreen(FileViewer):
    SCREEN_NAME = "journal"
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("journal", exclude=LIST_WIDGET_IDS)
    DEFAULT_CSS = """
    JournalScreen #journal-columns { height: 1; text-style: bold; }
    JournalScreen #journal-filter {
        dock: bottom; height: 1; border: none; padding: 0 1; background: $boost;
    }
    """

    def __init__(
        self, services: Services, run: RunRow, path: str, details: Run | None = None
    ) -> None:
        """``path``: the journal (a remote run's local copy of it); ``details``: the whole
        run when it is at hand (a remote run's copy), else it is read in a job."""
        self.filter_text = ""
        self._filter: re.Pattern[bytes] | None = None
        super().__init__(services, run, path)
        self.problems: tuple[Problem, ...] = ()
        """The unreadable lines the run list counted (read with the run, in a job)."""
        self.raw = False
        """The raw lines (``v``), not the table."""
        folder = os.path.dirname(path)
        self.facts = JournalFacts.of(details) if details else JournalFacts(folder, {}, {})
        self.columns: tuple[Column, ...] = NARROW

    def above_rows(self) -> ComposeResult:
        yield Static("", id="journal-columns")

    def compose(self) -> ComposeResult:
        yield from super().compose()
        yield Input(placeholder="& lines whose event, label or phase hold", id="journal-filter")

    def on_mount(self) -> None:
        # Textual calls the viewer's own on_mount too (each class's handler, in turn)
        self.query_one("#journal-filter").display = False
        run, services = self.run, self.services
        if run.host is None:

            def read() -> tuple[tuple[Problem, ...], JournalFacts | None]:
                whole = services.read(run)
                if whole is None:
                    return (), None
                return whole.problems, JournalFacts.of(whole)

            self.jobs.start("details", read, self._run_read, what="Couldn't read the run")

    def _run_read(self, read: tuple[tuple[Problem, ...], JournalFacts | None]) -> None:
        self.problems, facts = read
        if facts is not None:
            self.facts = facts
            if not self.raw and self.view.count:
                self.view.read_again()
                if self.indexed:
                    self.view.read_ahead_end()  # the last rows stay read ahead, as before
        self._show_header()

    def row_pattern(self) -> re.Pattern[bytes] | None:
        return getattr(self, "_filter", None)

    def row_shape(self) -> object:
        return number_width(self.index.lines)

    def render_row(self, line: Line, mask: Redactor, palette: Palette) -> Text:
        width = number_width(self.index.lines)
        if self.raw:
            return render_line(line, mask, palette, width)
        return table_row(line, verdict_of(line), mask, palette, self.facts, self.columns, width)

    def render_detail(self, line: Line, mask: Redactor, palette: Palette) -> Text:
        return render_whole(line, mask, palette)

    def on_resize(self, _event: events.Resize) -> None:
        columns = columns_for(self.size.width)
        if columns != self.columns:
            self.columns = columns
            self._show_header()
            if self.view.count and not self.raw:
                self.view.read_again()

    # -- v and & -----------------------------------------------------------------------------

    def action_toggle_raw(self) -> None:
        self.raw = not self.raw
        self._show_header()
        self.view.read_again()

    def action_line_filter(self) -> None:
        box = self.query_one("#journal-filter", Input)
        box.value = self.filter_text
        self._filter_box(True)
        box.focus()

    def _filter_box(self, shown_now: bool) -> None:
        self.query_one("#journal-filter").display = shown_now
        self.query_one(KeyBar).display = not shown_now
        if not shown_now and self.focused is not self.view:
            self.set_focus(self.view)

    @on(Input.Submitted, "#journal-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._filter_box(False)
        if event.value == self.filter_text:
            return
        text, calls = event.value, self.facts.calls
        self.jobs.start(  # a run of 50,000 calls: their labels and phases are looked through
            "line-filter",
            lambda: (text, line_filter(text, calls)),
            self._filter_made,
            what="Couldn't filter the journal",
        )

    def _filter_made(self, made: tuple[str, re.Pattern[bytes] | None]) -> None:
        self.filter_text, self._filter = made
        self.index = LineIndex(self.path, rows=self._filter)
        self.indexed = False
        self.view.reset()
        self._show_header()
        self.scan()

    def action_back(self) -> None:
        if self.query_one("#journal-filter").display:
            self._filter_box(False)  # the box closes; the filter stays until changed
            return
        super().action_back()

    # -- the header --------------------------------------------------------------------------

    def header(self) -> Text:
        index = self.index
        facts = ["journal" + (" (raw)" if self.raw else ""), f"run {self.run.run_id}"]
        shown_rows = f"{index.row_count:,} of " if self._filter is not None else ""
        if self.error:
            facts.append(f"couldn't read: {self.error}")
        elif self.indexed:
            facts.append(f"{shown_rows}{index.lines:,} lines")
        else:
            share = index.scanned * 100 // index.size if index.size else 0
            facts.append(f"{shown_rows}{index.lines:,} lines so far (indexing, {share}%)")
        if self.filter_text:
            facts.append(f"& {self.filter_text}")
        bad = sorted(
            problem.line for problem in self.problems if problem.line and problem.path == self.path
        )
        if bad:
            named = ", ".join(str(number) for number in bad[:SHOWN_PROBLEMS])
            more = "…" if len(bad) > SHOWN_PROBLEMS else ""
            facts.append(f"{len(bad)} unreadable (line {named}{more})")
        if self.tally.summary():
            facts.append(self.tally.summary())
        facts.append(where_read(self.run, self.path))
        if self.is_mounted:
            names = "" if self.raw else header_line(self.columns, number_width(index.lines))
            columns = self.query_one("#journal-columns", Static)
            columns.display = not self.raw
            columns.update(Text(names, no_wrap=True, overflow="ellipsis"))
        return Text(shown("  ·  ".join(facts)))
