"""A view's link to its engine: typed updates from the stream, and a new engine when one dies.

`EngineLink.updates` connects (`Connector`), reads the engine's messages
(`wftop.core.engine.protocol.decode`) and yields what a view acts on:

* `EngineUp`: an engine answers (its hello; ``restarted`` after one was lost);
* `wftop.core.engine.feed.Delta`: rows added, changed and removed (the link's `RowFeed`
  holds them all: `EngineLink.rows`); ``complete`` once the engine's snapshot has ended;
* `wftop.core.engine.protocol.Progress`, `wftop.core.engine.protocol.Kept` (the rows so
  far may be listed: the engine walks the roots for the rest) and
  `wftop.core.engine.protocol.ProblemSeen`;
* `EngineLost`: the stream ended (the engine was killed, crashed, went idle, or spoke
  nonsense), in one line saying so. The link connects again at once (then after a growing
  pause while connecting fails), starting a new engine when none answers; the new
  engine's snapshot is diffed against the rows held, so no run is lost or shown twice.

Everything runs on the caller's event loop: the stream is read as it comes, no thread reads
it and nothing polls. An engine of another protocol or wftop version is never used.

Which engine a view reaches is chosen here (`connector_for`): the one shared per user
(`wftop.core.engine.shared.SocketConnector`), or one of its own over stdio pipes
(`wftop.core.engine.pipes.PipeConnector`) where a socket cannot be used or when
``WFTOP_ENGINE=pipe``. What a connection is: `wftop.core.engine.channel`.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from wftop.core.compared import compared
from wftop.core.engine import protocol as wire
from wftop.core.engine.channel import Channel, Connector, EngineError, check_hello
from wftop.core.engine.early import ENGINE_ENV, Early, engine_argv, linger_of
from wftop.core.engine.feed import Delta, RowFeed
from wftop.core.engine.pipes import PipeConnector
from wftop.core.engine.place import log_for, place_for
from wftop.core.engine.shared import SocketConnector
from wftop.core.row import RunRow
from wftop.core.stall import DEFAULT_STALL_WINDOW

BACKOFF = (0.0, 0.25, 0.5, 1.0, 2.0, 5.0)
"""Seconds before each attempt to connect after the stream ended, growing while none gets
through (a connection that delivered its snapshot starts them over)."""


@compared
@dataclass(frozen=True, eq=False, repr=False)
class EngineUp:
    """An engine answers."""

    hello: wire.Hello
    shared: bool
    restarted: bool
    """Another engine was lost before this one."""


@compared
@dataclass(frozen=True, eq=False, repr=False)
class EngineLost:
    """The stream ended; the rows stay until the next engine's snapshot."""

    why: str


Update = EngineUp | EngineLost | Delta | wire.Progress | wire.Kept | wire.ProblemSeen


def connector_for(
    roots: list[str],
    stall_window: float = DEFAULT_STALL_WINDOW,
    *,
    cache: bool = True,
    state: Path | None = None,
    linger: float | None = None,
    early: Early | None = None,
) -> Connector:
    """The shared engine's connector where views can share one, else a pipe to a child
    (``early``: the shared engine started for these already, `started_early`)."""
    place = (
        None
        if os.environ.get(ENGINE_ENV) == "pipe"
        else place_for(roots, stall_window, cache=cache, state=state)
    )
    log = log_for(roots, stall_window, cache=cache, state=state)
    pipe = PipeConnector(engine_argv(None, roots, stall_window, cache, log))
    if place is None:
        return pipe
    argv = engine_argv(place, roots, stall_window, cache)
    return SocketConnector(place, argv, pipe, linger_of(linger), early)


class EngineLink:
    """A view's rows from its engine, and the updates that change them."""

    def __init__(self, connector: Connector, *, backoff: Sequence[float] = BACKOFF) -> None:
        self.connector = connector
        self.backoff = tuple(backoff)
        self.feed = RowFeed()
        self.hello: wire.Hello | None = None
        self._closed = False
        self._channel: Channel | None = None

    @property
    def rows(self) -> dict[str, RunRow]:
        """Every run the link holds, by ident (the engine's, as of the last update)."""
        return self.feed.rows

    async def updates(self) -> AsyncGenerator[Update, None]:
        """The updates, until `close` (or the caller stops iterating)."""
        misses = 0
        connections = 0
        try:
            while not self._closed:
                if misses:
                    await asyncio.sleep(self.backoff[min(misses, len(self.backoff) - 1)])
                try:
                    channel = await self.connector.connect()
                except (EngineError, OSError) as error:
                    misses += 1
                    yield EngineLost(str(error))
                    continue
                self._channel = channel
                connections += 1
                self.feed.begin()
                failure = ""
                try:
                    async for update in self._read(channel, restarted=connections > 1):
                        if isinstance(update, Delta) and update.complete:
                            misses = 0
                        yield update
                except wire.ProtocolError as error:
                    failure = f"the engine's stream broke: {error}"
                except (EngineError, OSError, ValueError) as error:
                    failure = str(error)
                pid = self.hello.pid if self.hello is not None else None
                why = await channel.ended(pid)
                self._channel = None
                self.feed.lost(stale=False)
                if self._closed:
                    return
                misses += 1
                yield EngineLost(failure or why)
        finally:
            channel_left = self._channel
            self._channel = None
            if channel_left is not None:
                await channel_left.close()

    async def _read(self, channel: Channel, *, restarted: bool) -> AsyncIterator[Update]:
        """One connection's messages, as updates, until it ends."""
        first = True
        while line := await channel.readline():
            if not line.endswith(b"\n"):
                raise EngineError("the engine's stream ended in the middle of a line")
            if first:
                self.hello = check_hello(line)
                first = False
                yield EngineUp(self.hello, channel.shared, restarted)
                continue
            message = wire.decode(line)
            if isinstance(message, (wire.Rows, wire.Changed)):
                for why in message.rejected:
                    yield wire.ProblemSeen(f"the engine sent a row that is not one: {why}")
            if isinstance(message, wire.Rows):
                delta = self.feed.snapshot(message.rows, final=message.final)
            elif isinstance(message, wire.Changed):
                delta = self.feed.change(message.rows, message.removed)
            elif isinstance(message, wire.Bye):
                raise EngineError(f"the engine went ({message.why})")
            elif isinstance(message, (wire.Progress, wire.Kept, wire.ProblemSeen)):
                yield message
                continue
            else:
                raise wire.ProtocolError(f"unexpected {type(message).__name__.lower()}")
            if delta is not None:
                yield delta

    async def close(self) -> None:
        """Stop: the stream is let go (a child engine ends; a shared one lingers)."""
        self._closed = True
        channel = self._channel
        if channel is not None:
            await channel.close()


def open_link(
    roots: list[str],
    stall_window: float = DEFAULT_STALL_WINDOW,
    *,
    cache: bool = True,
    state: Path | None = None,
    linger: float | None = None,
) -> EngineLink:
    """A link to the engine for these roots (shared where it can be)."""
    connector = connector_for(roots, stall_window, cache=cache, state=state, linger=linger)
    return EngineLink(connector)
