"""Share one cold pass over many run folders among forked worker processes.

A cold ``wftop ls`` spends nearly all its time on per-run work that needs nothing from
the other runs: read a journal, read a snapshot, build a row. On a machine with several
CPUs the folders are cut into one slice per process and handed to forked children (the
parent takes the first slice itself); each child sends back its finished results,
pickled, through a pipe. Forking copies the parent's memory, so the work function and
what it closes over (owners, the clock, redaction) need no pickling; only results
travel, so they should be small (bytes, tuples), never `wftop.core.model.Run` objects, which
cost more to pickle than to rebuild.

Fork is used only where it is safe and cheap: where `can_fork_workers` says so (Linux), no
other threads running, enough items to be worth it. Anything else, or a child that fails for
any reason, falls back to doing that hand in the parent, so the answer never depends on how it
was computed.
"""

from __future__ import annotations

import os
import pickle
import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from wftop.core.system.platforms import can_fork_workers

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
) -> list[Result]:
    """``work(items)``, computed in up to ``workers`` processes; results in hand order.

    Where this platform cannot fork workers, every hand is computed here, whatever ``workers``.

    Hands are contiguous slices of nearly equal length, so items that sit together
    (the runs of one session) mostly land in one process and share what it reads once.
    The results of hand 0 come first, then hand 1's, and so on; callers that care about
    order sort afterwards.
    """
    hands = deal(items, work, workers=workers)
    results = work(hands.own)
    results.extend(hands.collect())
    return results


class Hands(Generic[Item, Result]):
    """Hands dealt out: the first, ``own``, for the caller to work on; the others being
    worked on by forked children, whose results `collect` gathers."""

    def __init__(
        self,
        own: Sequence[Item],
        work: Callable[[Sequence[Item]], list[Result]],
        children: list[tuple[int, int, Sequence[Item]]],
    ) -> None:
        self.own = own
        self._work = work
        self._children = children

    def collect(self) -> list[Result]:
        """The children's results in hand order, each hand redone here if its child failed
        (waits for them; call it once, after working on `own`)."""
        results: list[Result] = []
        children, self._children = self._children, []
        for pid, fd, hand in children:
            payload = _drain(fd)
            _, status = os.waitpid(pid, 0)
            if status == 0 and payload:
                try:
                    results.extend(pickle.loads(payload))
                    continue
                except Exception:  # noqa: BLE001 - a broken child's hand is redone here
                    pass
            results.extend(self._work(hand))
        return results


def deal(
    items: Sequence[Item],
    work: Callable[[Sequence[Item]], list[Result]],
    *,
    workers: int | None = None,
    keep_one: bool = True,
) -> Hands[Item, Result]:
    """Cut ``items`` into hands (up to ``workers``, None: by CPUs and size) and fork a child
    for every hand but the first (`fan_out`'s rules; no child where forking is not safe).
    ``keep_one`` False: a child for every hand, the caller's `Hands.own` empty, so that
    what the work leaves behind stays out of the caller's heap (where children are forked
    at all: else the caller's hand is every item)."""
    count = worker_count(len(items)) if workers is None else workers
    if count <= 1 or not can_fork_workers():
        return Hands(items, work, [])
    cuts = [len(items) * k // count for k in range(count + 1)]
    hands = [items[cuts[k] : cuts[k + 1]] for k in range(count)]
    own = hands.pop(0) if keep_one else items[:0]
    children = [(*_spawn(work, hand), hand) for hand in hands]
    return Hands(own, work, children)


def _spawn(work: Callable[[Sequence[Item]], list[Result]], hand: Sequence[Item]) -> tuple[int, int]:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, send, and leave without running the parent's exit code
        code = 1
        try:
            os.close(read_end)
            data = pickle.dumps(work(hand), protocol=pickle.HIGHEST_PROTOCOL)
            view = memoryview(data)
            while view:
                view = view[os.write(write_end, view) :]
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    return pid, read_end


def _drain(fd: int) -> bytes:
    parts = []
    try:
        while block := os.read(fd, 1 << 20):
            parts.append(block)
    finally:
        os.close(fd)
    return b"".join(parts)
