"""The plan of a 100,000-call run (``resume --dry-run``) against the time to parse its journal.

    python bench/plan_cost.py [--calls 100000] [--repeat 3] [--workdir DIR]

The tree is a copy of the real ``killed`` tree whose run is grown to ``--calls`` calls before
its own last lines (a ``started`` and a ``result`` line each, and a thin agent transcript
each, as the CLI leaves them): a dead run of that size whose last calls were in flight.
It is made once under the workdir. Three commands run as fresh processes, in turns,
``--repeat`` times after a warm-up: the floor (read the journal and ``orjson``-parse every
line), ``wftop resume RUN --dry-run`` and the same with ``--json``. A fourth, reported
beside them and not a goal's figure (``plan_failed``), plans a failed run of as many calls:
the real ``mid-failure`` tree grown the same way (its calls before its own, a failure among
them: two forecasts, a heal that drops a line, calls put at risk). ``claude`` is a script
that prints the pinned version (the plan asks it), so the CLI's own start is not counted.
Each plan is the run's first: it starts from a state dir holding what one ``wftop ls`` of
the tree left there (what its transcripts spent, in the spend book), copied afresh before
each plan, never what a plan before it kept. Wall time, CPU and peak RSS come from
``wait4``. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from common import TOP, WFTOP, Measured, compile_sources, default_workdir, measure, median

from wftop.core.cost.spendbook import SETTLE_S

SOURCE = TOP / "tests" / "data" / "corpus" / "killed"
FAILED = TOP / "tests" / "data" / "corpus" / "mid-failure"
"""The tree of ``plan_failed``: a call failed (rate limited) and later calls returned."""
GOAL = 2.0
"""The plan within this many times the parse."""

PARSE = """
import sys, orjson
with open(sys.argv[1], "rb") as handle:
    data = handle.read()
count = 0
for line in data.split(b"\\n"):
    if line:
        orjson.loads(line)
        count += 1
print(count)
"""


def make_tree(where: Path, calls: int, source: Path = SOURCE) -> tuple[Path, Path]:
    """The grown tree of ``source`` (made once): its root and its journal."""
    root = where / "killed"
    marker = where / "made.json"
    if marker.exists() and json.loads(marker.read_text()).get("calls") == calls:
        (journal,) = root.glob("projects/*/*/subagents/workflows/wf_*/journal.jsonl")
        return root, journal
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    shutil.copytree(source, root, ignore=shutil.ignore_patterns("claude-tmp"))
    (journal,) = root.glob("projects/*/*/subagents/workflows/wf_*/journal.jsonl")
    lines = []
    for number in range(calls):
        key, agent = f"v2:{number:064x}", f"a{number:016x}"
        started = {"type": "started", "key": key, "agentId": agent, "label": f"w-{number}"}
        result = {"type": "result", "key": key, "agentId": agent, "result": {"n": number}}
        lines += [json.dumps(started | {"phase": "Load"}), json.dumps(result)]
        (journal.parent / f"agent-{agent}.jsonl").write_text('{"type":"user"}\n')
    first, rest = journal.read_bytes().split(b"\n", 1)
    journal.write_bytes(first + b"\n" + ("\n".join(lines) + "\n").encode() + rest)
    marker.write_text(json.dumps({"calls": calls}))
    return root, journal


def fake_claude(where: Path) -> Path:
    """The script (made once: a tree made elsewhere may be linked here, never written)."""
    path = where / "claude"
    text = "#!/bin/sh\necho '2.1.332 (Claude Code)'\n"
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
        path.chmod(0o755)
    return path


def listed_state(where: Path, root: Path) -> Path:
    """A state dir as one ``wftop ls`` of the tree leaves it (its rows cache apart), listed
    once the tree's last transcript is older than what the spend book keeps: one written
    within its ``SETTLE_S`` of the listing is not kept, and each plan would read it and
    write the whole book again (140 transcripts and 0.4-0.6 s of a failed run's plan, on a
    tree listed as soon as it was made)."""
    (journal,) = root.glob("projects/*/*/subagents/workflows/wf_*/journal.jsonl")
    newest = max(journal.stat().st_mtime, journal.parent.stat().st_mtime)
    time.sleep(max(0.0, newest + SETTLE_S + 0.5 - time.time()))
    state = where / "listed-state"
    shutil.rmtree(state, ignore_errors=True)
    cache = where / "listed-cache"
    shutil.rmtree(cache, ignore_errors=True)
    env = dict(os.environ, WFTOP_STATE_DIR=str(state), WFTOP_CACHE_DIR=str(cache))
    listing = [*WFTOP, "ls", "--json", "--no-default-root", "--root", str(root)]
    if measure(listing, env=env).returncode != 0:
        sys.exit("bench: wftop ls failed on the grown tree")
    return state


def first_plan(argv: list[str], where: Path, listed: Path) -> Measured:
    """``argv`` measured from a fresh copy of the listed state dir (of the tree in ``where``)."""
    state = where / "state"
    shutil.rmtree(state, ignore_errors=True)
    shutil.copytree(listed, state)
    return measure(argv, env=dict(os.environ, WFTOP_STATE_DIR=str(state)))


def plan_argv(where: Path, root: Path, journal: Path) -> list[str]:
    """``wftop resume RUN --dry-run`` of the run of ``journal`` in the tree ``root``."""
    claude = fake_claude(where)
    plan = [*WFTOP, "resume", journal.parent.name, "--dry-run", "--no-default-root"]
    return [*plan, "--root", str(root), "--claude", str(claude)]


def summary(runs: list[Measured]) -> dict[str, Any]:
    return {
        "median_s": round(median([run.seconds for run in runs]), 3),
        "median_cpu_s": round(median([run.cpu_seconds for run in runs]), 3),
        "peak_rss_mb": round(max(run.max_rss_kb for run in runs) / 1024, 1),
        "all_s": [round(run.seconds, 3) for run in runs],
    }


def run(calls: int, repeat: int, workdir: Path) -> dict[str, Any]:
    compile_sources()
    where = workdir / f"plan-{calls}"
    root, journal = make_tree(where, calls)
    failed_where = workdir / f"plan-failed-{calls}"
    failed_root, failed_journal = make_tree(failed_where, calls, FAILED)
    floor = [sys.executable, "-c", PARSE, str(journal)]
    plan = plan_argv(where, root, journal)
    listed = {
        where: listed_state(where, root),
        failed_where: listed_state(failed_where, failed_root),
    }
    measured: dict[str, list[Measured]] = {
        "floor": [],
        "plan": [],
        "plan_json": [],
        "plan_failed": [],
    }
    argvs = {
        "floor": floor,
        "plan": plan,
        "plan_json": [*plan, "--json"],
        "plan_failed": plan_argv(failed_where, failed_root, failed_journal),
    }

    def one(name: str, argv: list[str]) -> Measured:
        if name == "floor":
            return measure(argv)
        at = failed_where if name == "plan_failed" else where
        return first_plan(argv, at, listed[at])

    for name, argv in argvs.items():
        one(name, argv)
    for _ in range(repeat):
        for name, argv in argvs.items():
            measured[name].append(one(name, argv))
    result: dict[str, Any] = {name: summary(runs) for name, runs in measured.items()}
    shown = json.loads(measured["plan_json"][-1].stdout)
    result["calls"] = calls
    result["journal_mb"] = round(journal.stat().st_size / 1e6, 1)
    result["json_mb"] = round(len(measured["plan_json"][-1].stdout) / 1e6, 1)
    result["forecast"] = {
        "cached": len(shown["forecast"]["cached"]),
        "live": len(shown["forecast"]["live"]),
    }
    floor_s = result["floor"]["median_s"]
    for name in ("plan", "plan_json", "plan_failed"):
        result[name]["ratio"] = round(result[name]["median_s"] / floor_s, 2)
    result["met"] = max(result["plan"]["ratio"], result["plan_json"]["ratio"]) <= GOAL
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=default_workdir())
    args = parser.parse_args(argv)
    result = run(args.calls, args.repeat, args.workdir)
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
