"""One agent's transcript as a conversation, one row per line of it, followed while it grows.

Rows are the transcript's ``user`` and ``assistant`` lines (found by their first bytes while
the file is indexed in a thread); only the rows in view are parsed, each drawn as one line,
and the row under the cursor is shown whole below the list. Everything shown goes through
a `Redactor`; the header says how many secret-shaped strings were masked in what was drawn.
"""

from __future__ import annotations

import os
import re
from typing import ClassVar

from rich.text import Text
from textual.binding import BindingType

from wftop.core.model import Status
from wftop.core.read.lineindex import Line
from wftop.core.read.lineverdict import line_verdict
from wftop.core.row import RunRow
from wftop.core.text.gate import gate, shown_each
from wftop.core.text.redact import Redactor
from wftop.tui.conversation import (
    KIND_API_ERROR,
    KIND_PROMPT,
    KIND_STRUCTURED,
    KIND_TEXT,
    KIND_THINKING,
    KIND_TOOL_CALL,
    KIND_TOOL_RESULT,
    Item,
    conversation,
)
from wftop.tui.format import one_line, size
from wftop.tui.keys import LIST_WIDGET_IDS, bindings_for
from wftop.tui.screens.viewer import FileViewer
from wftop.tui.screens.viewer_parts import where_read
from wftop.tui.services import Services
from wftop.tui.styles import Palette

CONVERSATION_LINES = re.compile(rb'"type":"(?:user|assistant)"')
"""The transcript lines that are rows: the CLI writes ``type`` near the start of each."""

PROMPT_SEARCH_ROWS = 20
"""Rows read from the start to find the prompt (the first user text)."""

HEADINGS = {
    KIND_PROMPT: ("▌ prompt", "primary"),
    KIND_TEXT: ("▌ assistant", "success"),
    KIND_THINKING: ("▌ thinking", "muted"),
    KIND_TOOL_CALL: ("▌ tool call", "accent"),
    KIND_TOOL_RESULT: ("▌ tool result", "muted"),
    KIND_STRUCTURED: ("▌ StructuredOutput (the result returned to the script)", "success"),
    KIND_API_ERROR: ("▌ ", "error"),
}


def heading(item: Item) -> tuple[str, str]:
    """What an item is, and the palette name of its colour."""
    words, style = HEADINGS.get(item.kind, ("▌ " + item.kind, "muted"))
    if item.kind == KIND_API_ERROR:
        words = f"▌ ⚠ {item.title}"
    elif item.kind == KIND_TOOL_CALL:
        words = f"▌ tool call · {item.title}"
    elif item.kind == KIND_TOOL_RESULT and item.is_error:
        words, style = "▌ tool result (error)", "error"
    return words, style


def render_item(item: Item, palette: Palette) -> Text:
    words, style = heading(item)
    out = Text()
    out.append(words, style=palette[style])
    out.append(f"  line {item.line}\n", style=palette["muted"])
    body_style = palette["error"] if item.kind == KIND_API_ERROR else palette[""]
    out.append(item.text or "(empty)", style=body_style)
    if item.cut:
        out.append(f"\n… {item.cut:,} more characters not shown", style=palette["muted"])
    return out


def render_row(line: Line, items: list[Item] | str | None, palette: Palette) -> Text:
    """One row: the line's first item on one line (or why the line reads as nothing)."""
    out = Text(no_wrap=True)
    if isinstance(items, str):
        why = gate(items)
        return out.append(f"✗ line {line.number} unreadable: {why}", style=palette["error"])
    if items is None:
        return out.append(f"… line {line.number}: no newline yet", style=palette["warning"])
    if not items:
        return out.append(f"· line {line.number}: nothing to show", style=palette["muted"])
    first = items[0]
    words, style = heading(first)
    out.append(words, style=palette[style])
    body_style = palette["error"] if first.kind == KIND_API_ERROR else palette[""]
    out.append("  " + one_line(first.text or "(empty)", 400), style=body_style)
    if len(items) > 1:
        out.append(f"  (+{len(items) - 1} more)", style=palette["muted"])
    return out


class AgentScreen(FileViewer):
    SCREEN_NAME = "agent"
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("agent", exclude=LIST_WIDGET_IDS)
    ROWS = CONVERSATION_LINES
    DETAIL_OPEN = True

    def __init__(
        self, services: Services, run: RunRow, agent_id: str, label: str, folder: str
    ) -> None:
        """``folder``: where the transcript is (the run's folder, or a remote run's copy)."""
        super().__init__(services, run, os.path.join(folder, f"agent-{agent_id}.jsonl"))
        self.agent_id = agent_id
        self.label = label
        self.follow = run.status in (Status.RUNNING, Status.STALLED)
        self.prompt_line: int | None = None
        """The line of the prompt (the first user text), once found; 0: none."""

    def following(self) -> bool:
        return self.follow and self.services.live

    def start_at_end(self) -> bool:
        return self.follow

    def _items(self, line: Line, mask: Redactor) -> list[Item] | str | None:
        verdict = line_verdict(line.raw, line.size)
        if not isinstance(verdict, dict):
            return verdict if line.complete else None
        prompt = self._prompt_line()
        items, _ = conversation(
            [(line.number, verdict)], mask, first_prompt_seen=line.number != prompt
        )
        return items

    def _prompt_line(self) -> int:
        """The prompt's line: the first user line whose message is text (in a thread)."""
        if self.prompt_line is not None:
            return self.prompt_line
        index = self.index
        for line in index.read_rows(0, PROMPT_SEARCH_ROWS):
            record = line_verdict(line.raw, line.size)
            message = record.get("message") if isinstance(record, dict) else None
            if (
                isinstance(record, dict)
                and record.get("type") == "user"
                and isinstance(message, dict)
                and isinstance(message.get("content"), str)
            ):
                self.prompt_line = line.number
                return line.number
        if index.row_count >= PROMPT_SEARCH_ROWS or self.indexed:
            self.prompt_line = 0
        return 0

    def render_row(self, line: Line, mask: Redactor, palette: Palette) -> Text:
        return render_row(line, self._items(line, mask), palette)

    def render_detail(self, line: Line, mask: Redactor, palette: Palette) -> Text:
        items = self._items(line, mask)
        if not isinstance(items, list) or not items:
            return render_row(line, items, palette)
        out = Text()
        for number, item in enumerate(items):
            if number:
                out.append("\n\n")
            out.append_text(render_item(item, palette))
        return out

    def header(self) -> Text:
        state = "following" if self.follow else "not following"
        if self.error:
            state = f"couldn't read: {self.error}"
        facts = [
            self.tally.summary() or "0 masked",
            f"{self.index.row_count:,} line{'s' * (self.index.row_count != 1)} of conversation",
            f"{size(self.index.scanned)} read",
        ]
        lines = [
            f"{self.label}  agent {self.agent_id}  ·  run {self.run.run_id}  ·  {state}",
            "  ·  ".join(facts) + f"  ·  {where_read(self.run, self.path)}",
        ]
        return Text(shown_each(lines))

    def action_toggle_follow(self) -> None:
        self.follow = not self.follow
        if self.follow:
            self.view.action_last()
            self.scan()
        self._show_header()

    def copy_agent(self) -> str | None:
        return self.agent_id
