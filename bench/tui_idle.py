"""Steady-state cost of the TUI: CPU used by the real app, idle, following N runs.

    python bench/tui_idle.py [--runs 5000] [--seconds 60] [--root DIR]

Starts the app (``wftop.tui.start.make_app``, live follow on, headless at 100×30) in a
process of its own over the generated corpus (or ``--root``), waits until its cold start has
listed every run and its first stat sweep is done, then reads the user+system CPU time of the
process and its engine (a child of its own, ``WFTOP_ENGINE=pipe``, with its watch helper; all
threads) over ``--seconds`` of quiet, which includes the engine's periodic sweeps and owner
checks and the TUI's age tick. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import TOP, default_workdir
from idle_cpu import corpus_of, cpu_seconds, family, report, rss_of_family

APP = """
import sys
from wftop.tui.start import make_app

app = make_app([sys.argv[1]])

def ready() -> None:
    if app.store.progress.loaded:
        print(len(app.store.rows), flush=True)
        timer.stop()

def start() -> None:
    global timer
    timer = app.set_interval(0.2, ready)

app.call_later(start)
app.run(headless=True, size=(100, 30))
"""


def run(root: Path, seconds: float, settle: float) -> dict[str, Any]:
    process = subprocess.Popen(
        [sys.executable, "-c", APP, str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        cwd=TOP,
        env={**os.environ, "WFTOP_ENGINE": "pipe"},
    )
    started = time.monotonic()
    try:
        assert process.stdout is not None
        listed = process.stdout.readline().strip()
        if not listed:
            raise SystemExit("tui_idle: the app did not list its runs")
        ready = time.monotonic() - started
        time.sleep(settle)
        before, at = cpu_seconds(process.pid), time.monotonic()
        time.sleep(seconds)
        used, elapsed = cpu_seconds(process.pid) - before, time.monotonic() - at
        memory = rss_of_family(process.pid)
        helpers = len(family(process.pid)) - 1
    finally:
        process.kill()
        process.wait()
    return {
        "runs_listed": int(listed),
        "seconds": round(elapsed, 1),
        "cpu_seconds": round(used, 3),
        "cpu_percent_of_one_core": round(100 * used / elapsed, 2),
        "rss_mb": round(memory, 1),
        "helper_processes": helpers,
        "ready_after_s": round(ready, 2),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--settle", type=float, default=5.0)
    parser.add_argument("--root", type=Path, default=None)
    parser.add_argument("--workdir", type=Path, default=default_workdir())
    args = parser.parse_args(argv)
    root = args.root or corpus_of(args.workdir, args.runs)
    return report(run(root, args.seconds, args.settle), args.runs)


if __name__ == "__main__":
    main()
