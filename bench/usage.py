"""What reading every run's spend costs: the transcripts of a generated corpus, read by wftop's
usage reader against the floor, and ``wftop ls --json`` (which now reads them) against the
journals-only floor.

    python bench/usage.py [--runs 1000] [--agent-files 12] [--repeat 3]

The corpus has real-size agent transcripts (about 80 KB each, as the real CLI writes them;
``bench/make_corpus.py`` without ``--thin-agents``). In one process, in turns, ``--repeat``
times after a warm-up (the page cache holds the corpus):

* ``read``: open and read every agent transcript, nothing parsed (the floor of any reader);
* ``parse``: orjson-parse every line of every transcript (what reading it as JSON lines costs);
* ``agent_usage``: the transcript reader the run screen uses (``wftop.core.read``), every line
  parsed;
* ``spend``: ``wftop.core.cost.usage.transcript_spend``, the byte search and the priced fold.

Then, as fresh processes: the floor (``bench/floor.py``), ``ls --json --no-cache`` and
``ls --json`` with its rows cache kept. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from cold_index import cache_env, floor, ours, summary
from common import compile_sources, corpus_facts, default_workdir, ensure_corpus, measure
from make_corpus import Plan

from wftop.core.cost.usage import transcript_spend
from wftop.core.read.agent_transcript import agent_usage


def read_only(path: Path) -> None:
    with open(path, "rb") as handle:
        handle.read()


def parse_all(path: Path) -> None:
    with open(path, "rb") as handle:
        for line in handle.read().split(b"\n"):
            if line:
                orjson.loads(line)


READERS: dict[str, Callable[[Path], object]] = {
    "read": read_only,
    "parse": parse_all,
    "agent_usage": lambda path: agent_usage(str(path)),
    "spend": lambda path: transcript_spend(str(path)),
}


def timed(reader: Callable[[Path], object], paths: list[Path]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    for path in paths:
        reader(path)
    return time.perf_counter() - wall, time.process_time() - cpu


def readers(paths: list[Path], repeat: int) -> dict[str, Any]:
    for reader in READERS.values():
        timed(reader, paths)
    seen: dict[str, list[tuple[float, float]]] = {name: [] for name in READERS}
    for _ in range(repeat):
        for name, reader in READERS.items():
            seen[name].append(timed(reader, paths))
    result: dict[str, Any] = {}
    for name, runs in seen.items():
        result[name] = {
            "median_s": round(statistics.median(wall for wall, _ in runs), 3),
            "median_cpu_s": round(statistics.median(cpu for _, cpu in runs), 3),
        }
    floor_s = result["read"]["median_s"]
    for name in READERS:
        result[name]["ratio_to_read"] = round(result[name]["median_s"] / floor_s, 2)
    return result


def commands(root: Path, repeat: int) -> dict[str, Any]:
    cache = root.parent / f"{root.name}-usage-cache"
    shutil.rmtree(cache, ignore_errors=True)
    env = cache_env(cache)
    measure(floor(root))
    measure(ours(root, cached=False), env=env)
    measure(ours(root), env=env)
    least, first, kept = [], [], []
    for _ in range(repeat):
        least.append(measure(floor(root)))
        first.append(measure(ours(root, cached=False), env=env))
        kept.append(measure(ours(root), env=env))
    rows = json.loads(kept[-1].stdout)
    result = {
        "floor": summary(least),
        "ls_no_cache": summary(first),
        "ls_cached": summary(kept),
        "runs_listed": len(rows),
        "runs_with_cost": sum(1 for row in rows if row.get("cost_usd")),
    }
    result["no_cache_ratio"] = round(
        result["ls_no_cache"]["median_s"] / result["floor"]["median_s"], 2
    )
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--agent-files", type=int, default=12)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=default_workdir())
    args = parser.parse_args(argv)
    compile_sources()
    plan = Plan(runs=args.runs, agent_files=args.agent_files, thin_agents=False)
    root = ensure_corpus(args.workdir / f"corpus-{args.runs}-full-{args.agent_files}", plan)
    paths = sorted(root.glob("projects/*/*/subagents/workflows/wf_*/agent-*.jsonl"))
    report: dict[str, Any] = {
        "corpus": str(root),
        "counts": corpus_facts(root).get("counts", {}),
        "transcripts": len(paths),
        "transcript_mb": round(sum(path.stat().st_size for path in paths) / 2**20, 1),
        "readers": readers(paths, args.repeat),
        "commands": commands(root, args.repeat),
    }
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
