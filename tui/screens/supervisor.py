"""``M``: what ``wftop supervise`` decided: whether one runs, the runs marked auto, its audit log.

Read from the supervisor's files in the state dir (`wftop.core.supervise.state`) in a
worker, newest line last; a file it cannot use is said on the screen, as ``wftop supervise
--log`` says it. The screen reads again every few seconds while it is open.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from wftop.core.text.gate import shown
from wftop.tui.keys import bindings_for
from wftop.tui.messages import GoBack
from wftop.tui.services import Services
from wftop.tui.widgets.key_bar import KeyBar
from wftop.tui.work import Working

CSS = """
SupervisorScreen #supervisor-header { height: auto; padding: 0 1; background: $panel; }
SupervisorScreen #supervisor-log { height: 1fr; padding: 0 1; }
"""

EVERY = 5.0
"""Seconds between two reads while the screen is open."""


class SupervisorScreen(Working, Screen[None]):
    SCREEN_NAME = "supervisor"
    DEFAULT_CSS = CSS
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("supervisor")

    def __init__(self, services: Services) -> None:
        super().__init__()
        self.services = services

    def compose(self) -> ComposeResult:
        yield Static("reading the supervisor's state…", id="supervisor-header")
        with VerticalScroll(id="supervisor-scroll"):
            yield Static("", id="supervisor-log")
        yield KeyBar()

    def on_mount(self) -> None:
        self.read()
        self.set_interval(EVERY, self.read)

    def read(self) -> None:
        """The supervisor's state and audit log, read in a job."""
        processes = self.services.processes

        def read() -> tuple[str, list[str]]:
            from wftop.core.supervise.audit import AuditError
            from wftop.core.supervise.state import SuperviseStore, running

            store = SuperviseStore()
            try:
                state = store.read_state()
                lines = store.audit.read()
            except AuditError as error:
                return f"wftop supervise: {error}", []
            found = running(store, processes)
            who = f"running (pid {found[0]}) watching {found[1]}" if found else "not running"
            if state.off_at is not None and found is None:
                who += " · switched off"
            marks = ", ".join(mark.run for mark in state.marks) or "none (m marks a run)"
            header = f"supervisor {who}\nmarked auto: {marks}"
            texts = [line.text() for line in lines] or ["no decision yet (wftop supervise --help)"]
            return header, texts

        self.jobs.start("supervisor", read, self._read, what="Couldn't read the supervisor")

    def _read(self, found: tuple[str, list[str]]) -> None:
        self.show(*found)

    def show(self, header: str, lines: list[str]) -> None:
        self.query_one("#supervisor-header", Static).update(
            Text("\n".join(shown(part) for part in header.split("\n")))
        )
        self.query_one("#supervisor-log", Static).update(
            Text("\n".join(shown(line) for line in lines))
        )
        self.query_one("#supervisor-scroll", VerticalScroll).scroll_end(animate=False)

    def action_close(self) -> None:
        self.post_message(GoBack())
