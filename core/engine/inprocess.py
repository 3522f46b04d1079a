"""An engine in the view's process: `InProcessConnector`, the seam tests replace.

A view's link (`wftop.core.engine.link.EngineLink`) reads an engine's stream through a
`Connector`. The real ones start an engine process (shared over a socket, or a child over
pipes), which reads the machine's process table and clock. This one runs the same `Engine`
in the view's process, with what the caller hands it (a fake process table, a fixed clock,
no rows cache, no fork), on an event loop of its own in a thread of its own, as an engine
process would have it: the view's loop reads, folds and stats nothing. Its messages cross
as bytes through a queue on the view's loop, exactly as a socket would hand them; the view
cannot tell.

``follow=False`` stops the engine once its first rows are out (a view that draws a tree as it
is, such as a snapshot test); `stop` ends the engine as a killed one ends (the stream ends
mid-way; the link says the engine was lost and connects again, to a new engine).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable

from wftop.core.engine.engine import Engine
from wftop.core.model import DEFAULT_STALL_WINDOW
from wftop.core.system.procs import ProcessTable

END = b""
"""What `QueueChannel.readline` returns once the stream has ended."""


class QueueChannel:
    """An engine in a thread of this process, its messages handed over a line at a time."""

    shared = False

    def __init__(self, engine: Engine, follow: bool) -> None:
        self.engine = engine
        self.view = asyncio.get_running_loop()
        self.lines: asyncio.Queue[bytes] = asyncio.Queue()
        self._follow = follow
        self._closed = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self.thread = threading.Thread(target=self._main, name="wftop-engine", daemon=True)

    def start(self) -> None:
        """Run the engine (once it has its subscribers)."""
        self.thread.start()
        self._ready.wait()

    def _hand(self, data: bytes) -> None:
        if self._closed.is_set() and data is not END:
            return
        with contextlib.suppress(RuntimeError):  # the view's loop has closed
            self.view.call_soon_threadsafe(self.lines.put_nowait, data)

    def send(self, data: bytes) -> bool:
        """The engine's `Subscriber` side (from the engine's thread)."""
        if self._closed.is_set():
            return False
        self._hand(data)
        return True

    def _main(self) -> None:
        asyncio.run(self._run())

    async def _run(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = stop = asyncio.Event()
        self._ready.set()
        if not self._follow:
            stop.set()  # the first rows, then nothing more
        try:
            await self.engine.run(stop)
        finally:
            if self._follow:
                self._hand(END)  # the stream ends as a process's would

    def _end(self) -> None:
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):  # its loop has ended already
                loop.call_soon_threadsafe(stop.set)

    async def readline(self) -> bytes:
        return await self.lines.get()

    async def ended(self, pid: int | None) -> str:
        await self.close()
        return "the engine in this process stopped"

    async def close(self) -> None:
        self._closed.set()
        self._end()
        await asyncio.to_thread(self.thread.join)

    def kill(self) -> None:
        """End now, as a killed engine ends: nothing more is sent, the stream ends."""
        self._closed.set()
        self._end()
        self._hand(END)


class InProcessConnector:
    """Connects to a new engine in this process each time (after `stop`, another one)."""

    def __init__(
        self,
        roots: list[str],
        *,
        processes: ProcessTable | None = None,
        now: Callable[[], float] = time.time,
        stall_window: float = DEFAULT_STALL_WINDOW,
        follow: bool = True,
        debounce_ms: int = 15,
        step_ms: int = 15,
    ) -> None:
        self.roots = roots
        self.processes = processes
        self.now = now
        self.stall_window = stall_window
        self.follow = follow
        self.debounce_ms, self.step_ms = debounce_ms, step_ms
        self.channel: QueueChannel | None = None
        self.connections = 0

    async def connect(self) -> QueueChannel:
        engine = Engine(
            self.roots,
            stall_window=self.stall_window,
            processes=self.processes,
            now=self.now,
            cache=None,
            workers=1,
            debounce_ms=self.debounce_ms,
            step_ms=self.step_ms,
        )
        channel = QueueChannel(engine, self.follow)
        engine.subscribe(channel)
        channel.start()
        self.channel = channel
        self.connections += 1
        return channel

    def stop(self) -> None:
        """End the engine now, as if it were killed: its stream ends mid-way."""
        channel = self.channel
        if channel is not None:
            channel.kill()
