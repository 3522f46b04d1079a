"""One agent's transcript as a conversation, followed live while the file grows.

The transcript is read by a `JsonlTail` in a thread (never on the event loop),
only what was appended since the last read, and each item is clipped before it
is drawn, so a transcript of tens of MB neither blocks the UI nor fills the
screen. Everything shown goes through one `Redactor`; the header says how many
secret-shaped strings it masked.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, ClassVar, cast

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.screen import Screen
from textual.widgets import RichLog, Static

from wftop.core.jsonl import Batch, JsonlTail
from wftop.core.model import Run, Status
from wftop.core.redact import Redactor
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
from wftop.tui.format import display_path, size
from wftop.tui.keys import LIST_WIDGET_IDS, binding, bindings_for
from wftop.tui.styles import Palette
from wftop.tui.widgets.key_bar import KeyBar

if TYPE_CHECKING:
    from wftop.tui.app import WftopApp

FOLLOW_INTERVAL = 1.0
"""Seconds between reads of a growing transcript."""

CHUNK_BYTES = 4 * 1024 * 1024
"""Bytes parsed per read, so a large transcript appears piece by piece."""


class ChunkedTail(JsonlTail):
    """A `JsonlTail` that reads at most `CHUNK_BYTES` per call.

    Stopping short is what the reader already does when a writer is mid-file: the
    partial last line stays for the next call. So each call parses one bounded
    piece, and the screen shows it before the next is read.
    """

    chunk = CHUNK_BYTES
    """Bytes this call may read; grows when one line is longer than that."""

    def _read_lines(self, fd: int, size: int, batch: Batch) -> None:
        start = self._big_scanned if self._big_prefix is not None else self.offset
        super()._read_lines(fd, min(size, start + self.chunk), batch)

    def caught_up(self) -> bool:
        try:
            return self.offset >= os.stat(self.path).st_size
        except (OSError, ValueError):  # ValueError: a NUL in an agent id read from disk
            return True


HEADINGS = {
    KIND_PROMPT: ("▌ prompt", "primary"),
    KIND_TEXT: ("▌ assistant", "success"),
    KIND_THINKING: ("▌ thinking", "muted"),
    KIND_TOOL_CALL: ("▌ tool call", "accent"),
    KIND_TOOL_RESULT: ("▌ tool result", "muted"),
    KIND_STRUCTURED: ("▌ StructuredOutput (the result returned to the script)", "success"),
    KIND_API_ERROR: ("▌ ", "error"),
}


def render_item(item: Item, palette: Palette) -> Text:
    heading, style = HEADINGS.get(item.kind, ("▌ " + item.kind, "muted"))
    if item.kind == KIND_API_ERROR:
        heading = f"▌ ⚠ {item.title}"
    elif item.kind == KIND_TOOL_CALL:
        heading = f"▌ tool call · {item.title}"
    elif item.kind == KIND_TOOL_RESULT and item.is_error:
        heading, style = "▌ tool result (error)", "error"
    out = Text()
    out.append(heading, style=palette[style])
    out.append(f"  line {item.line}\n", style=palette["muted"])
    body_style = palette["error"] if item.kind == KIND_API_ERROR else palette[""]
    out.append(item.text or "(empty)", style=body_style)
    if item.cut:
        out.append(f"\n… {item.cut:,} more characters not shown", style=palette["muted"])
    return out


class AgentScreen(Screen[None]):
    SCREEN_NAME = "agent"
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("agent", exclude=LIST_WIDGET_IDS)

    def __init__(self, run: Run, agent_id: str, label: str) -> None:
        super().__init__()
        self.run = run
        self.agent_id = agent_id
        self.label = label
        self.path = os.path.join(run.folder.path, f"agent-{agent_id}.jsonl")
        self.mask = Redactor()
        self.following = run.status in (Status.RUNNING, Status.STALLED)
        self.items = 0
        self.problems = 0
        self.bytes_read = 0
        self.loaded = False

    @property
    def wftop(self) -> WftopApp:
        """The app, typed for reading its state (its module is imported for typing only)."""
        return cast("WftopApp", self.app)

    def compose(self) -> ComposeResult:
        yield Static("", id="agent-header")
        log = ConversationLog(id="agent-log", wrap=True, highlight=False, markup=False, min_width=1)
        log.auto_scroll = False
        yield log
        yield KeyBar()

    def on_mount(self) -> None:
        self._header()
        self.follow_transcript()

    def _header(self) -> None:
        state = "following" if self.following else "not following"
        if not os.path.exists(self.path):
            state = "no transcript file"
        facts = [
            self.mask.summary() or "0 masked",
            f"{self.items} item" + ("s" if self.items != 1 else ""),
            f"{size(self.bytes_read)} read",
        ]
        if self.problems:
            facts.append(f"{self.problems} unreadable lines")
        lines = [
            f"{self.label}  agent {self.agent_id}  ·  run {self.run.run_id}  ·  {state}",
            "  ·  ".join(facts) + f"  ·  {display_path(self.path)}",
        ]
        self.query_one("#agent-header", Static).update(Text("\n".join(lines)))

    @work(exclusive=True, group="transcript", exit_on_error=False, name="follow-transcript")
    async def follow_transcript(self) -> None:
        tail = ChunkedTail(self.path)
        prompt_seen = False
        while True:
            batch = await asyncio.to_thread(tail.read)
            items, prompt_seen = conversation(
                batch.records, self.mask, first_prompt_seen=prompt_seen
            )
            if batch.reset:
                self.query_one(ConversationLog).clear()
                self.items = 0
            self.problems += sum(1 for problem in batch.problems if problem.line)
            self.bytes_read = tail.offset
            self._show(items)
            if not tail.caught_up():
                # More is already on disk: read the next piece. A piece that held no
                # whole line was one long line: read more at once until it ends.
                got = batch.records or batch.problems
                tail.chunk = CHUNK_BYTES if got else tail.chunk * 4
                continue
            self.loaded = True
            self._header()
            if not (self.following and self.wftop.live):
                break
            await asyncio.sleep(FOLLOW_INTERVAL)

    def _show(self, items: list[Item]) -> None:
        log = self.query_one(ConversationLog)
        palette = self.wftop.styles_palette
        for item in items:
            log.write(render_item(item, palette))
            log.write(Text(""))
        self.items += len(items)
        if items and self.following and log.is_vertical_scroll_end:
            log.scroll_end(animate=False)
        self._header()

    def action_toggle_follow(self) -> None:
        self.following = not self.following
        if self.following:
            self.query_one(ConversationLog).scroll_end(animate=False)
            self.follow_transcript()
        self._header()

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_top(self) -> None:
        self.query_one(ConversationLog).scroll_home(animate=False)

    def action_bottom(self) -> None:
        self.query_one(ConversationLog).scroll_end(animate=False)

    def action_copy(self) -> None:
        from wftop.tui.screens.copy import CopyScreen, run_choices

        self.app.push_screen(CopyScreen(run_choices(self.run, self.agent_id)))


class ConversationLog(RichLog):
    """A RichLog that j/k scroll."""

    BINDINGS: ClassVar[list[BindingType]] = [binding("cursor-down"), binding("cursor-up")]

    def action_cursor_down(self) -> None:
        self.scroll_down(animate=False)

    def action_cursor_up(self) -> None:
        self.scroll_up(animate=False)
