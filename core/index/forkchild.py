"""One piece of work done in a forked child, its result sent back pickled through a pipe
(`Forked`), and the fork and pipe primitives the fan-out's children share
(`wftop.core.index.fanout`). The caller decides whether forking is safe here
(`wftop.core.system.platforms.can_fork_workers`, no other thread running)."""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
from collections.abc import Callable
from typing import Generic, TypeVar

Result = TypeVar("Result")


class Forked(Generic[Result]):
    """``work()`` computed in a forked child (`fork_child`), its result sent back pickled."""

    def __init__(self, work: Callable[[], Result]) -> None:
        self._pid, self._fd = fork_child(
            lambda fd: send_all(fd, pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL))
        )

    def result(self, otherwise: Callable[[], Result]) -> Result:
        """The child's result, waited for; ``otherwise()`` where the child failed for any
        reason (its work done again here). Call it once."""
        payload = drained(self._fd)
        _, status = os.waitpid(self._pid, 0)
        if status == 0 and payload:
            try:
                made: Result = pickle.loads(payload)
                return made
            except Exception:  # noqa: BLE001 - a broken child's work is redone here
                pass
        return otherwise()

    async def awaited(self, otherwise: Callable[[], Result]) -> Result:
        """`result`, waited for on the running event loop, which goes on meanwhile: the
        child writes only once its work is done, so its pipe is read once it is readable.
        Cancelled, the child is ended too."""
        import asyncio

        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()

        def readable() -> None:
            if not ready.done():
                ready.set_result(None)

        loop.add_reader(self._fd, readable)
        cancelled = False
        try:
            await ready
        except asyncio.CancelledError:
            cancelled = True
            raise
        finally:
            loop.remove_reader(self._fd)
            if cancelled:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self._pid, signal.SIGKILL)
                drained(self._fd)
                os.waitpid(self._pid, 0)
        return self.result(otherwise)


def fork_child(child: Callable[[int], None]) -> tuple[int, int]:
    """Fork a child that runs ``child`` with the write end of a pipe, then leaves without
    running the parent's exit code; (its pid, the read end)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(read_end)
            child(write_end)
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    return pid, read_end


def send_all(fd: int, data: bytes) -> None:
    """All of ``data`` written to ``fd`` (a pipe may take it a part at a time)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def drained(fd: int) -> bytes:
    """Everything ``fd`` gives until its end, then ``fd`` closed."""
    parts = []
    try:
        while block := os.read(fd, 1 << 20):
            parts.append(block)
    finally:
        os.close(fd)
    return b"".join(parts)
