"""The file watcher of the live index, and the helper process it runs in.

`Watcher` starts the watch helper over a set of folders as an asyncio subprocess
(`helper_commands`: ``core/index/watcher_inotify.py`` on Linux, ``python -m
wftop.core.index.watcher`` elsewhere) and hands out batches of changed paths, coalescing
whatever queued up meanwhile; a task on the caller's event loop reads the helper's lines as
they come (no thread reads them, nothing polls). `serve` is the helper where inotify cannot
be had: one ``watchfiles.awatch`` over the folders and everything below them, one over the
``shallow`` folders and their own entries only (a root and the folder it is in: a root or
its ``projects/`` deleted and made again is seen so), a ``ready`` line once both are up,
then one JSON line of changed paths per batch until its stdin closes. A watch the kernel
refuses (no inotify watch left of the user's) is said by a helper on a line of its own;
the inotify helper goes on without the folders refused, which a second helper then polls
(`POLL`: watchfiles' polling, every `POLL_MS`), those alone; where the helper serving is
watchfiles', the whole watch polls. `Watcher.refusal` says so once, in words, for the user.
What a changed path means is decided elsewhere
(``wftop.core.index.touch``). Nothing here imports UI code.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import AsyncGenerator
from typing import Any

import orjson

from wftop.core.index.watcher_inotify import REFUSED, SHALLOW, command, helper_args
from wftop.core.system.platforms import has_inotify

READY_TIMEOUT = 600.0
"""Longest wait for a new watch to be set up (5,000 runs take about 5 s here)."""
LINE_LIMIT = 1 << 28
"""Longest line of changed paths read from the helper (a burst over a whole tree)."""
SHALLOW_STEP_MS = 250
"""How often the watch of the ``shallow`` folders looks for news, in milliseconds: a root or
its ``projects/`` made again is followed within a second all the same, and an idle watch
wakes four times a second for them where it woke every step (with the deep watch: 0.4% of
a core at 20,000 runs)."""
END_GRACE = 2.0
"""Seconds a helper has to end once its stdin closed, before it is killed."""
POLL = "--poll"
"""First on the watchfiles helper's command line: it polls (the kernel refused a watch)."""
POLL_MS = 500
"""How often a polling watch looks at every file (a root made again followed within a
second; over 20,000 runs it costs a good share of a core, the price of no watch left)."""


class Watcher:
    """One ``watchfiles.awatch`` over a set of folders, run in a helper process.

    Setting up a watch registers one inotify watch per folder (15,000 for 5,000 runs)
    and watchfiles does that holding the interpreter lock, for seconds: in-process it
    would freeze its caller. The helper (``python -m wftop.core.index.watcher``) pays that
    instead, then writes one JSON line of changed paths per batch; it exits when its
    stdin closes.
    """

    def __init__(self, debounce_ms: int, step_ms: int) -> None:
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self.paths: tuple[str, ...] = ()
        self.shallow: tuple[str, ...] = ()
        self.error: str | None = None
        self.refusal: str | None = None
        """A watch the kernel refused, in words, not taken yet (`take_refusal`)."""
        self.polling = False
        """The kernel refused a watch: every helper from now on polls."""
        self.polls = False
        """The helper serving now polls, or another polls the folders it was refused."""
        self.polled: tuple[list[str], list[str]] = ([], [])
        """The folders the inotify helper was refused, polled by another (deep, shallow)."""
        self._queue: asyncio.Queue[set[str]] = asyncio.Queue()
        self._process: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._poller: tuple[asyncio.subprocess.Process, asyncio.Task[None]] | None = None

    async def ensure(
        self,
        paths: tuple[str, ...],
        shallow: tuple[str, ...] = (),
        stop: asyncio.Event | None = None,
    ) -> bool:
        """Watch exactly these folders (``shallow`` ones without what is below them); True
        when a watch was (re)started and is up. ``stop`` set while a helper sets its watches
        up (seconds over 20,000 runs) ends it there, and no watch is up."""
        if (paths, shallow) == (self.paths, self.shallow) and self._process is not None:
            return False
        await self.close()
        if not (paths or shallow):
            return False
        self.paths, self.shallow = paths, shallow
        told = [str(self.debounce_ms), str(self.step_ms), *paths, SHALLOW, *shallow]
        commands = helper_commands()
        if self.polling:
            commands = commands[-1:]
        at = 0
        while at < len(commands):
            helper, at = commands[at], at + 1
            self._process = process = await asyncio.create_subprocess_exec(
                *helper,
                *told,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                limit=LINE_LIMIT,
            )
            assert process.stdout is not None
            first = await _first_line(process.stdout, stop)
            if _polled(first) is not None:  # the others watched: those refused polled
                self._refused(first)
                first = await _first_line(process.stdout, stop)
            if stop is not None and stop.is_set():
                await self.close()
                return False
            if first == b"ready\n":
                self.error, self.polls = None, helper[-1] == POLL
                if self.polls and not self.polling:  # no other helper could watch here
                    self.polling = True
                    self.refusal = f"cannot watch {', '.join(paths)}: {polled()}"
                self._reader = asyncio.create_task(self._read(process.stdout))
                await self._poll_refused()
                return True
            refusal = refusal_of(first)
            if refusal is not None:  # the others would be refused the same: poll
                self.refusal, self.polling, at = refusal, True, max(at, len(commands) - 1)
            if at < len(commands):  # the next helper where one cannot start (no inotify)
                await _ended(process)
        self.error = f"cannot watch {', '.join(paths + shallow)}: the watch did not start"
        return True

    async def _read(self, stdout: asyncio.StreamReader) -> None:
        """The helper's batches, into the queue, until it ends."""
        with contextlib.suppress(ValueError, OSError):
            while line := await stdout.readline():
                refusal = refusal_of(line)
                if refusal is None:
                    self._queue.put_nowait(set(orjson.loads(line)))
                elif _polled(line) is not None:  # a folder made since, unwatched: polled
                    self._refused(line)
                    await self._poll_refused()
                    self._queue.put_nowait(set())
                else:  # the whole watch must poll: the follow loop sets it up so
                    self.refusal, self.polling = refusal, True
                    self._queue.put_nowait(set())

    def _refused(self, line: bytes) -> None:
        """The inotify helper was refused the watches of some folders (a `_polled` line)."""
        deep, shallow = _polled(line) or ([], [])
        self.polled[0].extend(deep)
        self.polled[1].extend(shallow)
        self.refusal = refusal_of(line)

    async def _poll_refused(self) -> None:
        """Poll the folders the inotify helper was refused (again, when there are more)."""
        await self._stop_poller()
        deep, shallow = ([path for path in paths if os.path.isdir(path)] for paths in self.polled)
        if not (deep or shallow):
            return
        told = [str(self.debounce_ms), str(self.step_ms), *deep, SHALLOW, *shallow]
        poll = helper_commands()[-1]
        process = await asyncio.create_subprocess_exec(
            *poll, *told, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, limit=LINE_LIMIT,
        )  # fmt: skip
        assert process.stdout is not None
        ready = await _first_line(process.stdout, None)
        self._poller = (process, asyncio.create_task(self._read(process.stdout)))
        self.polls = ready == b"ready\n"

    async def _stop_poller(self) -> None:
        poller, self._poller = self._poller, None
        if poller is not None:
            poller[1].cancel()
            await _ended(poller[0])

    def take_refusal(self) -> str | None:
        """A watch the kernel refused, in words, once."""
        refusal, self.refusal = self.refusal, None
        return refusal

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
        """End the helper: its stdin closes and it ends by itself; one that has not a
        moment later (or when this is cancelled meanwhile) is killed."""
        process, self._process = self._process, None
        reader, self._reader = self._reader, None
        self.paths = self.shallow = ()
        self.polls, self.polled = False, ([], [])
        if reader is not None:
            reader.cancel()
        await self._stop_poller()
        if process is not None:
            await _ended(process)


async def _first_line(stdout: asyncio.StreamReader, stop: asyncio.Event | None) -> bytes:
    """A new helper's first line (``ready`` once its watches are up); empty when it ended or
    did not say it within `READY_TIMEOUT`, or ``stop`` was set first."""
    reading = asyncio.ensure_future(stdout.readline())
    waits: set[asyncio.Future[Any]] = {reading}
    if stop is not None:
        waits.add(asyncio.ensure_future(stop.wait()))
    try:
        await asyncio.wait(waits, timeout=READY_TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()
    if not reading.done() or reading.cancelled() or reading.exception() is not None:
        return b""
    return reading.result()


async def _ended(process: asyncio.subprocess.Process) -> None:
    """A helper ended: its stdin closes and it ends by itself; one that has not a moment
    later (or when this is cancelled meanwhile) is killed."""
    if process.stdin is not None:
        process.stdin.close()
    if process.returncode is not None:
        return
    try:
        await asyncio.wait_for(process.wait(), END_GRACE)
    except TimeoutError:
        _kill(process)
    except asyncio.CancelledError:
        _kill(process)
        raise


def helper_commands() -> list[list[str]]:
    """The watch helpers this platform may run, the first that starts serving: inotify asked
    directly on Linux (`wftop.core.index.watcher_inotify`, a fraction of the memory), else
    watchfiles (`serve`, below); last, watchfiles polling, where the kernel refuses watches."""
    watchfiles = [sys.executable, "-m", "wftop.core.index.watcher"]
    polling = [*watchfiles, POLL]
    return [command(), watchfiles, polling] if has_inotify() else [watchfiles, polling]


def polled() -> str:
    return f"following by polling every {POLL_MS / 1000:g} s instead, which costs more CPU"


def refusal_of(line: bytes) -> str | None:
    """A helper's line saying the kernel refused a watch (`watcher_inotify.refused`), in
    words for the user; None when the line is not one."""
    try:
        said = orjson.loads(line) if line.startswith(b"{") else None
    except orjson.JSONDecodeError:
        said = None
    if not isinstance(said, dict):
        return None
    name, path = str(said.get("refused", "")), str(said.get("path", ""))
    why = "no inotify watch left for this user (fs.inotify.max_user_watches)"
    if name not in ("ENOSPC", "ENOMEM", ""):
        why = f"the kernel refused it ({name})"
    return f"cannot watch {path or 'a folder'}: {why}; {polled()}"


def _polled(line: bytes) -> tuple[list[str], list[str]] | None:
    """The folders (deep, shallow) the inotify helper says it was refused and goes on
    without; None when the line is not such a refusal."""
    if not line.startswith(b"{"):
        return None
    try:
        said = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(said, dict) or "refused" not in said:
        return None
    deep, shallow = said.get("deep"), said.get("shallow")
    if not (isinstance(deep, list) and isinstance(shallow, list)):
        return None
    return [str(path) for path in deep], [str(path) for path in shallow]


def _kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        process.kill()


def serve(argv: list[str]) -> int:
    """The helper process: ``python -m wftop.core.index.watcher DEBOUNCE_MS STEP_MS FOLDER...
    [--shallow FOLDER...]``.

    Prints ``ready`` once the watch is up, then one JSON list of changed paths per
    batch; ends when stdin closes (the index stopped, or its process died). First ``--poll``:
    it polls every `POLL_MS`. A watch that cannot be set up is said (a ``refused`` line)
    instead of ``ready``, and it ends with `REFUSED`.
    """
    poll = argv[:1] == [POLL]
    return asyncio.run(_serve(*helper_args(argv[poll:]), poll=poll))


async def _serve(
    debounce: int, step: int, paths: list[str], shallow: list[str], *, poll: bool = False
) -> int:
    from watchfiles import awatch

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    loop.add_reader(sys.stdin.fileno(), lambda: _stdin_closed(stop))
    out = sys.stdout.buffer
    options: dict[str, Any] = {
        "watch_filter": None, "debounce": debounce, "step": step, "stop_event": stop,
    }  # fmt: skip
    if poll:
        options.update(force_polling=True, poll_delay_ms=POLL_MS)
    watches: list[AsyncGenerator[set[tuple[Any, str]], None]] = []
    if paths:
        watches.append(awatch(*paths, **options))
    if shallow:
        quiet = {**options, "step": max(step, SHALLOW_STEP_MS)}
        watches.append(awatch(*shallow, recursive=False, **quiet))
    pending = {asyncio.ensure_future(anext(watch)): watch for watch in watches}
    # awatch registers every folder before its first await: one turn of the loop later
    # the watch is up, and anything written from now on is seen.
    await asyncio.sleep(0)
    for future in pending:
        if future.done() and isinstance(future.exception(), OSError):  # no watch left
            failed = {"refused": "", "path": ", ".join((*paths, *shallow))}
            out.write(orjson.dumps(failed) + b"\n")
            out.flush()
            return REFUSED
    out.write(b"ready\n")
    out.flush()
    while pending:
        done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        changed: set[str] = set()
        for future in done:
            watch = pending.pop(future)
            try:
                changed |= {path for _change, path in future.result()}
            except StopAsyncIteration:
                continue
            pending[asyncio.ensure_future(anext(watch))] = watch
        if changed:
            out.write(orjson.dumps(sorted(changed)) + b"\n")
            out.flush()
    return 0


def _stdin_closed(stop: asyncio.Event) -> None:
    if not os.read(sys.stdin.fileno(), 4096):
        asyncio.get_running_loop().remove_reader(sys.stdin.fileno())
        stop.set()


if __name__ == "__main__":
    raise SystemExit(serve(sys.argv[1:]))
