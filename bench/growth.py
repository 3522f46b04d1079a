"""Growth: cached ``ls``, a first run and the TUI at 1,000, 5,000 and 20,000 runs.

    python bench/growth.py [--sizes 1000 5000 20000] [--repeat 3] [--workdir DIR]

For each size a corpus (``bench/make_corpus.py --thin-agents``, built once under the
workdir) is measured as `cold_index.compare` measures it (the floor, ``ls --json --no-cache``
and ``ls --json`` with its rows cache, in turns, medians), then the TUI as `loop_lag.run`
starts it (first rows, every run listed, its loop's p99 lateness meanwhile, peak RSS; live
follow off). The per-run cost is the slope between the smallest and the largest size; growth is
linear when the cost per run at every size stays within a factor of 1.5 of that slope.
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from cold_index import compare
from common import compile_sources, default_workdir
from idle_cpu import corpus_of
from loop_lag import run as run_tui

SIZES = (1000, 5000, 20000)


def measure_size(runs: int, workdir: Path, repeat: int) -> dict[str, Any]:
    root = corpus_of(workdir, runs)
    listed = compare(root, repeat)
    tui = run_tui(root)
    return {
        "runs": runs,
        "floor_s": listed["floor"]["median_s"],
        "first_s": listed["first"]["median_s"],
        "first_cpu_s": listed["first"]["median_cpu_s"],
        "first_rss_mb": listed["first"]["peak_rss_mb"],
        "cached_s": listed["ours"]["median_s"],
        "cached_rss_mb": listed["ours"]["peak_rss_mb"],
        "floor_cpu_s": listed["floor"]["median_cpu_s"],
        "tui_first_rows_s": round(tui["first_rows"], 2),
        "tui_listed_s": round(tui["all_runs"], 2),
        "tui_late_p99_ms": tui["late_p99_ms"],
        "tui_rss_mb": round(tui["peak_rss_mb"], 1),
    }


def slopes(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Cost per extra run between the smallest and the largest size (ms, or KB of RSS)."""
    small, large = rows[0], rows[-1]
    extra = large["runs"] - small["runs"]
    per_run: dict[str, float] = {}
    for name in ("floor_s", "first_s", "cached_s", "tui_listed_s"):
        per_run[name.replace("_s", "_ms_per_run")] = 1000 * (large[name] - small[name]) / extra
    for name in ("first_rss_mb", "cached_rss_mb", "tui_rss_mb"):
        per_run[name.replace("_mb", "_kb_per_run")] = 1024 * (large[name] - small[name]) / extra
    return {key: round(value, 3) for key, value in per_run.items()}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=default_workdir())
    args = parser.parse_args(argv)
    compile_sources()
    rows = [measure_size(runs, args.workdir, args.repeat) for runs in sorted(args.sizes)]
    result = {"sizes": rows, "per_run": slopes(rows) if len(rows) > 1 else {}}
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
