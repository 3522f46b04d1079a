"""The raw journal of a run, one line per row; ``enter`` shows the row's line pretty-printed.

What each line is (a record, or unreadable and why) is what `wftop.core.read.jsonl` reads
(`line_verdict`, the reader's rules for one line): a line the run list folds is never
shown here as unreadable, and the other way round. Only the lines in view are read.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.binding import BindingType

from wftop.core.read.deepjson import dumps, layout
from wftop.core.read.jsonl import ELIDED_BYTES, Problem, line_verdict
from wftop.core.read.lineindex import Line
from wftop.core.row import RunRow
from wftop.core.text.gate import gate, gate_lines, shown
from wftop.core.text.redact import Redactor
from wftop.tui.format import size
from wftop.tui.keys import LIST_WIDGET_IDS, bindings_for
from wftop.tui.screens.viewer import FileViewer, where_read
from wftop.tui.services import Services
from wftop.tui.styles import Palette

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

    def __init__(self, services: Services, run: RunRow, path: str) -> None:
        """``path``: the journal (a remote run's local copy of it)."""
        super().__init__(services, run, path)
        self.problems: tuple[Problem, ...] = ()
        """The unreadable lines the run list counted (read with the run, in a job)."""

    def on_mount(self) -> None:
        # Textual calls the viewer's own on_mount too (each class's handler, in turn)
        run, services = self.run, self.services
        if run.host is None and run.unreadable_lines:

            def read() -> tuple[Problem, ...]:
                whole = services.read(run)
                return whole.problems if whole is not None else ()

            self.jobs.start("problems", read, self._problems_read, what="Couldn't read the run")

    def _problems_read(self, problems: tuple[Problem, ...]) -> None:
        self.problems = problems
        self._show_header()

    def row_shape(self) -> object:
        return number_width(self.index.lines)

    def render_row(self, line: Line, mask: Redactor, palette: Palette) -> Text:
        return render_line(line, mask, palette, number_width(self.index.lines))

    def render_detail(self, line: Line, mask: Redactor, palette: Palette) -> Text:
        return render_whole(line, mask, palette)

    def header(self) -> Text:
        index = self.index
        facts = ["journal"]
        if self.error:
            facts.append(f"couldn't read: {self.error}")
        elif self.indexed:
            facts.append(f"{index.lines:,} lines")
        else:
            share = index.scanned * 100 // index.size if index.size else 0
            facts.append(f"{index.lines:,} lines so far (indexing, {share}%)")
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
        return Text(shown("  ·  ".join(facts)))
