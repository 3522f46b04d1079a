"""Toasts: what the app says in passing, calm (`ToastApp`, the app's base).

A toast shows its title and at most `TOAST_LINES` lines (`calm` cuts the text with ``…``;
the whole is kept in ``toasts`` and the log), goes by itself (`TOAST_SECONDS` unless its
caller says otherwise), is not stacked on the same one still shown, and over a window that
says things inside its own box (the resume plan's ``say``) is said there instead: a toast
would cover the window's border. Its text is masked and gated and never read as markup. A
failure of background work (`wftop.tui.work.JobFailed`) is said in a toast and the log.
"""

from __future__ import annotations

import textwrap
import time

from textual import on
from textual.app import App
from textual.notifications import SeverityLevel
from textual.screen import ModalScreen

from wftop.core.compared import record
from wftop.core.text.gate import shown, shown_each
from wftop.tui.log import log_failure
from wftop.tui.work import JobFailed

BANNER_SECONDS = 12.0
"""How long the start banner (the demo's) stays; its title then stays in the list's header."""
TOAST_SECONDS = 8.0
"""How long a toast stays when its caller does not say (every toast goes by itself)."""
TOAST_WIDTH = 60
"""A toast's width (app.tcss), or the screen's when narrower."""
TOAST_FRAME = 3
"""Cells of a toast's width that are not text: its padding and its left border."""
TOAST_RACK = 2
"""Cells of the screen's width the toasts' rack keeps for its scroll bar."""
TOAST_LINES = 2


@record
class Toast:
    """A toast as it was raised (tests and the log read them)."""

    title: str
    message: str
    """As shown: masked, gated, one line per line."""
    severity: SeverityLevel
    until: float = 0.0
    """When it goes (the app's monotonic clock)."""
    markup: bool = False
    """Never: a toast's brackets are text."""


def calm(text: str, width: int) -> str:
    """``text`` as a toast shows it: at most `TOAST_LINES` lines of ``width`` cells, cut
    with ``…`` (the whole text is in ``ToastApp.toasts`` and the log)."""
    width = max(width, 10)
    lines: list[str] = []
    for line in text.split("\n"):
        lines += textwrap.wrap(line, width) or [""]
    if len(lines) <= TOAST_LINES:
        return "\n".join(lines)
    kept = lines[:TOAST_LINES]
    kept[-1] = kept[-1][: width - 1].rstrip() + "…"
    return "\n".join(kept)


class ToastApp(App[int]):
    """An app whose toasts are calm."""

    def __init__(self) -> None:
        super().__init__()
        self.toasts: list[Toast] = []
        """Every toast raised, oldest first (whole: a toast shows at most two lines)."""
        self._up: list[Toast] = []

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A toast: its message and title masked and gated (`wftop.core.text.gate.shown`),
        each line of the message kept one line, and never read as markup (a toast names
        runs, labels and paths, whose brackets are text); over a modal window (the plan,
        help, copy) only the newest one shows, so toasts never pile up over what the window
        says."""
        lines = shown_each(message.split("\n")) if message else message
        seconds = timeout if timeout is not None and timeout > 0 else TOAST_SECONDS
        toast = Toast(shown(title), lines, severity, time.monotonic() + seconds)
        self.toasts.append(toast)
        if any((up.title, up.message) == (toast.title, toast.message) for up in self.showing):
            return  # the same toast is still shown: merged, not stacked
        say = getattr(self.screen, "say", None) if self.is_running else None
        if callable(say):  # a window that says it inside its own box (a toast covers it)
            say(toast.title, lines, severity)
            return
        if self.is_running and isinstance(self.screen, ModalScreen):
            self.clear_notifications()
        self._up.append(toast)
        width = min(TOAST_WIDTH, self.size.width - TOAST_RACK) - TOAST_FRAME
        super().notify(
            calm(lines, width), title=toast.title, severity=severity, timeout=seconds, markup=False
        )

    def clear_notifications(self) -> None:
        self._up.clear()
        super().clear_notifications()

    @property
    def showing(self) -> list[Toast]:
        """The toasts up now, oldest first."""
        now = time.monotonic()
        self._up = [toast for toast in self._up if toast.until > now]
        return list(self._up)

    # -- failures ----------------------------------------------------------------------------

    @on(JobFailed)
    def job_failed(self, message: JobFailed) -> None:
        message.stop()
        self.failed(message.what, message.error, message.trace)

    def failed(self, what: str, error: BaseException, trace: str = "") -> None:
        """A failure of background work: a toast, and the log."""
        text = f"{type(error).__name__}: {error}"
        path = log_failure(what, text, trace)
        where = f" (logged in {path})" if path else ""
        self.notify(text + where, title=what, severity="error", timeout=10)
        self.log.error(what, text, trace)
