"""The file watcher of the live index, and the helper process it runs in.

`Watcher` starts ``python -m wftop.core.index.watcher`` over a set of folders and hands out batches
of changed paths, coalescing whatever queued up meanwhile. `serve` is that helper: one
``watchfiles.awatch``, a ``ready`` line once it is up, then one JSON line of changed
paths per batch until its stdin closes. What a changed path means is decided elsewhere
(``wftop.core.index.touch``). Nothing here imports UI code.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
from typing import Any

import orjson

from wftop.core.system.procs import end_child

READY_TIMEOUT = 600.0
"""Longest wait for a new watch to be set up (5,000 runs take about 5 s here)."""


class Watcher:
    """One ``watchfiles.awatch`` over a set of folders, run in a helper process.

    Setting up a watch registers one inotify watch per folder (15,000 for 5,000 runs)
    and watchfiles does that holding the interpreter lock, for seconds: in-process it
    would freeze the app. The helper (``python -m wftop.core.index.watcher``)
    pays that instead, then
    writes one JSON line of changed paths per batch; it exits when its stdin closes. A
    thread reads those lines into the event loop's queue.
    """

    def __init__(self, debounce_ms: int, step_ms: int) -> None:
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self.paths: tuple[str, ...] = ()
        self.error: str | None = None
        self._queue: asyncio.Queue[set[str]] = asyncio.Queue()
        self._process: subprocess.Popen[bytes] | None = None

    async def ensure(self, paths: tuple[str, ...]) -> bool:
        """Watch exactly these folders; True when a watch was (re)started and is up."""
        if paths == self.paths and (self._process is not None or not paths):
            return False
        await self.close()
        self.paths = paths
        if not paths:
            return False
        module = "wftop.core.index.watcher"
        argv = [sys.executable, "-m", module, str(self.debounce_ms), str(self.step_ms)]
        self._process = process = subprocess.Popen(
            [*argv, *paths],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[bool] = loop.create_future()
        reader = threading.Thread(
            target=self._read, args=(process, loop, ready), name="wftop-watch", daemon=True
        )
        reader.start()
        try:
            up = await asyncio.wait_for(ready, READY_TIMEOUT)
        except TimeoutError:
            up = False
        if not up:
            self.error = f"cannot watch {', '.join(paths)}: the watch did not start"
        return True

    def _read(
        self,
        process: subprocess.Popen[bytes],
        loop: asyncio.AbstractEventLoop,
        ready: asyncio.Future[bool],
    ) -> None:
        """The reader thread: ``ready``, then batches, handed to the event loop."""
        stdout = process.stdout
        assert stdout is not None
        try:
            first = stdout.readline()
            loop.call_soon_threadsafe(_settle, ready, first == b"ready\n")
            for line in stdout:
                loop.call_soon_threadsafe(self._queue.put_nowait, set(orjson.loads(line)))
        except (RuntimeError, ValueError, OSError):
            return  # the event loop is closed (nobody listens any more) or the pipe broke
        finally:
            stdout.close()

    async def next_paths(
        self, stop: asyncio.Event, timeout: float, also: asyncio.Future[Any] | None = None
    ) -> set[str]:
        """The next batch of changed paths, coalesced; empty when ``timeout`` passes,
        ``stop`` is set or ``also`` completes first."""
        paths: set[str] = set()
        ready = also is not None and also.done()
        if self._queue.empty() and timeout > 0 and not stop.is_set() and not ready:
            getter = asyncio.ensure_future(self._queue.get())
            stopper = asyncio.ensure_future(stop.wait())
            waits: set[asyncio.Future[Any]] = {getter, stopper}
            if also is not None:
                waits.add(also)
            try:
                await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            finally:
                stopper.cancel()
                if not getter.done():
                    getter.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await getter
                if getter.done() and not getter.cancelled():
                    paths |= getter.result()
        while not self._queue.empty():
            paths |= self._queue.get_nowait()
        return paths

    async def close(self) -> None:
        """End the helper (it stops when its stdin closes); never awaits, so it also
        completes inside a cancelled task."""
        process, self._process = self._process, None
        self.paths = ()
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()
        end_child(process)


def _settle(future: asyncio.Future[bool], value: bool) -> None:
    if not future.done():
        future.set_result(value)


def serve(argv: list[str]) -> int:
    """The helper process: ``python -m wftop.core.index.watcher DEBOUNCE_MS STEP_MS FOLDER...``.

    Prints ``ready`` once the watch is up, then one JSON list of changed paths per
    batch; ends when stdin closes (the index stopped, or its process died).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is for the parent to handle
    debounce, step, *paths = argv
    return asyncio.run(_serve(int(debounce), int(step), paths))


async def _serve(debounce: int, step: int, paths: list[str]) -> int:
    from watchfiles import awatch

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    loop.add_reader(sys.stdin.fileno(), lambda: _stdin_closed(stop))
    out = sys.stdout.buffer
    batches = awatch(*paths, watch_filter=None, debounce=debounce, step=step, stop_event=stop)
    pending = asyncio.ensure_future(anext(batches))
    # awatch registers every folder before its first await: one turn of the loop later
    # the watch is up, and anything written from now on is seen.
    await asyncio.sleep(0)
    out.write(b"ready\n")
    out.flush()
    while True:
        try:
            changes = await pending
        except StopAsyncIteration:
            return 0
        out.write(orjson.dumps(sorted({path for _change, path in changes})) + b"\n")
        out.flush()
        pending = asyncio.ensure_future(anext(batches))


def _stdin_closed(stop: asyncio.Event) -> None:
    if not os.read(sys.stdin.fileno(), 4096):
        asyncio.get_running_loop().remove_reader(sys.stdin.fileno())
        stop.set()


if __name__ == "__main__":
    raise SystemExit(serve(sys.argv[1:]))
