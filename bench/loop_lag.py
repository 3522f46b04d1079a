"""How late the TUI's event loop runs while its initial index reads every run.

    python bench/loop_lag.py [--runs 5000] [--workdir DIR] [--root DIR]

The real app (``wftop.tui.start.make_app``, headless at 100×30) over the generated corpus,
in a fresh process, with an engine process of its own started with it (``WFTOP_ENGINE=pipe``).
From its mount until every run is listed, a timer due every 10 ms records how late it fires:
a key pressed then waits that long before its handler starts (on top of what the handler
costs, `bench/tui_startup.py`). Reported: p50, p99 and max lateness meanwhile, when the first
rows and every run were listed (seconds from the parent's start of the process), and the
app's and its engine's peak RSS by then.
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import TOP, default_workdir
from idle_cpu import corpus_of

APP = """
import json, resource, sys, time
start = float(sys.argv[2])
from wftop.core.config import Config
from wftop.tui.start import make_app

app = make_app([sys.argv[1]], config=Config(bell=False, notify=False), live=True)
late: list[float] = []
seen: dict[str, float] = {}
due = [0.0]

def peak_rss_mb(pid=None) -> float:
    # VmHWM: this process's own peak. ru_maxrss also counts the parent's peak when the
    # parent forked (or vforked) this process: it is kept across exec.
    try:
        with open(f"/proc/{pid or 'self'}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        if pid:
            return 0.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

def tick() -> None:
    now = time.monotonic()
    if due[0]:
        late.append(max(0.0, now - due[0]) * 1000)
    due[0] = now + 0.01
    if app.store.rows and "first_rows" not in seen:
        seen["first_rows"] = time.time() - start
    if app.store.progress.loaded:
        seen["all_runs"] = time.time() - start
        seen["peak_rss_mb"] = peak_rss_mb()
        seen["engine_peak_rss_mb"] = peak_rss_mb(app.link.hello.pid if app.link.hello else None)
        print(json.dumps({"late_ms": late, "runs": len(app.store.rows), **seen}), flush=True)
        app.exit()

app.call_later(lambda: app.set_interval(0.01, tick))
app.run(headless=True, size=(100, 30))
"""


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def run(root: Path) -> dict[str, Any]:
    started = time.time()
    done = subprocess.run(
        [sys.executable, "-c", APP, str(root), repr(started)],
        capture_output=True,
        cwd=TOP,
        timeout=600,
        check=False,
        env={**os.environ, "WFTOP_ENGINE": "pipe"},
    )
    lines = done.stdout.decode(errors="replace").strip().splitlines()
    if not lines:
        raise SystemExit(f"loop_lag: the app printed nothing ({done.stderr[-300:]!r})")
    found = json.loads(lines[-1])
    late = found.pop("late_ms")
    return {
        **found,
        "ticks": len(late),
        "late_p50_ms": round(percentile(late, 0.5), 1),
        "late_p99_ms": round(percentile(late, 0.99), 1),
        "late_max_ms": round(max(late, default=0.0), 1),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--root", type=Path, default=None)
    parser.add_argument("--workdir", type=Path, default=default_workdir())
    args = parser.parse_args(argv)
    result = run(args.root or corpus_of(args.workdir, args.runs))
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
