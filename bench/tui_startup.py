"""TUI start-up to first useful paint, and keypress latency, on a generated corpus.

    python bench/tui_startup.py [--runs 5000] [--corpus DIR] [--repeat 3] [--json]

Builds the corpus with ``bench/make_corpus.py`` (thin agents) under ``bench/out/``
when it is not there yet. Each repeat runs a fresh Python process that starts the
real app headless at 100×30 over the corpus and reports:

* ``first_paint``: from the parent's ``Popen`` (interpreter start and imports
  included) to the first screen whose run table holds rows, after a refresh;
* ``all_runs``: to the end of the cold start (every run in the table);
* per key, on the full list: the work it costs, as the process CPU time from
  posting the key until the app is idle again with the screen refreshed (Textual's
  pilot ``press``), minus the same for a key bound to nothing (the harness's own
  cost). The pilot waits for idleness in 20 ms steps, so its wall time says little;
  CPU time is what a person waits for on an otherwise idle machine.

The app is the one ``wftop`` runs (`wftop.tui.start.make_app`), over an engine process of
its own started with it (``WFTOP_ENGINE=pipe``: no engine runs before), as a person's first
``wftop`` of the day finds it. The real process table is used.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

TOP = Path(__file__).resolve().parent.parent
KEYS = [
    ("j", "cursor down", 40),
    ("k", "cursor up", 40),
    ("pagedown", "page down", 10),
    ("s", "status filter (re-filter all runs)", 9),
    ("o", "sort (re-sort all runs)", 4),
    ("g", "group (regroup all runs)", 3),
]


def child(root: str) -> None:
    """Runs in the measured process; prints one JSON line."""
    import asyncio

    from common import painted

    from wftop.core.config import Config
    from wftop.tui.start import make_app
    from wftop.tui.widgets.run_table import RunTable

    async def main() -> dict[str, object]:
        config = Config(bell=False, notify=False, default_root=False)
        app = make_app([root], config=config, live=True)
        result: dict[str, object] = {}

        async with app.run_test(size=(100, 30)) as pilot:
            while True:
                tables = app.screen.query(RunTable)
                if tables and tables.first().row_count:
                    break
                await asyncio.sleep(0.001)
            await painted(app)
            result["paint_wall"] = time.time()
            result["rows_at_paint"] = tables.first().row_count
            while not app.store.progress.loaded:
                await asyncio.sleep(0.005)
            await painted(app)
            result["loaded_wall"] = time.time()
            await pilot.pause()
            result["runs"] = len(app.store.rows)

            async def cost(*keys: str) -> float:
                start = time.process_time()
                await pilot.press(*keys)
                return (time.process_time() - start) * 1000

            noop = statistics.median([await cost("f12") for _ in range(20)])
            result["noop_cpu_ms"] = noop
            latencies: dict[str, list[float]] = {}
            for key, _what, times in KEYS:
                latencies[key] = [await cost(key) - noop for _ in range(times)]
            await pilot.press("home")
            latencies["/ a (filter typed)"] = []
            for _ in range(10):
                await pilot.press("slash")
                # What the filter matches is made in a worker as the box opens; a person's
                # first key comes later than that worker's end (CPU time counts every thread).
                await asyncio.gather(
                    *(w.wait() for w in app.workers if w.group not in ("engine", "remote")),
                    return_exceptions=True,
                )
                latencies["/ a (filter typed)"].append(await cost("a") - noop)
                await pilot.press("escape", "escape")
            latencies["enter (open a run)"] = []
            latencies["esc (back to list)"] = []
            for _ in range(10):
                latencies["enter (open a run)"].append(await cost("enter") - noop)
                latencies["esc (back to list)"].append(await cost("escape") - noop)
            result["latency_ms"] = latencies
        return result

    print(json.dumps(asyncio.run(main())))


def ensure_corpus(path: Path, runs: int) -> None:
    if (path / "projects").is_dir():
        return
    argv = [sys.executable, str(TOP / "bench" / "make_corpus.py"), str(path)]
    subprocess.run([*argv, "--runs", str(runs), "--thin-agents"], check=True, cwd=TOP)


def measure(root: Path) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(TOP), WFTOP_ENGINE="pipe")
    start = time.time()
    done = subprocess.run(
        [sys.executable, __file__, "--child", str(root)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=TOP,
    )
    data = json.loads(done.stdout.strip().splitlines()[-1])
    data["first_paint_s"] = data.pop("paint_wall") - start
    data["all_runs_s"] = data.pop("loaded_wall") - start
    return data


def run(corpus: Path, repeat: int) -> dict[str, Any]:
    """The app started ``repeat`` times over ``corpus`` after a warm-up: medians, and each
    key's median and max over every press."""
    measure(corpus)  # warm the page cache, as a pane reopened during the day would be
    rounds = [measure(corpus) for _ in range(repeat)]
    paint = statistics.median(float(r["first_paint_s"]) for r in rounds)
    loaded = statistics.median(float(r["all_runs_s"]) for r in rounds)
    keys: dict[str, dict[str, float]] = {}
    for name in rounds[0]["latency_ms"]:
        samples = [ms for r in rounds for ms in r["latency_ms"][name]]
        keys[name] = {"median_ms": statistics.median(samples), "max_ms": max(samples)}
    return {
        "runs": rounds[0]["runs"],
        "rows_at_first_paint": rounds[0]["rows_at_paint"],
        "first_paint_s": round(paint, 3),
        "noop_cpu_ms": round(statistics.median(float(r["noop_cpu_ms"]) for r in rounds), 1),
        "all_runs_s": round(loaded, 3),
        "keys": {k: {m: round(v, 1) for m, v in d.items()} for k, d in keys.items()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--corpus", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", metavar="ROOT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return 0
    corpus = args.corpus or TOP / "bench" / "out" / f"c{args.runs}"
    ensure_corpus(corpus, args.runs)
    summary = run(corpus, args.repeat)
    paint, loaded = summary["first_paint_s"], summary["all_runs_s"]
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"runs {summary['runs']}  (median of {args.repeat} fresh processes, warm cache)")
    first = summary["rows_at_first_paint"]
    print(f"first useful paint   {paint:6.3f} s   ({first} rows shown)")
    print(f"every run listed     {loaded:6.3f} s")
    for name, stats in summary["keys"].items():
        print(f"  {name:<22} median {stats['median_ms']:6.1f} ms   max {stats['max_ms']:6.1f} ms")
    noop = summary["noop_cpu_ms"]
    print(f"  (harness cost of a key bound to nothing, subtracted: {noop:.1f} ms CPU)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
