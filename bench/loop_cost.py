"""What a change set costs the TUI's event loop while a 100k-line journal grows.

A copy of a real run (``tests/data/corpus/killed``) whose journal is grown to ``--lines``
lines (one ``started`` and one ``result`` per call) is opened in the real app (headless,
live follow on); then ``--rate`` lines a second are appended for ``--seconds``. Reported:
per change set, the time the app's loop spends applying it (``apply_changes``: the runs, the
alerts, the screens told) and the time the follow worker spent making it (``LiveIndex.apply``:
re-reading, folding, classifying), which ran on the loop before the follow moved to a thread.

    python bench/loop_cost.py [--lines 100000] [--rate 500] [--seconds 10]
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

TOP = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TOP))

from tests.corpus import copy_tree, only_journal  # noqa: E402
from wftop.core.index import LiveIndex  # noqa: E402
from wftop.core.procs import FakeProcessTable  # noqa: E402
from wftop.tui.config import Config  # noqa: E402
from wftop.tui.start import make_app  # noqa: E402


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


async def measure(root: Path, journal: Path, rate: int, seconds: float) -> dict[str, object]:
    loop_ms: list[float] = []
    index_ms: list[float] = []
    applied = LiveIndex.apply

    def timed_apply(self: LiveIndex, *args, **kwargs):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        try:
            return applied(self, *args, **kwargs)
        finally:
            if args and args[0]:
                index_ms.append((time.perf_counter() - start) * 1000)

    LiveIndex.apply = timed_apply  # type: ignore[method-assign]
    app = make_app([str(root)], config=Config(bell=False), processes=FakeProcessTable(), live=True)
    on_loop = app.apply_changes

    def timed_changes(changes, *, initial=False, **more):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        on_loop(changes, initial=initial, **more)
        if not initial:
            loop_ms.append((time.perf_counter() - start) * 1000)

    app.apply_changes = timed_changes  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        while not app.loaded:
            await pilot.pause(0.05)
        await pilot.pause(2.0)  # the watcher comes up
        stop = threading.Event()

        def writer() -> None:
            n = 0
            with journal.open("ab", buffering=0) as handle:
                start = time.monotonic()
                while not stop.is_set() and time.monotonic() - start < seconds:
                    key = f"live-{n}"
                    handle.write(
                        orjson.dumps(
                            {
                                "type": "started",
                                "key": key,
                                "agentId": f"l{n}",
                                "label": f"live {n}",
                            }
                        )
                        + b"\n"
                    )
                    n += 1
                    time.sleep(max(0.0, start + n / rate - time.monotonic()))

        thread = threading.Thread(target=writer)
        thread.start()
        while thread.is_alive():
            await pilot.pause(0.1)
        await pilot.pause(1.0)
    LiveIndex.apply = applied  # type: ignore[method-assign]
    return {
        "change_sets": len(loop_ms),
        "loop_ms_median": statistics.median(loop_ms) if loop_ms else None,
        "loop_ms_p99": percentile(loop_ms, 0.99),
        "loop_ms_max": max(loop_ms, default=0.0),
        "worker_ms_median": statistics.median(index_ms) if index_ms else None,
        "worker_ms_p99": percentile(index_ms, 0.99),
        "worker_ms_max": max(index_ms, default=0.0),
    }


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--rate", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="wftop-loop-"))
    try:
        root = copy_tree("killed", scratch)
        journal = only_journal(root)
        lines = grow(journal, args.lines)
        measured = asyncio.run(measure(root, journal, args.rate, args.seconds))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    result = {"journal_lines": lines, "rate": args.rate, "seconds": args.seconds, **measured}
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
