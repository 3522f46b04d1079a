"""The rules, then the channels, in a thread of the notifier's own.

`Notifier.submit` is what a view calls where it learns of an event (the TUI's loop, a
watch's stream): it checks what needs no disk (the kind is on; the run's screen is not the
one shown) and queues the event. The notifier's thread claims it in the ledger (once
across processes, the cooldown) and sends it on every channel. A channel that fails says
so once (``report``: the TUI's toast, a watch's stderr, and the log in the state dir) and
is tried again with the next event; a program that hangs is killed after its timeout. The
caller never waits on any of it.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from wftop.core.notify.channels import Channel, ChannelError
from wftop.core.notify.events import Event
from wftop.core.notify.ledger import Ledger
from wftop.core.notify.settings import NotifySettings
from wftop.core.status import iso_utc
from wftop.core.system.statedir import ensure_private_dir, open_private

Report = Callable[[str], None]


def file_log(state: Path) -> Report:
    """Appends each line, with the time, to ``<state>/notify/log`` (0600)."""
    import time

    def write(line: str) -> None:
        with contextlib.suppress(OSError):
            folder = ensure_private_dir(state / "notify")
            fd = open_private(folder / "log", os.O_WRONLY | os.O_APPEND)
            with os.fdopen(fd, "a", encoding="utf-8") as handle:
                handle.write(f"{iso_utc(time.time())} {line}\n")

    return write


class Notifier:
    """Tells events on ``channels``, each once, off the caller's thread."""

    def __init__(
        self,
        settings: NotifySettings,
        channels: Sequence[Channel],
        ledger: Ledger,
        *,
        report: Report,
        log: Report | None = None,
    ) -> None:
        self.settings = settings
        self.channels = tuple(channels)
        self.ledger = ledger
        self.report = report
        self.log = log
        self.failed: set[str] = set()
        """Channels that have said they failed (each says so once)."""
        self.told: list[tuple[Event, tuple[str, ...]]] = []
        """Every event told, with the channels that delivered it (oldest first)."""
        self._queue: queue.SimpleQueue[Event | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(channel.name for channel in self.channels)

    def wanted(self, event: Event, shown: str | None = None) -> bool:
        """The kind is on, a channel is there, and the run is not the one on screen."""
        return bool(self.channels) and self.settings.wants(event.kind) and event.ident != shown

    def submit(self, event: Event, *, shown: str | None = None) -> bool:
        """Queue ``event`` unless the rules that need no disk say no (``shown``: the run
        whose screen is the one shown). Never blocks."""
        if not self.wanted(event, shown):
            return False
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._serve, name="wftop-notify", daemon=True
                )
                self._thread.start()
        self._queue.put(event)
        return True

    def _serve(self) -> None:
        while (event := self._queue.get()) is not None:
            self.deliver(event)

    def deliver(self, event: Event) -> tuple[str, ...]:
        """Claim ``event`` in the ledger and send it on every channel; the channels that
        delivered it (none when it was told already, or its run is cooling down)."""
        try:
            claimed = self.ledger.claim(event, self.settings.cooldown)
        except OSError as error:
            self._say("ledger", f"cannot record what was told in the state dir ({error})")
            claimed = True
        if not claimed:
            return ()
        sent: list[str] = []
        for channel in self.channels:
            try:
                channel.send(event)
            except ChannelError as error:
                self._say(channel.name, str(error))
                continue
            sent.append(channel.name)
        delivered = tuple(sent)
        self.told.append((event, delivered))
        return delivered

    def _say(self, name: str, why: str) -> None:
        if name in self.failed:
            return
        self.failed.add(name)
        line = f"notifications: {name} failed: {why}"
        if self.log is not None:
            self.log(line)
        self.report(line)

    def close(self, timeout: float = 2.0) -> None:
        """Let what is queued go out (for at most ``timeout`` seconds), then stop."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._queue.put(None)
            thread.join(timeout)
