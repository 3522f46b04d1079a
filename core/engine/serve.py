"""The engine's two ways to serve views: one view over stdio pipes, or many over a socket.

`serve_stdio`: the engine is one view's child; its stream goes to stdout, and it ends
when its stdin closes (the view went, whatever way) or on SIGTERM. The portable way: it
needs nothing but pipes.

`serve_socket`: the engine is shared by every view of a user over one Unix socket in the
state dir (`wftop.core.engine.place`), as the tmux server and watchman are. It binds the
socket (a path already bound means another engine serves it: it leaves), says
``listening`` on stdout for whoever started it and closes stdout, then answers each
connection: a view's first line says what it wants (`wftop.core.engine.lines.decode_ask`),
rows or the status counts; a view of another protocol or wftop version is told so and sent
away. When no view has listened for ``linger`` seconds it says ``bye`` and goes, removing
its socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
import traceback

from wftop.core.engine import lines as wire
from wftop.core.engine.engine import Engine

WRITE_LIMIT = 64 << 20
"""Bytes a view may leave unread before it is dropped (it reconnects and resyncs)."""
ASK_TIMEOUT = 10.0
"""Seconds a connection has to say what it wants."""
START_GRACE = 10.0
"""Seconds a new engine waits for its first view before it goes (its linger, if longer): its
first read keeps the loop busy for a second or more at a stretch, and a view that connected
meanwhile is only counted once its handler runs, after the timer that ended the engine."""


SEND_BUFFER = 4 << 20
"""Bytes a view's socket may hold unread: the engine's loop writes what fits at each turn,
and a first start's rows (30 MB at 20,000 runs) come faster than 200 KB a turn."""


class TransportSubscriber:
    """A view at the other end of an asyncio transport (a pipe or a socket)."""

    def __init__(self, transport: asyncio.WriteTransport, limit: int = WRITE_LIMIT) -> None:
        self.transport = transport
        self.limit = limit

    def backlog(self) -> int:
        """Bytes written and not yet taken by the view."""
        return self.transport.get_write_buffer_size()

    def send(self, data: bytes) -> bool:
        if self.transport.is_closing():
            return False
        self.transport.write(data)
        if self.transport.get_write_buffer_size() > self.limit:
            self.transport.abort()
            return False
        return True


async def _run_engine(engine: Engine, stop: asyncio.Event) -> int:
    """Run the engine until ``stop``; a failure is written to stderr (the engine's log) and
    ends it with 1 (views start another)."""
    try:
        await engine.run(stop)
    except Exception:  # noqa: BLE001 - said where the engine's errors go, then it ends
        traceback.print_exc(file=sys.stderr)
        return 1
    return 0


def _on_signals(stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(number, stop.set)


async def serve_stdio(engine: Engine) -> int:
    """Serve the one view at the other end of stdin and stdout."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    _on_signals(stop)
    # Ctrl+C is the view's to handle: this engine ends when the view lets go of its stdin.
    loop.remove_signal_handler(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    transport, _ = await loop.connect_write_pipe(asyncio.Protocol, out)
    reader = asyncio.StreamReader()
    stdin, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(os.dup(0), "rb", buffering=0)
    )

    async def until_stdin_closes() -> None:
        while await reader.read(1 << 16):
            pass
        stop.set()

    watch_stdin = asyncio.create_task(until_stdin_closes())
    engine.subscribe(TransportSubscriber(transport))
    work = asyncio.create_task(_run_engine(engine, stop))
    await asyncio.wait({work, asyncio.create_task(stop.wait())}, return_when="FIRST_COMPLETED")
    stop.set()
    code = await work
    watch_stdin.cancel()
    stdin.close()  # its copy of fd 0, closed here, not left to the collector
    if not transport.is_closing():
        transport.write(wire.bye_line("stopped" if code == 0 else "failed"))
        transport.close()
    return code


def bind(path: str) -> socket.socket:
    """A listening Unix socket at ``path`` (`OSError` when another one is bound there)."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(path)
        listener.listen(64)
    except OSError:
        listener.close()
        raise
    return listener


class SocketServer:
    """The shared engine's side of its socket: views in, and the linger when none is left."""

    def __init__(self, engine: Engine, linger: float) -> None:
        self.engine = engine
        self.linger = linger
        self.stop = asyncio.Event()
        self.views = 0
        self._idle: asyncio.TimerHandle | None = None

    def _arm(self, wait: float | None = None) -> None:
        if self._idle is None and self.views == 0:
            delay = self.linger if wait is None else wait
            self._idle = asyncio.get_running_loop().call_later(delay, self._gone_idle)

    def _gone_idle(self) -> None:
        self._idle = None
        if self.views == 0:
            self.stop.set()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One connection: its ask, then the status counts or the stream of rows."""
        try:
            line = await asyncio.wait_for(reader.readline(), ASK_TIMEOUT)
            ask = wire.decode_ask(line)
        except (TimeoutError, ValueError, OSError) as error:
            writer.write(wire.bye_line(f"expected a hello first ({error})"))
            writer.close()
            return
        hello = self.engine.hello
        writer.write(wire.hello_line(hello))
        if (ask.protocol, ask.wftop) != (hello.protocol, hello.wftop):
            why = f"this engine is wftop {hello.wftop}, protocol {hello.protocol}"
            writer.write(wire.bye_line(why))
            writer.close()
            return
        if ask.want == "status":
            counts, needy = self.engine.counts(), self.engine.needy()
            writer.write(wire.status_line(counts, complete=self.engine.complete, needy=needy))
            writer.close()
            return
        await self._stream(reader, writer)

    async def _stream(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connection = writer.get_extra_info("socket")
        if connection is not None:  # more of the first rows out a turn (the kernel caps it)
            with contextlib.suppress(OSError):
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        subscriber = TransportSubscriber(writer.transport)
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        self.views += 1
        try:
            self.engine.subscribe(subscriber, hello=False)  # it went out already
            while await reader.read(1 << 16):
                pass  # a view says nothing more; its end of the socket closing ends it
        except OSError:
            pass
        finally:
            self.engine.unsubscribe(subscriber)
            self.views -= 1
            with contextlib.suppress(OSError):
                writer.close()
            self._arm()

    async def serve(self, listener: socket.socket) -> int:
        _on_signals(self.stop)
        server = await asyncio.start_unix_server(self.handle, sock=listener)
        self._arm(max(self.linger, START_GRACE))
        work = asyncio.create_task(_run_engine(self.engine, self.stop))
        ended = asyncio.create_task(self.stop.wait())
        await asyncio.wait({work, ended}, return_when="FIRST_COMPLETED")
        self.stop.set()
        server.close()
        code = await work
        self.engine.farewell("idle" if code == 0 else "failed")
        return code
