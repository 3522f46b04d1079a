"""The views listening to an engine: each told every message in order, let go when it is
gone, and waited for when it has much left unread.

A view is anything with ``send(bytes) -> bool`` (False: gone); the servers
(`wftop.core.engine.serve`) make them of a pipe or a socket connection, and one that can
say how much it was sent and has not read (`Backlogged`) is waited for before a large
change set goes out (`Views.drained`).
"""

from __future__ import annotations

import asyncio
from typing import Protocol, runtime_checkable

DRAIN_BELOW = 8 << 20
"""Bytes a view may have unread before the next of a paced run of messages is sent to it."""
DRAIN_WAIT = 5.0
"""Seconds the engine waits at most for a view to read (a view stuck longer is one the
server drops)."""


class Subscriber(Protocol):
    """A view listening: ``send`` queues a message, False when the view is gone."""

    def send(self, data: bytes) -> bool: ...


@runtime_checkable
class Backlogged(Protocol):
    """A view that says how many bytes it was sent and has not read yet."""

    def backlog(self) -> int: ...


class Views:
    """The views listening, in the order they joined."""

    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []
        self._joined: asyncio.Event | None = None
        """Set when a view joins while the engine waits for a first one (`first`)."""

    def __len__(self) -> int:
        return len(self._subscribers)

    def join(self, subscriber: Subscriber, lines: list[bytes]) -> None:
        """``subscriber`` is sent ``lines`` (what it must know first), and listens from now
        on unless it is gone already."""
        if all(subscriber.send(line) for line in lines):
            self._subscribers.append(subscriber)
            if self._joined is not None:
                self._joined.set()

    def leave(self, subscriber: Subscriber) -> None:
        if subscriber in self._subscribers:
            self._subscribers.remove(subscriber)

    def broadcast(self, line: bytes) -> None:
        """``line`` to every view; the views gone are let go."""
        self._subscribers = [sub for sub in self._subscribers if sub.send(line)]

    def farewell(self, line: bytes) -> None:
        """``line`` to every view, then every view let go."""
        self.broadcast(line)
        self._subscribers = []

    async def drained(self, below: int = DRAIN_BELOW) -> None:
        """Until no view has more than ``below`` bytes unread (at most `DRAIN_WAIT`)."""
        loop = asyncio.get_running_loop()
        until = loop.time() + DRAIN_WAIT
        while loop.time() < until and any(
            isinstance(view, Backlogged) and view.backlog() > below for view in self._subscribers
        ):
            await asyncio.sleep(0.01)

    async def first(self, seconds: float, stop: asyncio.Event) -> None:
        """Until a view has joined or ``stop`` is set, at most ``seconds`` (none joined yet):
        a shared engine waits so for the view that started it before it reads its live
        index."""
        if seconds <= 0 or self._subscribers or stop.is_set():
            return
        joined = self._joined = asyncio.Event()
        waits = {asyncio.ensure_future(joined.wait()), asyncio.ensure_future(stop.wait())}
        try:
            await asyncio.wait(waits, timeout=seconds, return_when="FIRST_COMPLETED")
        finally:
            self._joined = None
            for wait in waits:
                wait.cancel()
