"""What an engine started with its rows cache has imported when it says ``kept`` (a view may
list the kept rows): not what only its walk of the roots, the spends fill and its live index
need (the cold pass and its fork fan-out, the run reader, the live index, what reads what
runs spent and the book that keeps it), nor the resume store, which its state dir was once
taken from, nor the row and run models and the masking (what it holds before is rows as the
cache printed them). Each is CPU between the engine's start and that moment, while its view
waits to list. The engine is made as its command line makes it (`engine_of`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.core.test_engine_first_rows import warm_cache
from tests.corpus import copy_tree

TOP = Path(__file__).parents[2]

LATER = (
    "wftop.core.index.coldpass",
    "wftop.core.index.fanout",
    "wftop.core.index.supersede",
    "wftop.core.index.countrow",
    "wftop.core.index.reader",
    "wftop.core.index.live",
    "wftop.core.engine.seeding",
    "wftop.core.cost.usage",
    "wftop.core.cost.spendbook",
    "wftop.core.read.journal",
    "wftop.core.resume.store",
    # the row model, its masking and the run model: what the engine holds before is rows
    # printed as the cache kept them, and naming their projects decodes none
    "wftop.core.row",
    "wftop.core.model",
    "wftop.core.attention",
    "wftop.core.text.redact",
    # the messages a view reads: the engine writes lines (wftop.core.engine.lines)
    "wftop.core.engine.protocol",
)

KEPT = rf"""
import asyncio, json, sys

# the engine's process, as views start it
from wftop.core.engine.__main__ import engine_of, parse
from wftop.core.system.procs import FakeProcessTable

roots = json.loads(sys.argv[1])
engine = engine_of(parse(["--stdio", *(f"--root={{root}}" for root in roots)]))
engine.processes = FakeProcessTable()
stop, found = asyncio.Event(), {{}}
kept = engine._kept


def noted():
    found["held"] = len(engine.held)
    found["imported"] = sorted(name for name in {LATER!r} if name in sys.modules)
    kept()
    stop.set()


engine._kept = noted
asyncio.run(engine.run(stop))
print(json.dumps(found))
"""


async def test_a_warm_engine_says_kept_before_it_imports_what_reads_runs(tmp_path):
    roots = [copy_tree(name, tmp_path) for name in ("killed", "clean", "mid-failure-resumed")]
    cache = tmp_path / "cache"
    await warm_cache(roots, cache / "ls-rows")  # where `rows_cache_path` finds it
    state = {"WFTOP_STATE_DIR": str(tmp_path / "state"), "WFTOP_CACHE_DIR": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", KEPT, json.dumps([str(root) for root in roots])],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(TOP), **state},
        cwd=TOP,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["held"] >= 3  # the kept rows are out
    assert found["imported"] == []
