"""A view's link to its engine: typed updates from the stream, and a new engine when one dies.

`EngineLink.updates` connects (`Connector`), reads the engine's messages
(`wftop.core.engine.protocol.decode`) and yields what a view acts on:

* `EngineUp`: an engine answers (its hello; ``restarted`` after one was lost);
* `wftop.core.engine.feed.Delta`: rows added, changed and removed (the link's `RowFeed`
  holds them all: `EngineLink.rows`); ``complete`` once the engine's snapshot has ended;
* `wftop.core.engine.protocol.Progress` and `wftop.core.engine.protocol.ProblemSeen`;
* `EngineLost`: the stream ended (the engine was killed, crashed, went idle, or spoke
  nonsense), in one line saying so. The link connects again at once (then after a growing
  pause while connecting fails), starting a new engine when none answers; the new
  engine's snapshot is diffed against the rows held, so no run is lost or shown twice.

Everything runs on the caller's event loop: the stream is read as it comes, no thread reads
it and nothing polls. An engine of another protocol or wftop version is never used.

Two connectors: `SocketConnector` shares one engine per user and what it serves
(`wftop.core.engine.place`), started on demand as a daemon; `PipeConnector` runs an engine
as this view's own child over stdio pipes, where a socket cannot be used (no AF_UNIX, a
socket path over the platform's limit) or when ``WFTOP_ENGINE=pipe``.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import signal
import subprocess
import sys
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from wftop.core.engine import protocol as wire
from wftop.core.engine.feed import Delta, RowFeed
from wftop.core.engine.place import Place, log_for, place_for
from wftop.core.model import DEFAULT_STALL_WINDOW
from wftop.core.row import RunRow
from wftop.core.version import package_version

BACKOFF = (0.0, 0.25, 0.5, 1.0, 2.0, 5.0)
"""Seconds before each attempt to connect after the stream ended, growing while none gets
through (a connection that delivered its snapshot starts them over)."""
START_TIMEOUT = 60.0
"""Longest wait for a new shared engine to listen."""
ENGINE_ENV = "WFTOP_ENGINE"
"""``pipe``: every view runs its own engine, even where one could be shared."""
LINGER_ENV = "WFTOP_ENGINE_LINGER"
"""Seconds a shared engine started by this view stays once no view listens (tests shorten
it); the engine's own default otherwise."""


class EngineError(Exception):
    """No engine could be reached or started; the message says why, in one line."""


@dataclass(frozen=True)
class EngineUp:
    """An engine answers."""

    hello: wire.Hello
    shared: bool
    restarted: bool
    """Another engine was lost before this one."""


@dataclass(frozen=True)
class EngineLost:
    """The stream ended; the rows stay until the next engine's snapshot."""

    why: str


Update = EngineUp | EngineLost | Delta | wire.Progress | wire.ProblemSeen


def engine_argv(
    place: Place | None,
    roots: Sequence[str],
    stall_window: float,
    cache: bool,
    log: str | None = None,
) -> list[str]:
    """How an engine for these is started (over stdio pipes when ``place`` is None)."""
    argv = [sys.executable, "-m", "wftop.core.engine"]
    argv += ["--stdio"] if place is None else ["--socket", place.socket]
    log = place.log if place is not None else log
    if log is not None:
        argv += ["--log", log]
    for root in roots:
        argv += ["--root", root]
    argv += ["--stall-window", repr(stall_window)]
    if not cache:
        argv.append("--no-cache")
    return argv


def describe_exit(code: int | None, pid: int | None) -> str:
    """How an engine process ended, for a person."""
    who = f"the engine (pid {pid})" if pid else "the engine"
    if code is None:
        return f"{who} closed its stream"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"{who} was killed ({name})"
    return f"{who} exited with {code}"


class Channel(Protocol):
    """One connection to an engine."""

    shared: bool

    async def readline(self) -> bytes: ...

    async def ended(self, pid: int | None) -> str:
        """Why the stream ended (after it did), in words; closes what is left."""

    async def close(self) -> None: ...


class Connector(Protocol):
    async def connect(self) -> Channel: ...


class PipeChannel:
    """An engine that is this view's own child: its stdout is the stream."""

    shared = False

    def __init__(self, process: asyncio.subprocess.Process, errors: deque[str]) -> None:
        self.process = process
        self.errors = errors
        self._drain = asyncio.ensure_future(self._read_errors())

    async def _read_errors(self) -> None:
        stream = self.process.stderr
        if stream is None:
            return
        while line := await stream.readline():
            self.errors.append(line.decode("utf-8", "replace").rstrip())

    async def readline(self) -> bytes:
        assert self.process.stdout is not None
        return await self.process.stdout.readline()

    async def ended(self, pid: int | None) -> str:
        await self.close()
        why = describe_exit(self.process.returncode, self.process.pid)
        last = next((line for line in reversed(self.errors) if line.strip()), "")
        return f"{why}: {last}" if last and self.process.returncode else why

    async def close(self) -> None:
        process = self.process
        if process.stdin is not None and not process.stdin.is_closing():
            process.stdin.close()
        if process.returncode is None:
            try:
                await asyncio.wait_for(process.wait(), 2.0)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        with contextlib.suppress(asyncio.CancelledError):
            await self._drain


class PipeConnector:
    """Starts an engine of this view's own, over stdio pipes."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv

    async def connect(self) -> Channel:
        try:
            process = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                limit=wire.MAX_LINE,
            )
        except OSError as error:
            raise EngineError(f"cannot start an engine: {error.strerror or error}") from None
        return PipeChannel(process, deque(maxlen=20))


class SocketChannel:
    """A connection to a shared engine's socket (its hello read already)."""

    shared = True

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        started: subprocess.Popen[bytes] | None,
        hello: bytes,
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.started = started
        self._first: bytes | None = hello

    async def readline(self) -> bytes:
        first, self._first = self._first, None
        if first is not None:
            return first
        return await self.reader.readline()

    async def ended(self, pid: int | None) -> str:
        await self.close()
        started = self.started
        if started is not None and started.pid == pid:
            with contextlib.suppress(subprocess.TimeoutExpired):
                # it was started here: its exit status says how it ended (it has, or soon will)
                await asyncio.to_thread(started.wait, 2.0)
            return describe_exit(started.poll(), pid)
        if pid and not _alive(pid):
            return f"the engine (pid {pid}) ended"
        return describe_exit(None, pid)

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(OSError, ConnectionError):
            await self.writer.wait_closed()


class Foreign(EngineError):
    """What answers at the socket is no engine of this wftop version."""


def check_hello(line: bytes) -> wire.Hello:
    """The hello an engine's stream begins with, if it is this wftop's and protocol's
    (`EngineError` says why not; `Foreign` when it is another version's)."""
    try:
        message = wire.decode(line)
    except wire.ProtocolError as error:
        raise Foreign(f"the engine's stream broke: {error}") from None
    if not isinstance(message, wire.Hello):
        raise Foreign("the engine did not say hello first")
    if (message.protocol, message.wftop) != (wire.PROTOCOL, package_version()):
        raise Foreign(
            f"the engine speaks wftop {message.wftop}, protocol {message.protocol}"
            f" (this is {package_version()}, protocol {wire.PROTOCOL})"
        )
    return message


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


class SocketConnector:
    """Connects to the shared engine at ``place``, starting it when none answers."""

    def __init__(
        self, place: Place, argv: list[str], fallback: Connector, linger: float | None = None
    ) -> None:
        """Args:
        fallback: where to turn when something else answers at the socket (another
            wftop version's engine is never used).
        """
        self.place = place
        self.argv = argv + ([] if linger is None else ["--linger", repr(linger)])
        self.fallback = fallback
        self.started: subprocess.Popen[bytes] | None = None

    async def _open(self) -> Channel:
        reader, writer = await asyncio.open_unix_connection(self.place.socket, limit=wire.MAX_LINE)
        try:
            writer.write(wire.ask_line("rows", package_version()))
            first = await asyncio.wait_for(reader.readline(), START_TIMEOUT)
            check_hello(first)
        except BaseException:
            writer.close()
            raise
        return SocketChannel(reader, writer, self.started, first)

    async def connect(self) -> Channel:
        try:
            return await self._open()
        except (FileNotFoundError, ConnectionRefusedError):
            pass
        except Foreign:
            return await self.fallback.connect()
        self.place.prepare()
        lock = os.open(self.place.lock, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            await asyncio.to_thread(fcntl.flock, lock, fcntl.LOCK_EX)
            with contextlib.suppress(FileNotFoundError, ConnectionRefusedError):
                return await self._open()  # another view started it meanwhile
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.place.socket)  # left by an engine that was killed
            await self._start()
        finally:
            os.close(lock)  # closing it lets go of the lock
        try:
            return await self._open()
        except OSError as error:
            raise EngineError(f"the engine started but cannot be reached: {error}") from None

    async def _start(self) -> None:
        """Start the shared engine, in a session of its own (it outlives this view), and
        wait until it listens."""
        log = os.open(self.place.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            process = subprocess.Popen(  # noqa: S603 - an argv list of this interpreter
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=log,
                start_new_session=True,
            )
        except OSError as error:
            raise EngineError(f"cannot start an engine: {error.strerror or error}") from None
        finally:
            os.close(log)
        self.started = process
        assert process.stdout is not None
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), process.stdout
        )
        try:
            line = await asyncio.wait_for(reader.readline(), START_TIMEOUT)
        except TimeoutError:
            line = b""
        finally:
            transport.close()
        if line != b"listening\n":
            raise EngineError(f"the engine did not start: {self._last_log_line() or 'no word'}")

    def _last_log_line(self) -> str:
        try:
            text = Path(self.place.log).read_text("utf-8", "replace")
        except OSError:
            return ""
        lines = [line for line in text.splitlines() if line.strip()]
        return lines[-1][:200] if lines else ""


def connector_for(
    roots: list[str],
    stall_window: float = DEFAULT_STALL_WINDOW,
    *,
    cache: bool = True,
    state: Path | None = None,
    linger: float | None = None,
) -> Connector:
    """The shared engine's connector where views can share one, else a pipe to a child."""
    place = (
        None
        if os.environ.get(ENGINE_ENV) == "pipe"
        else place_for(roots, stall_window, cache=cache, state=state)
    )
    log = log_for(roots, stall_window, cache=cache, state=state)
    pipe = PipeConnector(engine_argv(None, roots, stall_window, cache, log))
    if place is None:
        return pipe
    if linger is None and os.environ.get(LINGER_ENV):
        linger = float(os.environ[LINGER_ENV])
    return SocketConnector(place, engine_argv(place, roots, stall_window, cache), pipe, linger)


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
            elif isinstance(message, (wire.Progress, wire.ProblemSeen)):
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
