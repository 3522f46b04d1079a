"""The connection to each host: its stream read in a thread, reconnected with backoff.

`HostLink` runs ``ssh … wftop ls --watch --json`` for one host and hands every change set
it reads, with the host's state, to ``emit`` (from its own thread). When the stream ends
(ssh's exit code and last stderr line say why) the host's runs are marked stale and the
link tries again after a growing pause (`BACKOFF`); a connection that delivered its
snapshot starts the pauses over. `RemoteHub` holds one link per host and a queue the app
reads from a worker.
"""

from __future__ import annotations

import contextlib
import queue
import subprocess
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO

from wftop.core.index.changeset import ChangeSet
from wftop.core.remote.feed import HostFeed, HostState, StreamError
from wftop.core.remote.transport import Unreachable, classify_exit
from wftop.core.system.procs import end_child

BACKOFF = (0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0)
"""Seconds between attempts after a connection ends, growing while none gets through."""
WATCH_ARGS = ("ls", "--watch", "--json")


@dataclass(frozen=True)
class Update:
    """What one host's link has to say: a change set of its runs and its state."""

    changes: ChangeSet
    state: HostState


class HostLink:
    """One host's stream, read until `close`."""

    def __init__(
        self,
        host: str,
        argv: Sequence[str],
        emit: Callable[[Update], None],
        *,
        backoff: Sequence[float] = BACKOFF,
        snapshots: threading.Lock | None = None,
    ) -> None:
        """Args:
        snapshots: held while a connection's first line (every run of the host) is made
            runs; the links of one hub share it (see `RemoteHub`)."""
        self.host = host
        self.argv = list(argv)
        self.emit = emit
        self.backoff = tuple(backoff)
        self.feed = HostFeed(host)
        self.stop = threading.Event()
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self.snapshots = snapshots or threading.Lock()

    def run(self) -> None:
        """Connect, read, and reconnect until `close` (call it from a thread of its own)."""
        misses = 0
        while not self.stop.is_set():
            delivered, failure = self._connect()
            if self.stop.is_set():
                break
            self.emit(Update(self.feed.lost(), HostState(self.host, failure)))
            misses = 0 if delivered else misses + 1
            self.stop.wait(self.backoff[min(max(misses - 1, 0), len(self.backoff) - 1)])

    def _connect(self) -> tuple[bool, Unreachable]:
        """One connection, read to its end: whether it delivered, and why it ended."""
        process = subprocess.Popen(  # noqa: S603 - an argv list; the host name was checked
            self.argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            # In wftop's own process group: a terminal that closes (SIGHUP to the group)
            # ends ssh too, even when wftop has no time to close its links.
        )
        with self._lock:
            self._process = process
        if self.stop.is_set():
            self._end(process)
        stderr: deque[str] = deque(maxlen=20)
        drain = threading.Thread(target=drain_into, args=(process.stderr, stderr), daemon=True)
        drain.start()
        delivered = False
        broken: Unreachable | None = None
        assert process.stdout is not None
        for line in process.stdout:
            try:
                if self.feed.synced:
                    changes = self.feed.apply(line)
                else:
                    with self.snapshots:
                        changes = self.feed.apply(line)
            except StreamError as error:
                broken = Unreachable("bad stream", str(error))
                break
            delivered = True
            self.emit(Update(changes, HostState(self.host, None, connected=True)))
        self._end(process)
        drain.join(timeout=2.0)
        with self._lock:
            self._process = None
        return delivered, broken or classify_exit(process.returncode, "\n".join(stderr))

    @staticmethod
    def _end(process: subprocess.Popen[bytes]) -> None:
        end_child(process)
        if process.stdout is not None:
            process.stdout.close()

    def close(self) -> None:
        """Stop reading: the ssh process ends, the link does not reconnect."""
        self.stop.set()
        with self._lock:
            process = self._process
        if process is not None and process.poll() is None:
            with contextlib.suppress(OSError):
                process.terminate()


def drain_into(stream: IO[bytes] | None, into: deque[str]) -> None:
    """Read a child's stream to its end, keeping its last lines (its stderr: why it ended)."""
    if stream is None:
        return
    with contextlib.suppress(OSError, ValueError):
        for raw in stream:
            into.append(raw.decode("utf-8", "replace"))


class RemoteHub:
    """Every host's link, and one queue of their updates in the order they came."""

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
        self.updates: queue.Queue[Update] = queue.Queue()
        # One host's snapshot is made runs at a time: twenty made at once share the
        # interpreter and all come out at the end, the first rows as late as the last.
        snapshots = threading.Lock()
        self.links = [
            HostLink(host, argv, self.updates.put, backoff=backoff, snapshots=snapshots)
            for host, argv in argvs.items()
        ]
        self.threads: list[threading.Thread] = []

    def argv(self, host: str, args: Sequence[str]) -> list[str]:
        """The argv that runs ``wftop <args>`` on ``host``."""
        if self.command is None:
            raise ValueError("this hub was made without a command for one-shot asks")
        return self.command(host, args)

    def states(self) -> dict[str, HostState]:
        """Each host's state before its link has said anything: connecting."""
        return {link.host: HostState(link.host) for link in self.links}

    def start(self) -> None:
        for link in self.links:
            thread = threading.Thread(target=link.run, name=f"wftop-ssh-{link.host}", daemon=True)
            thread.start()
            self.threads.append(thread)

    def next(self, timeout: float | None = None) -> Update | None:
        """The next update, or None when none came within ``timeout`` seconds."""
        try:
            return self.updates.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self, *, wait: bool = True) -> None:
        """End every link (and, with ``wait``, their threads)."""
        for link in self.links:
            link.close()
        if wait:
            for thread in self.threads:
                thread.join(timeout=5.0)
