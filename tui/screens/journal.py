"""The raw journal of a run, one pretty-printed line after another; bad lines marked.

What each line is (a record, or unreadable and why) is what `wftop.core.jsonl` reads:
the reader every other view uses, so a line the run list folds is never shown here as
unreadable, and the other way round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, cast

import orjson
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.screen import Screen
from textual.widgets import RichLog, Static

from wftop.core.jsonl import ELIDED_BYTES, read_all
from wftop.core.model import Run
from wftop.core.redact import Redactor
from wftop.tui.format import display_path, size
from wftop.tui.keys import LIST_WIDGET_IDS, binding, bindings_for
from wftop.tui.styles import Palette
from wftop.tui.widgets.key_bar import KeyBar

if TYPE_CHECKING:
    from wftop.tui.app import WftopApp

MAX_LINE_BYTES = 64 * 1024
"""Bytes of one journal line that are read and shown; the rest is counted."""

CHUNK = 1024 * 1024

Verdict = dict[str, Any] | str | None
"""What the reader made of a line: its record, why it is unreadable, or nothing."""


def journal_lines(path: str) -> list[tuple[int, bytes, int]]:
    """(line number, first bytes, full length) of every line; long lines are not kept whole."""
    lines: list[tuple[int, bytes, int]] = []
    number, head, length = 1, bytearray(), 0
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            start = 0
            while True:
                newline = chunk.find(b"\n", start)
                piece = chunk[start:] if newline < 0 else chunk[start:newline]
                room = MAX_LINE_BYTES - len(head)
                if room > 0:
                    head += piece[:room]
                length += len(piece)
                if newline < 0:
                    break
                lines.append((number, bytes(head), length))
                number, head, length, start = number + 1, bytearray(), 0, newline + 1
    if length:
        lines.append((number, bytes(head), -length))  # no newline yet: still being written
    return lines


def line_verdicts(path: str) -> dict[int, Verdict]:
    """The reader's record or problem of every line, by line number (results kept short)."""
    batch = read_all(path, keep_bytes=MAX_LINE_BYTES)
    verdicts: dict[int, Verdict] = {line: record for line, record in batch.records}
    verdicts.update((problem.line, problem.reason) for problem in batch.problems if problem.line)
    return verdicts


def render_line(
    number: int,
    raw: bytes,
    length: int,
    mask: Redactor,
    palette: Palette,
    verdict: Verdict = None,
) -> Text:
    out = Text()
    out.append(f"{number:>4} ", style=palette["muted"])
    if isinstance(verdict, str):
        out.append(f"✗ unreadable: {verdict}  ", style=palette["error"])
        out.append(mask(raw.decode("utf-8", errors="replace")[:400]))
        return out
    if verdict is None:
        if length < 0:
            note = "… partial line (no newline yet; the writer may be mid-line)"
            return out.append(note, style=palette["warning"])
        if not raw:
            return out.append("(empty line)", style=palette["muted"])
        shown = f"line of {size(length)}, first {size(len(raw))} shown\n"
        out.append(shown, style=palette["warning"])
        out.append(mask(raw.decode("utf-8", errors="replace")))
        return out
    record = dict(verdict)
    elided = record.pop(ELIDED_BYTES, None)
    kind = str(record.get("type", "?"))
    out.append(f"{kind:<9}", style=palette["primary"])
    if length < 0:
        out.append(" (no newline yet)", style=palette["warning"])
    if elided is not None:
        note = f" (line of {size(abs(length))}, its result not shown)"
        out.append(note, style=palette["warning"])
    body = orjson.dumps(record, option=orjson.OPT_INDENT_2).decode()
    out.append(" " + mask(body).replace("\n", "\n     "))
    return out


class JournalScreen(Screen[None]):
    SCREEN_NAME = "journal"
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("journal", exclude=LIST_WIDGET_IDS)

    def __init__(self, run: Run) -> None:
        super().__init__()
        self.run = run
        self.mask = Redactor()

    def compose(self) -> ComposeResult:
        yield Static(Text(f"journal  {display_path(self.run.folder.journal)}"), id="journal-header")
        log = JournalLog(id="journal-log", wrap=True, highlight=False, markup=False, min_width=1)
        log.auto_scroll = False
        yield log
        yield KeyBar()

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="journal", exit_on_error=False)
    def load(self) -> None:
        try:
            lines = journal_lines(self.run.folder.journal)
            verdicts = line_verdicts(self.run.folder.journal)
        except OSError as error:
            self.app.call_from_thread(
                self.notify, str(error), title="Couldn't read journal", severity="error"
            )
            return
        palette = cast("WftopApp", self.app).styles_palette
        texts = [
            render_line(number, raw, length, self.mask, palette, verdicts.get(number))
            for number, raw, length in lines
        ]
        self.app.call_from_thread(self._show, texts)

    def _show(self, texts: list[Text]) -> None:
        log = self.query_one(JournalLog)
        for text in texts:
            log.write(text)
        bad = sum(1 for text in texts if "✗ unreadable" in text.plain)
        header = f"journal  {display_path(self.run.folder.journal)}  ·  {len(texts)} lines"
        if bad:
            header += f"  ·  {bad} unreadable"
        if self.mask.total:
            header += f"  ·  {self.mask.summary()}"
        self.query_one("#journal-header", Static).update(Text(header))
        log.scroll_home(animate=False)

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_top(self) -> None:
        self.query_one(JournalLog).scroll_home(animate=False)

    def action_bottom(self) -> None:
        self.query_one(JournalLog).scroll_end(animate=False)

    def action_copy(self) -> None:
        from wftop.tui.screens.copy import CopyScreen, run_choices

        self.app.push_screen(CopyScreen(run_choices(self.run)))


class JournalLog(RichLog):
    """A RichLog that j/k scroll."""

    BINDINGS: ClassVar[list[BindingType]] = [binding("cursor-down"), binding("cursor-up")]

    def action_cursor_down(self) -> None:
        self.scroll_down(animate=False)

    def action_cursor_up(self) -> None:
        self.scroll_up(animate=False)
