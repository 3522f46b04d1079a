"""Share one cold pass over many run folders among forked worker processes.

A cold ``wftop ls`` spends nearly all its time on per-run work that needs nothing from
the other runs: read a journal, read a snapshot, build a row. On a machine with several
CPUs the folders are cut into chunks that forked children (and, in `fan_out`, the parent)
take one at a time, each the next one as it is done with the one before; each child sends
back its finished results, pickled, through a pipe. Forking copies the parent's memory,
so the work function and what it closes over (owners, the clock, redaction) need no
pickling; only results travel, so they should be small (bytes, tuples), never
`wftop.core.model.Run` objects, which cost more to pickle than to rebuild. `streamed` has
only children take chunks, and hands back each chunk's results as it comes, so that the
caller's heap keeps neither the work's garbage nor a whole hand's results pickled (the
engine's first rows: `wftop.core.engine.coldstart`).

Fork is used only where it is safe and cheap: where `can_fork_workers` says so (Linux), no
other threads running, enough items to be worth it. Anything else, or a child that fails
for any reason, falls back to doing its chunks in the parent, so the answer never depends
on how it was computed.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from wftop.core.index.forkchild import drained, fork_child, send_all
from wftop.core.system.platforms import can_fork_workers

if TYPE_CHECKING:  # the event loop is imported by `streamed` alone (a plan reads no stream)
    import asyncio

Item = TypeVar("Item")
Result = TypeVar("Result")

MIN_ITEMS_PER_WORKER = 250
"""Below this many items per extra process, forking costs more than it saves."""
MAX_WORKERS = 8


def usable_cpus() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def worker_count(items: int, cpus: int | None = None) -> int:
    """How many processes (the parent included) should share ``items`` items."""
    cpus = usable_cpus() if cpus is None else cpus
    if not can_fork_workers() or threading.active_count() > 1:
        return 1
    return max(1, min(cpus, MAX_WORKERS, items // MIN_ITEMS_PER_WORKER))


def fan_out(
    items: Sequence[Item],
    work: Callable[[Sequence[Item]], list[Result]],
    *,
    workers: int | None = None,
    chunk: int = 256,
) -> list[Result]:
    """``work(items)``, computed in up to ``workers`` processes (this one and forked
    children); results in the items' order.

    Where this platform cannot fork workers, every item is computed here, whatever
    ``workers``.

    The items are cut in chunks of ``chunk`` contiguous items (so that runs that sit
    together, the runs of one session, mostly land in one process and share what it reads
    once), and every process takes them in order, each the next one not taken as it is
    done with the one before (from a pipe holding their numbers, as `streamed` does): a
    process given less CPU takes fewer, and none stands idle while another has several
    left (with halves dealt beforehand, the child ended 0-0.3 s after this process at load
    2.5-3, up to 0.8 s at 5-6). A child sends its chunks' results, pickled one by one,
    when it has no chunk left; a chunk whose child failed or died is redone here."""
    count = worker_count(len(items)) if workers is None else workers
    parts = fan_chunks(items, work, workers=count, chunk=chunk)
    return parts[0] if len(parts) == 1 else [result for part in parts for result in part]


def fan_chunks(
    items: Sequence[Item],
    work: Callable[[Sequence[Item]], Result],
    *,
    workers: int,
    chunk: int = 256,
    first: Callable[[], object] | None = None,
) -> list[Result]:
    """`fan_out`'s deal, each chunk's ``work`` given back whole: one result a chunk, in
    the chunks' order (one, ``work(items)``, where no child is forked). ``first``: work of
    this process's own, done once its children are forked and before it takes a chunk
    (they take its share meanwhile); not called where none is forked."""
    chunks = _chunks(items, workers, chunk)
    count = min(workers, len(chunks))
    if count <= 1 or not can_fork_workers():
        return [work(items)]
    tickets = _tickets(len(chunks))
    try:
        children = [
            fork_child(partial(_take, work, chunks, tickets, at_once=True))
            for _ in range(count - 1)
        ]
        if first is not None:
            first()
        made: dict[int, Result] = {n: work(chunks[n]) for n in _taken(tickets)}
    finally:
        os.close(tickets)
    for pid, fd in children:
        payload = drained(fd)
        _, status = os.waitpid(pid, 0)
        if status != 0:
            continue
        for number, data in _frames(bytearray(payload)):
            with contextlib.suppress(Exception):  # a broken chunk is redone below
                made[number] = pickle.loads(data)
    return [made[number] if number in made else work(part) for number, part in enumerate(chunks)]


FRAME_HEAD = 12
"""Bytes before each chunk's results on a streaming child's pipe: their length, then the
chunk's number."""
TICKET = 4
"""Bytes of a chunk's number on the pipe the streaming children take their chunks from."""
MAX_TICKETS = 1024
"""Chunks at most in one stream (more items make larger chunks): their numbers are written
whole before any child is forked, and fit the least a pipe holds (a page: where the user
holds many pipes, Linux gives a new one no more)."""


class _Stream:
    """A forked child taking chunks, and what it has sent back so far."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid, self.fd = pid, fd
        self.buffer = bytearray()
        self.open = True


async def streamed(
    items: Sequence[Item],
    work: Callable[[Sequence[Item]], Result],
    *,
    workers: int | None = None,
    chunk: int = 256,
) -> AsyncIterator[Result]:
    """``work`` of each chunk of ``chunk`` items, as each is had, every one computed in a
    forked child (up to ``workers``, None: by CPUs and size; `fan_out`'s rules), where
    `fan_out` works on chunks itself and hands back every result at the end: the caller's
    heap holds no garbage of the work and no hand's results pickled whole, only each
    chunk's results as it is taken (in the order they come).

    The children take the chunks in order, each the next one not taken as it is done with
    the one before (from a pipe holding their numbers): a child given less CPU, or slower
    chunks, takes fewer, and none stands idle while another has several left (with hands
    dealt beforehand, the last child to finish ended 0.1-0.4 s after the first at 5,000
    runs on 2 CPUs).

    Unpickling makes the objects of a chunk's results in the order they were pickled: a
    ``work`` whose results the caller keeps only in part may put the part it lets go of
    first, so that what is kept lies together and what is freed leaves whole pages free.

    Where no child can be forked (or one would not pay), each chunk is computed here, a turn
    of the event loop between two. A child that fails or dies has the chunk it was on redone
    here once every child is done (the others take the chunks it did not), so the answer
    never depends on how it was computed."""
    import asyncio

    count = worker_count(len(items)) if workers is None else workers
    chunks = _chunks(items, count, chunk)
    count = min(count, len(chunks))
    if count <= 1 or not can_fork_workers():
        for part in chunks:
            yield work(part)
            await asyncio.sleep(0)
        return
    loop = asyncio.get_running_loop()
    came: asyncio.Queue[tuple[_Stream, int, bytes | None]] = asyncio.Queue()
    tickets = _tickets(len(chunks))
    try:
        streams = [_stream(work, chunks, tickets) for _ in range(count)]
    finally:
        os.close(tickets)
    got: set[int] = set()
    try:
        for stream in streams:
            loop.add_reader(stream.fd, _readable, loop, stream, came)
        left = len(streams)
        while left:
            stream, number, payload = await came.get()
            if payload is None:
                left -= 1
                os.waitpid(stream.pid, 0)
                stream.pid = 0
                continue
            got.add(number)
            try:
                result = pickle.loads(payload)
            except Exception:  # noqa: BLE001 - a broken chunk is redone here
                result = work(chunks[number])
            del payload
            yield result
        for number, part in enumerate(chunks):  # what a child that failed was on: here
            if number not in got:
                yield work(part)
                await asyncio.sleep(0)
    finally:
        for stream in streams:
            _end(loop, stream)


def _chunks(items: Sequence[Item], count: int, chunk: int) -> list[Sequence[Item]]:
    """``items`` cut in chunks of ``chunk`` (a chunk for each of ``count`` processes at
    least, and no more than `MAX_TICKETS` chunks)."""
    chunk = max(1, min(chunk, -(-len(items) // max(count, 1))))
    chunk = max(chunk, -(-len(items) // MAX_TICKETS))
    return [items[start : start + chunk] for start in range(0, len(items), chunk)]


def _tickets(count: int) -> int:
    """The read end of a pipe holding the numbers of ``count`` chunks, written whole."""
    tickets, to_tickets = os.pipe()
    try:
        send_all(to_tickets, b"".join(k.to_bytes(TICKET, "big") for k in range(count)))
    finally:
        os.close(to_tickets)
    return tickets


def _taken(tickets: int) -> Iterator[int]:
    """The numbers of the chunks this process takes from ``tickets``, each as it is done
    with the one before, as long as there is one."""
    while len(ticket := os.read(tickets, TICKET)) == TICKET:
        yield int.from_bytes(ticket, "big")


def _take(
    work: Callable[[Sequence[Any]], Any],
    chunks: list[Sequence[Any]],
    tickets: int,
    fd: int,
    *,
    at_once: bool = False,
) -> None:
    """A child's part: the chunks it takes from ``tickets`` worked on, each one's results
    sent on ``fd`` framed with its number (`FRAME_HEAD`) as it has them, or, ``at_once``,
    all when it has no chunk left (for a parent that reads them only then)."""
    frames = []
    for number in _taken(tickets):
        data = pickle.dumps(work(chunks[number]), protocol=pickle.HIGHEST_PROTOCOL)
        frame = len(data).to_bytes(8, "big") + number.to_bytes(TICKET, "big") + data
        if at_once:
            frames.append(frame)
        else:
            send_all(fd, frame)
    if frames:
        send_all(fd, b"".join(frames))


def _frames(buffer: bytearray) -> Iterator[tuple[int, bytes]]:
    """The whole frames at the head of ``buffer`` (chunk number, results pickled), each
    taken out of it as it is yielded; a frame not whole yet is left."""
    while len(buffer) >= FRAME_HEAD:
        size = int.from_bytes(buffer[:8], "big")
        if len(buffer) < FRAME_HEAD + size:
            return
        number = int.from_bytes(buffer[8:FRAME_HEAD], "big")
        data = bytes(buffer[FRAME_HEAD : FRAME_HEAD + size])
        del buffer[: FRAME_HEAD + size]
        yield number, data


def _stream(
    work: Callable[[Sequence[Any]], Any], chunks: list[Sequence[Any]], tickets: int
) -> _Stream:
    """Fork a child that takes the number of the next chunk from ``tickets`` as long as
    there is one, and sends its results as it has them."""
    pid, read_end = fork_child(partial(_take, work, chunks, tickets))
    os.set_blocking(read_end, False)
    return _Stream(pid, read_end)


def _readable(
    loop: asyncio.AbstractEventLoop,
    stream: _Stream,
    came: asyncio.Queue[tuple[_Stream, int, bytes | None]],
) -> None:
    """What a child sent: each whole chunk's results queued with its number; at its end,
    None."""
    try:
        block = os.read(stream.fd, 1 << 20)
    except BlockingIOError:
        return
    except OSError:
        block = b""
    if not block:
        loop.remove_reader(stream.fd)
        os.close(stream.fd)
        stream.open = False
        came.put_nowait((stream, -1, None))
        return
    stream.buffer += block
    for number, data in _frames(stream.buffer):
        came.put_nowait((stream, number, data))


def _end(loop: asyncio.AbstractEventLoop, stream: _Stream) -> None:
    """A child no longer read from (its results all taken, or the caller gone): its pipe
    closed, and the child ended and waited for if it is still there."""
    if stream.open:
        loop.remove_reader(stream.fd)
        os.close(stream.fd)
        stream.open = False
    if stream.pid:
        with contextlib.suppress(ProcessLookupError):
            os.kill(stream.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(stream.pid, 0)
        stream.pid = 0
