"""An engine that is this view's own child, over stdio pipes: where a socket cannot be used
(no AF_UNIX, a socket path over the platform's limit) or when ``WFTOP_ENGINE=pipe``. Its
stdout is the stream, its stderr's last words say why it ended."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
from collections import deque

from wftop.core.engine import protocol as wire
from wftop.core.engine.channel import Channel, EngineError, describe_exit


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
