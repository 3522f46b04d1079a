"""What a change set costs the TUI's event loop while a 100k-line journal grows, and what
a key waits meanwhile.

A copy of a real run (``tests/data/corpus/killed``) whose journal is grown to ``--lines``
lines (one ``started`` and one ``result`` per call) is opened in the real app (headless,
live follow on); then ``--rate`` lines a second are appended for ``--seconds``, by one
writer or, with ``--writers N``, by N writers each appending to a run of its own (N copies
of the run, each its own root; the first grown to ``--lines``) at ``rate / N``. Reported:
per application of the store, the time the app's loop spends on it (`Store.apply`: the rows
that came from the engine process, the alerts, the screens told; at most one a frame); the
engine re-reads and folds in its own process (a real one, as a person's wftop starts it).
And keys: ``j`` and ``k`` on the runs screen, sent every 40 ms as the terminal driver sends
them, first with nothing written (the floor) and then while the writers write; a key's
latency is the wall time from sending it until the screen has refreshed after its action.

    python bench/loop_cost.py [--lines 100000] [--rate 500] [--seconds 10] [--writers 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import orjson
from textual import events

TOP = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TOP))

from tests.corpus import copy_tree, only_journal  # noqa: E402
from wftop.core.config import Config  # noqa: E402
from wftop.tui.start import make_app  # noqa: E402
from wftop.tui.widgets.run_table import RunTable  # noqa: E402


def grow(journal: Path, lines: int) -> int:
    """Append started/result pairs until the journal holds ``lines`` lines."""
    have = sum(1 for _ in journal.open("rb"))
    calls = (lines - have) // 2
    with journal.open("ab") as handle:
        for n in range(calls):
            key = f"grow-{n}"
            handle.write(
                orjson.dumps(
                    {"type": "started", "key": key, "agentId": f"g{n}", "label": f"call {n}"}
                )
                + b"\n"
            )
            handle.write(
                orjson.dumps({"type": "result", "key": key, "agentId": f"g{n}", "result": {"n": n}})
                + b"\n"
            )
    return have + 2 * calls


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


async def measure(
    roots: list[Path], journals: list[Path], rate: int, seconds: float
) -> dict[str, object]:
    loop_ms: list[float] = []
    app = make_app([str(root) for root in roots], config=Config(bell=False), live=True)
    store = app.store
    applied = store.apply

    def timed_apply():  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        try:
            return applied()
        finally:
            if store.progress.loaded:
                loop_ms.append((time.perf_counter() - start) * 1000)

    store.apply = timed_apply  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        while not app.store.progress.loaded:
            await pilot.pause(0.05)
        await pilot.pause(2.0)  # the watcher comes up
        stop = threading.Event()
        each = rate / len(journals)

        def writer(journal: Path, name: str) -> None:
            n = 0
            with journal.open("ab", buffering=0) as handle:
                start = time.monotonic()
                while not stop.is_set() and time.monotonic() - start < seconds:
                    key = f"live-{name}-{n}"
                    line = {"type": "started", "key": key, "agentId": f"l{n}", "label": f"live {n}"}
                    handle.write(orjson.dumps(line) + b"\n")
                    n += 1
                    time.sleep(max(0.0, start + n / each - time.monotonic()))

        keys = Keys(app)
        idle = [await keys.press() for _ in range(KEY_PRESSES)]
        threads = [
            threading.Thread(target=writer, args=(journal, str(number)))
            for number, journal in enumerate(journals)
        ]
        for thread in threads:
            thread.start()
        writing = []
        while any(thread.is_alive() for thread in threads):
            writing.append(await keys.press())
        await pilot.pause(1.0)
    return {
        "change_sets": len(loop_ms),  # the store's applications, each of what came in a frame
        "loop_ms_median": statistics.median(loop_ms) if loop_ms else None,
        "loop_ms_p99": percentile(loop_ms, 0.99),
        "loop_ms_max": max(loop_ms, default=0.0),
        "keys_idle": key_summary(idle),
        "keys_writing": key_summary(writing),
    }


KEY_GAP = 0.04
KEY_PRESSES = 100


class Keys:
    """``j`` and ``k`` in turn on the runs screen, sent as the terminal driver sends keys."""

    def __init__(self, app: object) -> None:
        self.app = app
        self.down = True
        self.done: asyncio.Future[float] | None = None
        screen = app.screen  # type: ignore[attr-defined]
        table = screen.query_one(RunTable)
        for name in ("action_cursor_down", "action_cursor_up"):
            original = getattr(table, name)
            setattr(table, name, self._timed(screen, original))

    def _timed(self, screen: object, original: object):  # type: ignore[no-untyped-def]
        def action() -> None:
            original()  # type: ignore[operator]
            future = self.done
            if future is not None and not future.done():
                screen.call_after_refresh(  # type: ignore[attr-defined]
                    lambda: future.done() or future.set_result(time.perf_counter())
                )

        return action

    async def press(self) -> float:
        self.done = asyncio.get_running_loop().create_future()
        name = "j" if self.down else "k"
        self.down = not self.down
        key = events.Key(name, name)
        key.set_sender(self.app)  # type: ignore[arg-type]
        sent = time.perf_counter()
        self.app.post_message(key)  # type: ignore[attr-defined]  # as the driver hands it
        done = await asyncio.wait_for(self.done, 10)
        await asyncio.sleep(KEY_GAP)
        return (done - sent) * 1000


def key_summary(values: list[float]) -> dict[str, float]:
    return {
        "presses": len(values),
        "p50_ms": round(statistics.median(values), 1) if values else 0.0,
        "p99_ms": round(percentile(values, 0.99), 1),
        "max_ms": round(max(values, default=0.0), 1),
    }


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--rate", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--writers", type=int, default=1)
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="wftop-loop-"))
    try:
        roots = [copy_tree("killed", scratch / f"w{n}") for n in range(args.writers)]
        journals = [only_journal(root) for root in roots]
        lines = grow(journals[0], args.lines)
        measured = asyncio.run(measure(roots, journals, args.rate, args.seconds))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    result = {
        "journal_lines": lines,
        "rate": args.rate,
        "seconds": args.seconds,
        "writers": args.writers,
        **measured,
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
