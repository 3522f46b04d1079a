"""Cold index: ``wftop ls --json`` against the floor, on one generated corpus.

    python bench/cold_index.py [--runs 5000] [--repeat 5] [--big-results 200]

Both commands run alternately ``--repeat`` times after one warm-up each (the page
cache holds the corpus, as it does for a user re-running ``ls``); wall time and the
child's peak RSS are taken from ``wait4``. A second corpus, identical but with a 1 MB
``result`` in ``--big-results`` runs, checks that wftop's memory does not follow
result sizes. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path
from typing import Any

from common import WFTOP, Measured, corpus_facts, default_workdir, ensure_corpus, measure, median
from make_corpus import Plan


def ours(root: Path) -> list[str]:
    return [*WFTOP, "ls", "--json", "--no-default-root", "--root", str(root)]


def floor(root: Path) -> list[str]:
    return [sys.executable, str(Path(__file__).parent / "floor.py"), str(root)]


def summary(runs: list[Measured]) -> dict[str, Any]:
    return {
        "median_s": round(median([run.seconds for run in runs]), 3),
        "min_s": round(min(run.seconds for run in runs), 3),
        "max_s": round(max(run.seconds for run in runs), 3),
        "median_cpu_s": round(median([run.cpu_seconds for run in runs]), 3),
        "peak_rss_mb": round(max(run.max_rss_kb for run in runs) / 1024, 1),
        "all_s": [round(run.seconds, 3) for run in runs],
    }


def compare(root: Path, repeat: int) -> dict[str, Any]:
    measure(floor(root))
    warm = measure(ours(root))
    if warm.returncode != 0:
        sys.exit(f"cold_index: wftop ls failed on {root}")
    mine: list[Measured] = []
    least: list[Measured] = []
    for _ in range(repeat):
        least.append(measure(floor(root)))
        mine.append(measure(ours(root)))
    rows = json.loads(mine[-1].stdout)
    counted = json.loads(least[-1].stdout)
    statuses = collections.Counter(row["status"] for row in rows)
    result = {
        "ours": summary(mine),
        "floor": summary(least),
        "runs_listed": len(rows),
        "runs_floor": counted["runs"],
        "journal_lines": counted["lines"],
        "statuses": dict(sorted(statuses.items())),
    }
    result["ratio"] = round(result["ours"]["median_s"] / result["floor"]["median_s"], 2)
    result["cpu_ratio"] = round(result["ours"]["median_cpu_s"] / result["floor"]["median_cpu_s"], 2)
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--big-results", type=int, default=200)
    parser.add_argument("--full-agents", action="store_true", help="real-size agent transcripts")
    parser.add_argument("--workdir", type=Path, default=default_workdir())
    args = parser.parse_args(argv)
    thin = not args.full_agents
    base = ensure_corpus(
        args.workdir / f"corpus-{args.runs}", Plan(runs=args.runs, thin_agents=thin)
    )
    report: dict[str, Any] = {
        "corpus": str(base),
        "thin_agents": thin,
        "counts": corpus_facts(base).get("counts", {}),
    }
    report["base"] = compare(base, args.repeat)
    if args.big_results:
        big = ensure_corpus(
            args.workdir / f"corpus-{args.runs}-big{args.big_results}",
            Plan(runs=args.runs, thin_agents=thin, big_results=args.big_results),
        )
        report["big_results"] = args.big_results
        report["big"] = compare(big, max(1, args.repeat // 2))
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
