"""``M``: what ``wftop supervise`` decided: whether one runs, the runs marked auto, its audit log.

Read from the supervisor's files in the state dir (`wftop.core.supervise.state`) in a
worker, newest line last; a file it cannot use is said on the screen, as ``wftop supervise
--log`` says it. The screen reads again every few seconds while it is open.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from wftop.core.text.gate import shown
from wftop.tui.keys import bindings_for
from wftop.tui.widgets.key_bar import KeyBar

CSS = """
SupervisorScreen #supervisor-header { height: auto; padding: 0 1; background: $panel; }
SupervisorScreen #supervisor-log { height: 1fr; padding: 0 1; }
"""

EVERY = 5.0
"""Seconds between two reads while the screen is open."""


class SupervisorScreen(Screen[None]):
    SCREEN_NAME = "supervisor"
    DEFAULT_CSS = CSS
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("supervisor")

    def compose(self) -> ComposeResult:
        yield Static("reading the supervisor's state…", id="supervisor-header")
        with VerticalScroll(id="supervisor-scroll"):
            yield Static("", id="supervisor-log")
        yield KeyBar()

    def on_mount(self) -> None:
        self.read()
        self.set_interval(EVERY, self.read)

    @work(thread=True, exclusive=True, exit_on_error=False)
    def read(self) -> None:
        from wftop.core.supervise.audit import AuditError
        from wftop.core.supervise.state import SuperviseStore, running
        from wftop.core.system.procs import default_table

        store = SuperviseStore()
        try:
            state = store.read_state()
            lines = store.audit.read()
        except AuditError as error:
            self.app.call_from_thread(self.show, f"wftop supervise: {error}", [])
            return
        found = running(store, default_table())
        who = f"running (pid {found[0]}) watching {found[1]}" if found else "not running"
        if state.off_at is not None and found is None:
            who += " · switched off"
        marks = ", ".join(mark.run for mark in state.marks) or "none (m marks a run)"
        header = f"supervisor {who}\nmarked auto: {marks}"
        texts = [line.text() for line in lines] or ["no decision yet (wftop supervise --help)"]
        self.app.call_from_thread(self.show, header, texts)

    def show(self, header: str, lines: list[str]) -> None:
        self.query_one("#supervisor-header", Static).update(
            Text("\n".join(shown(part) for part in header.split("\n")))
        )
        self.query_one("#supervisor-log", Static).update(
            Text("\n".join(shown(line) for line in lines))
        )
        self.query_one("#supervisor-scroll", VerticalScroll).scroll_end(animate=False)

    def action_close(self) -> None:
        self.app.pop_screen()
