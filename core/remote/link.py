"""The connection to each host: its stream read on an event loop, reconnected with backoff.

`HostLink` runs ``ssh … wftop ls --watch --json`` for one host as an asyncio subprocess and
hands every change set it reads, with the host's state, to ``emit``. When the stream ends
(ssh's exit code and last stderr line say why) the host's runs are marked stale and the link
tries again after a growing pause (`BACKOFF`); a connection that delivered its snapshot
starts the pauses over. `RemoteHub` runs one link per host on whichever event loop iterates
`RemoteHub.updates`, and hands out their updates in the order they came: no thread reads a
stream, and nothing polls. A host's first line (every run it has) is made runs while the
others wait, and handed out before the next host's is made: twenty snapshots made together
would all come out at the end, the first host's rows as late as the last's.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
from collections import deque
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass

from wftop.core.engine.feed import Delta
from wftop.core.index.changeset import ChangeSet
from wftop.core.remote.feed import HostFeed, HostState, StreamError
from wftop.core.remote.transport import Unreachable, classify_exit

BACKOFF = (0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0)
"""Seconds between attempts after a connection ends, growing while none gets through."""
WATCH_ARGS = ("ls", "--watch", "--json")
LINE_LIMIT = 1 << 30
"""Longest line read from a host (its first line holds every run it has)."""
BATCH = 256
"""Most updates handed out together."""
END_GRACE = 2.0
"""Seconds ssh has to end once asked, before it is killed."""


@dataclass(frozen=True)
class Update:
    """What one host's link has to say: a change set of its runs and its state."""

    changes: ChangeSet
    state: HostState
    rows: Delta | None = None
    """The same change as rows (None: no row changed)."""


Emit = Callable[[Update], "asyncio.Future[None] | None"]
"""Where a link hands its updates; a future it returns is awaited (the update was taken)."""


class HostLink:
    """One host's stream, read until `close`."""

    def __init__(
        self,
        host: str,
        argv: Sequence[str],
        *,
        backoff: Sequence[float] = BACKOFF,
        snapshots: asyncio.Lock | None = None,
    ) -> None:
        """Args:
        snapshots: held while a connection's first line (every run of the host) is made
            runs and until that update is taken; the links of one hub share it."""
        self.host = host
        self.argv = list(argv)
        self.backoff = tuple(backoff)
        self.feed = HostFeed(host)
        self.snapshots = snapshots or asyncio.Lock()
        self.process: asyncio.subprocess.Process | None = None
        self._stop = asyncio.Event()

    async def run(self, emit: Emit) -> None:
        """Connect, read, and reconnect until `close`."""
        misses = 0
        while not self._stop.is_set():
            delivered, failure = await self._connect(emit)
            if self._stop.is_set():
                break
            lost = self.feed.lost()
            await _handed(emit(Update(lost, HostState(self.host, failure), self.feed.delta)))
            misses = 0 if delivered else misses + 1
            pause = self.backoff[min(max(misses - 1, 0), len(self.backoff) - 1)]
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), pause)

    async def _connect(self, emit: Emit) -> tuple[bool, Unreachable]:
        """One connection, read to its end: whether it delivered, and why it ended."""
        try:
            process = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                limit=LINE_LIMIT,
                # In wftop's own process group: a terminal that closes (SIGHUP to the group)
                # ends ssh too, even when wftop has no time to close its links.
            )
        except OSError as error:
            return False, Unreachable("ssh", f"{self.argv[0]}: {error.strerror or error}")
        self.process = process
        if self._stop.is_set():
            _end_now(process)
        stderr: deque[str] = deque(maxlen=20)
        drain = asyncio.create_task(keep_last_lines(process.stderr, stderr))
        delivered = False
        broken: Unreachable | None = None
        try:
            delivered, broken = await self._read(process, emit)
        finally:
            await end(process)
            with contextlib.suppress(asyncio.CancelledError):
                await drain
            self.process = None
        return delivered, broken or classify_exit(process.returncode, "\n".join(stderr))

    async def _read(
        self, process: asyncio.subprocess.Process, emit: Emit
    ) -> tuple[bool, Unreachable | None]:
        assert process.stdout is not None
        delivered = False
        try:
            while line := await process.stdout.readline():
                connected = HostState(self.host, None, connected=True)
                if self.feed.synced:
                    changes = self.feed.apply(line)
                    await _handed(emit(Update(changes, connected, self.feed.delta)))
                else:
                    async with self.snapshots:
                        changes = self.feed.apply(line)
                        await _handed(emit(Update(changes, connected, self.feed.delta)))
                delivered = True
        except StreamError as error:
            return delivered, Unreachable("bad stream", str(error))
        except (ValueError, OSError) as error:  # a line over the limit, a broken pipe
            return delivered, Unreachable("bad stream", str(error))
        return delivered, None

    def close(self) -> None:
        """Stop reading: the ssh process ends, the link does not reconnect (call it on the
        loop the link runs on)."""
        self._stop.set()
        process = self.process
        if process is not None:
            _end_now(process)


async def _handed(taken: asyncio.Future[None] | None) -> None:
    if taken is not None:
        await taken


def _end_now(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()


async def end(process: asyncio.subprocess.Process) -> None:
    """End a child: asked (SIGTERM), then killed if it has not ended within `END_GRACE`."""
    _end_now(process)
    try:
        await asyncio.wait_for(process.wait(), END_GRACE)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()


async def keep_last_lines(stream: asyncio.StreamReader | None, into: deque[str]) -> None:
    """Read a child's stream to its end, keeping its last lines (its stderr: why it ended)."""
    if stream is None:
        return
    with contextlib.suppress(ValueError, OSError):
        while raw := await stream.readline():
            into.append(raw.decode("utf-8", "replace"))


class RemoteHub:
    """Every host's link, and their updates in the order they came."""

    def __init__(
        self,
        argvs: dict[str, list[str]],
        *,
        backoff: Sequence[float] = BACKOFF,
        command: Callable[[str, Sequence[str]], list[str]] | None = None,
    ):
        """Args:
        argvs: per host, the argv that streams its runs.
        command: the argv that runs ``wftop <args>`` on a host (for one-shot asks).
        """
        self.command = command
        self.argvs = dict(argvs)
        self.backoff = tuple(backoff)
        self.links: list[HostLink] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closing = False
        self._wake: asyncio.Event | None = None

    @property
    def hosts(self) -> list[str]:
        return list(self.argvs)

    def argv(self, host: str, args: Sequence[str]) -> list[str]:
        """The argv that runs ``wftop <args>`` on ``host``."""
        if self.command is None:
            raise ValueError("this hub was made without a command for one-shot asks")
        return self.command(host, args)

    def states(self) -> dict[str, HostState]:
        """Each host's state before its link has said anything: connecting."""
        return {host: HostState(host) for host in self.argvs}

    async def updates(self) -> AsyncGenerator[list[Update], None]:
        """Every host's updates, those that came together in one list, until `close` (or
        the caller stops iterating: the links then end)."""
        self._loop = loop = asyncio.get_running_loop()
        self._wake = wake = asyncio.Event()
        queue: deque[tuple[Update, asyncio.Future[None]]] = deque()
        snapshots = asyncio.Lock()
        self.links = [
            HostLink(host, argv, backoff=self.backoff, snapshots=snapshots)
            for host, argv in self.argvs.items()
        ]

        def emit(update: Update) -> asyncio.Future[None]:
            taken: asyncio.Future[None] = loop.create_future()
            queue.append((update, taken))
            wake.set()
            return taken

        tasks = [asyncio.create_task(link.run(emit)) for link in self.links]
        try:
            while not self._closing:
                await wake.wait()
                wake.clear()
                while queue and not self._closing:
                    batch: list[Update] = []
                    handed: list[asyncio.Future[None]] = []
                    while queue and len(batch) < BATCH:
                        update, taken = queue.popleft()
                        batch.append(update)
                        handed.append(taken)
                    yield batch
                    # Taken once the caller is back for more: a link holding the
                    # snapshots' turn lets the next host's go only now.
                    for taken in handed:
                        taken.set_result(None)
        finally:
            for link in self.links:
                link.close()
            for _update, taken in queue:
                taken.cancel()
            _done, pending = await asyncio.wait(tasks, timeout=END_GRACE + 1.0)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    def close(self) -> None:
        """End every link; from any thread (the loop that reads the updates ends them)."""
        self._closing = True
        loop, wake = self._loop, self._wake
        if loop is None or wake is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # its loop has just closed
            loop.call_soon_threadsafe(wake.set)
