"""One engine shared by every view of a user and what it serves: its Unix socket in the state
dir (`wftop.core.engine.place`), and when none answers there, one started under a lock as a
daemon in a session of its own (it outlives the view that started it). What answers at the
socket in another wftop version's words is never used: the view turns to its fallback."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import subprocess
from pathlib import Path

from wftop.core.engine import protocol as wire
from wftop.core.engine.channel import (
    Channel,
    Connector,
    EngineError,
    Foreign,
    check_hello,
    describe_exit,
)
from wftop.core.engine.early import Early, spawn, start_early
from wftop.core.engine.place import Place
from wftop.core.version import package_version

START_TIMEOUT = 60.0
"""Longest wait for a new shared engine to listen."""


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
        self,
        place: Place,
        argv: list[str],
        fallback: Connector,
        linger: float | None = None,
        early: Early | None = None,
    ) -> None:
        """Args:
        fallback: where to turn when something else answers at the socket (another
            wftop version's engine is never used).
        early: the engine started for this place before the view made its connector
            (`wftop.core.engine.early.started_early`): `connect` waits for it.
        """
        self.place = place
        self.argv = argv + ([] if linger is None else ["--linger", repr(linger)])
        self.fallback = fallback
        self.started: subprocess.Popen[bytes] | None = None
        self._early: int | None = None
        """The lock held while the engine started early comes up (its fd)."""
        if early is not None:
            self.started, self._early = early.process, early.lock

    def start_early(self) -> bool:
        """Start the engine now, where none answers and no view is starting one, without
        waiting for it to listen (`wftop.core.engine.early.start_early`); `connect` waits
        for it. True when one was started."""
        early = start_early(self.place, self.argv)
        if early is None:
            return False
        self.started, self._early = early.process, early.lock
        return True

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
        early, self._early = self._early, None
        if early is not None:
            try:
                await self._listening()
            finally:
                os.close(early)  # closing it lets go of the lock
            return await self._reach()
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
        return await self._reach()

    async def _reach(self) -> Channel:
        """The channel to the engine started here."""
        try:
            return await self._open()
        except OSError as error:
            raise EngineError(f"the engine started but cannot be reached: {error}") from None

    async def _start(self) -> None:
        """Start the shared engine and wait until it listens."""
        self._spawn()
        await self._listening()

    def _spawn(self) -> None:
        """Start the shared engine, in a session of its own (it outlives this view)."""
        try:
            self.started = spawn(self.place, self.argv)
        except OSError as error:
            raise EngineError(f"cannot start an engine: {error.strerror or error}") from None

    async def _listening(self) -> None:
        """Wait until the engine started here says it listens."""
        process = self.started
        assert process is not None and process.stdout is not None
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
