"""Shell completion of a run id: ``wftop __complete-runs`` against the floor.

    python bench/completion.py [--runs 5000] [--repeat 7]

A completion runs while a person waits at the prompt, so it reads only the rows cache that
``wftop ls`` keeps, never the tree. On one generated corpus (``bench/make_corpus.py``, thin
agents), after one ``wftop ls --json`` has filled the cache, three commands run in turns
``--repeat`` times after one warm-up each: the floor, ``python -c pass`` (the interpreter
starting, the least any Python helper costs); ``wftop __complete-runs`` for the corpus's root;
and, for scale, ``wftop ls --json`` with the same cache. Prints one JSON object with medians
and the ratio of each to the floor measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import WFTOP, compile_sources, default_workdir, ensure_corpus, machine, measure, median
from make_corpus import Plan


def commands(root: Path) -> dict[str, list[str]]:
    roots = ["--no-default-root", "--root", str(root)]
    return {
        "floor": [sys.executable, "-c", "pass"],
        "complete": [*WFTOP, "__complete-runs", *roots],
        "ls": [*WFTOP, "ls", "--json", *roots],
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--workdir", type=Path, default=default_workdir())
    args = parser.parse_args(argv)
    compile_sources()
    root = ensure_corpus(
        args.workdir / f"corpus-{args.runs}", Plan(runs=args.runs, thin_agents=True)
    )
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "WFTOP_CACHE_DIR": cache}
        named = commands(root)
        filled = measure(named["ls"], env=env)
        listed = len(json.loads(filled.stdout))
        times: dict[str, list[float]] = {name: [] for name in named}
        ids = 0
        for turn in range(args.repeat + 1):
            for name, argv_ in named.items():
                done = measure(argv_, env=env)
                if done.returncode != 0:
                    sys.exit(f"bench: {name} exited {done.returncode}")
                if name == "complete":
                    ids = len(done.stdout.splitlines())
                if turn:  # the first turn warms up
                    times[name].append(done.seconds)
    floor = median(times["floor"])
    report = {
        "machine": machine(),
        "runs": args.runs,
        "listed": listed,
        "ids_offered": ids,
        "repeat": args.repeat,
        "median_s": {name: round(median(values), 3) for name, values in times.items()},
        "against_floor": {name: round(median(values) / floor, 2) for name, values in times.items()},
    }
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
