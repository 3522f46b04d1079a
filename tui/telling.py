"""Telling a person what happens (`TellApp`, the app's base): alerts, notifications, the
title, and the runs marked seen.

When a row's status changes (not while the first read goes on), the app raises an alert (a
toast, and the bell until the notifier is made) and hands the change to its `Notices`, which
tell it on the notification channels (`wftop.tui.notices`). The terminal's title counts the
runs that need a person and are not marked seen. ``a`` and ``A`` post `MarkSeen`; the marks
are written in a thread.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Any

from textual import on

from wftop.core.status import PARTIAL
from wftop.tui.alerts import Alert, alert_for
from wftop.tui.messages import MarkSeen
from wftop.tui.notices import Notices
from wftop.tui.services import Services
from wftop.tui.store import Change, Store
from wftop.tui.terminal import TitleSink
from wftop.tui.toasts import ToastApp
from wftop.tui.work import Working

if TYPE_CHECKING:
    from wftop.core.notify.notifier import Notifier

NotifierMade = tuple["Notifier | None", tuple[str, ...]]
"""What the notifier's thread hands back: the notifier, what could not be set up."""

RINGING = frozenset({"dead", "stalled", "failed", "killed", PARTIAL})
"""The states an alert rings the bell for."""


class TellApp(Working, ToastApp):
    """An app that tells what happens to its store's runs."""

    store: Store
    services: Services
    notices: Notices
    title_sink: TitleSink
    _notifier: Notifier | None

    def __init__(self) -> None:
        super().__init__()
        self.alerts: list[Alert] = []
        """Every alert raised since start, oldest first."""

    def tell_changes(self, change: Change) -> None:
        """Alerts for the runs whose status changed (not while the first read goes on), the
        notifications they make, and the title."""
        if (change.changed or change.added) and self.store.progress.known:
            now = self.services.clock()
            for row in (*change.added, *change.changed):
                before = change.before.get(row.ident)
                alert = alert_for(before, row) if before is not None else None
                if alert is not None:
                    self.raise_alert(alert)
                event = self.notices.event(before, row, now)
                if event is not None:
                    self.notices.tell(event, self.shown_run())
        if change.rows or change.clock:
            self.update_title()

    def raise_alert(self, alert: Alert) -> None:
        self.alerts.append(alert)
        if self.services.config.notify:
            title = {"dead": "Run died", "stalled": "Run stalled"}.get(alert.after, "Run finished")
            self.notify(alert.message, title=title, severity=alert.severity, timeout=8)
        if self.services.config.bell and alert.after in RINGING and self.notices.notifier is None:
            self.bell()  # until the notifier is made (it rings once across every wftop)

    def attention(self) -> int:
        """Runs that need a person and are not marked seen (`wftop.tui.store.Store.attention`)."""
        now = self.services.clock()
        return len(
            self.store.needing(now, self.services.config.attention_window, self.notices.seen)
        )

    def update_title(self) -> None:
        count = self.attention()
        title = f"wftop · {count} need attention" if count else "wftop"
        self.sub_title = title
        self.title_sink.write(title)

    @property
    def terminal_title(self) -> str:
        return self.title_sink.title

    # -- the notifier ------------------------------------------------------------------------

    def start_notices(self) -> None:
        """The runs marked seen, read off the loop as the app starts (the list dims them)."""
        self.jobs.start(
            "marks", self._read_marks, self._marks_read, what="Couldn't read the runs marked seen"
        )

    def _read_marks(self) -> dict[str, Any]:
        """In a thread: the marks (the state dir)."""
        acks = self.notices.acks
        return acks.table.read() if acks.table is not None else {}

    def _marks_read(self, marks: dict[str, Any]) -> None:
        self.notices.marks_read(marks)
        self.store.tick()

    def start_notifier(self) -> None:
        """The notifier, made off the loop once the list is first drawn: what it imports and
        asks (tmux) is not the first frame's, and no change is told before the list."""
        if self._notifier_asked:
            return
        self._notifier_asked = True
        made, what = self._notifier_ready, "Couldn't set up notifications"
        self.jobs.start("notices", self._make_notifier, made, what=what)

    _notifier_asked = False

    def _make_notifier(self) -> NotifierMade:
        """In a thread: the notifier (tmux may be asked)."""
        from wftop.core.notify.setup import make_notifier

        if self._notifier is not None:
            return self._notifier, ()
        made = make_notifier(
            self.services.config.notifications,
            env=os.environ,
            write=self._write_terminal,
            state=self.notices.state,
            report=self._notice_failed,
            bell=self.services.config.bell,
        )
        return made.notifier, made.notes

    def _notifier_ready(self, made: NotifierMade) -> None:
        notifier, notes = made
        self.notices.ready(notifier, notes)
        for note in notes:
            self.log.warning(f"notifications: {note}")

    def _write_terminal(self, data: bytes) -> None:
        """A terminal channel's bytes (from the notifier's thread), written on the loop
        through the driver (nothing under a headless test)."""
        try:
            self.call_from_thread(self._to_driver, data.decode("utf-8", "replace"))
        except RuntimeError as error:  # the app is closing
            raise OSError(str(error)) from None

    def _to_driver(self, text: str) -> None:
        driver = self.title_sink.driver
        if driver is not None:
            driver.write(text)

    def _notice_failed(self, line: str) -> None:
        """A channel failed (said once, from the notifier's thread)."""
        with contextlib.suppress(RuntimeError):
            self.call_from_thread(self.notify, line, title="Notifications", severity="warning")

    def shown_run(self) -> str | None:
        """The run whose screen is the one shown (its events are not told), if any."""
        screen = self.screen
        ident = getattr(screen, "ident", None)
        if ident is None:
            ident = getattr(getattr(screen, "row", None), "ident", None)
        return ident if isinstance(ident, str) else None

    # -- runs marked seen --------------------------------------------------------------------

    @on(MarkSeen)
    def mark_seen(self, message: MarkSeen) -> None:
        """``a``: the runs named; ``A``: every run that needs you now."""
        message.stop()
        now = self.services.clock()
        if message.every:
            rows = self.store.needing(now, self.services.config.attention_window, self.notices.seen)
        else:
            rows = [self.store.rows[i] for i in message.idents if i in self.store.rows]
        if not rows:
            self.notify("Nothing needs you.", title="Seen", timeout=3)
            return
        count = len(rows)
        words = rows[0].run_id if count == 1 else f"{count} runs"

        def done(_fresh: int) -> None:
            self.store.tick()
            self.notify(
                f"{words}: seen, until it changes again"
                if count == 1
                else f"{words} seen, until they change again",
                title="Seen",
                timeout=3,
            )

        self.jobs.start(
            "mark-seen", self.notices.mark(rows, now), done, what="Couldn't mark runs seen"
        )
