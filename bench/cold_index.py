"""Cold index: ``wftop ls --json`` against the floor, on one generated corpus.

    python bench/cold_index.py [--runs 5000] [--repeat 5] [--big-results 200]

Three commands run in turns ``--repeat`` times after one warm-up each (the page cache
holds the corpus, as it does for a user re-running ``ls``): the floor, ``ls --json
--no-cache`` (what a first run ever costs) and ``ls --json`` with its rows cache kept
from the run before (what every later run costs; the two must print the same bytes).
Wall time, CPU (the command's worker processes included) and peak RSS come from
``wait4``. wftop's modules are byte-compiled first, as ``pip install`` leaves them.
A second corpus, identical but with a 1 MB ``result`` in ``--big-results`` runs,
checks that wftop's memory does not follow result sizes. Prints one JSON object.

`priced` measures what the goal's corpus leaves out: its thin transcripts carry no usage, so
its first run never loads the price data, where a user's does. On a corpus whose thin
transcripts keep their usage lines (`priced_corpus_of`), ``ls --json --no-cache`` with a state
dir of its own each time (no rate book yet: a first run ever) and with the rate book a run
before left, in turns with the floor (``--priced`` here; `bench/goals.py` reports it).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import (
    WFTOP,
    Measured,
    compile_sources,
    corpus_facts,
    default_workdir,
    ensure_corpus,
    measure,
    median,
)
from make_corpus import Plan


def ours(root: Path, *, cached: bool = True) -> list[str]:
    extra = [] if cached else ["--no-cache"]
    return [*WFTOP, "ls", "--json", *extra, "--no-default-root", "--root", str(root)]


def cache_env(folder: Path) -> dict[str, str]:
    """wftop's cache dir set to a folder of the benchmark's own (a fresh one per corpus)."""
    return {**os.environ, "WFTOP_CACHE_DIR": str(folder)}


def floor(root: Path, *, transcripts: bool = False) -> list[str]:
    """The floor (`bench/floor.py`); ``transcripts``: the second one, which also reads every
    file the output depends on (snapshots, agent and session transcripts)."""
    extra = ["--transcripts"] if transcripts else []
    return [sys.executable, str(Path(__file__).parent / "floor.py"), *extra, str(root)]


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
    """Floor, ``ls --json --no-cache`` (a first run: nothing kept from before) and
    ``ls --json`` with its rows cache filled by a run before (every later run), in turns."""
    cache = root.parent / f"{root.name}-cache"
    shutil.rmtree(cache, ignore_errors=True)
    env = cache_env(cache)
    measure(floor(root))
    measure(floor(root, transcripts=True))
    measure(ours(root, cached=False), env=env)
    warm = measure(ours(root), env=env)
    if warm.returncode != 0:
        sys.exit(f"cold_index: wftop ls failed on {root}")
    first: list[Measured] = []
    mine: list[Measured] = []
    least: list[Measured] = []
    reading: list[Measured] = []
    for _ in range(repeat):
        least.append(measure(floor(root)))
        reading.append(measure(floor(root, transcripts=True)))
        first.append(measure(ours(root, cached=False), env=env))
        mine.append(measure(ours(root), env=env))
    if mine[-1].stdout != first[-1].stdout:
        sys.exit("cold_index: ls --json with its cache printed something else than without")
    rows = json.loads(mine[-1].stdout)
    counted = json.loads(least[-1].stdout)
    statuses = collections.Counter(row["status"] for row in rows)
    result = {
        "first": summary(first),
        "ours": summary(mine),
        "floor": summary(least),
        "floor_transcripts": summary(reading),
        "runs_listed": len(rows),
        "runs_floor": counted["runs"],
        "journal_lines": counted["lines"],
        "statuses": dict(sorted(statuses.items())),
    }
    result["ratio"] = round(result["ours"]["median_s"] / result["floor"]["median_s"], 2)
    result["first_ratio"] = round(result["first"]["median_s"] / result["floor"]["median_s"], 2)
    result["cpu_ratio"] = round(result["ours"]["median_cpu_s"] / result["floor"]["median_cpu_s"], 2)
    second = result["floor_transcripts"]
    result["first_ratio_transcripts"] = round(result["first"]["median_s"] / second["median_s"], 2)
    result["first_cpu_ratio_transcripts"] = round(
        result["first"]["median_cpu_s"] / second["median_cpu_s"], 2
    )
    result["other_files"] = json.loads(reading[-1].stdout)["other_files"]
    return result


def priced_corpus_of(workdir: Path, runs: int) -> Path:
    """The goal's corpus of ``runs`` runs with its thin transcripts' usage lines kept."""
    plan = Plan(runs=runs, thin_agents=True, usage_lines=True)
    return ensure_corpus(workdir / f"corpus-{runs}-usage", plan)


def state_env(folder: Path) -> dict[str, str]:
    """wftop's state and cache dirs in ``folder``."""
    return {**cache_env(folder / "cache"), "WFTOP_STATE_DIR": str(folder / "state")}


def priced(root: Path, repeat: int) -> dict[str, Any]:
    """``ls --json --no-cache`` of ``root`` (transcripts with usage) as a first run ever (a
    state dir of its own, no rate book) and with the rate book of a run before, in turns
    with the floor; the two print the same."""
    kept = Path(tempfile.mkdtemp(prefix="priced-", dir=root.parent))
    try:
        measure(floor(root))
        measure(ours(root, cached=False), env=state_env(kept))
        least: list[Measured] = []
        first: list[Measured] = []
        booked: list[Measured] = []
        for _ in range(repeat):
            least.append(measure(floor(root)))
            fresh = Path(tempfile.mkdtemp(prefix="priced-", dir=root.parent))
            try:
                first.append(measure(ours(root, cached=False), env=state_env(fresh)))
            finally:
                shutil.rmtree(fresh, ignore_errors=True)
            booked.append(measure(ours(root, cached=False), env=state_env(kept)))
    finally:
        shutil.rmtree(kept, ignore_errors=True)
    if first[-1].returncode != 0 or first[-1].stdout != booked[-1].stdout:
        sys.exit("cold_index: ls --json --no-cache printed otherwise with its rate book")
    result = {"first": summary(first), "booked": summary(booked), "floor": summary(least)}
    for name in ("first", "booked"):
        result[name]["ratio"] = round(result[name]["median_s"] / result["floor"]["median_s"], 2)
        result[name]["cpu_ratio"] = round(
            result[name]["median_cpu_s"] / result["floor"]["median_cpu_s"], 2
        )
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--big-results", type=int, default=200)
    parser.add_argument("--full-agents", action="store_true", help="real-size agent transcripts")
    parser.add_argument(
        "--priced", action="store_true", help="the first run where transcripts carry usage"
    )
    parser.add_argument("--workdir", type=Path, default=default_workdir())
    args = parser.parse_args(argv)
    compile_sources()
    if args.priced:
        root = priced_corpus_of(args.workdir, args.runs)
        found = {"corpus": str(root), "priced": priced(root, args.repeat)}
        print(json.dumps(found, indent=2))
        return found
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
