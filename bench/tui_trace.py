"""Where the TUI's "every run listed" goes: one start's moments, from its process's start.

    python3 bench/tui_trace.py [--runs 20000] [--no-cache]

One start as `bench/tui_goals.py` measures it (a fresh process running ``wftop`` itself, the
app it makes run headless at 100×30, a state dir of its own, so it starts its own engine;
with the rows cache of a start before unless ``--no-cache``), its steps noted as they
happen: the engine started, the app made (Textual imported), the app running, the engine's
hello, the first and the last rows received, ``kept`` (its engine's rows cache's rows all
sent: the list may be drawn), the snapshot's final message (its engine's walk after the kept
rows ends before it), the runs listable ("every run known": ``loaded``), the list drawn,
the app idle ("listed", what the goal counts: the pilot waits for a 20 ms window in which
the app spends under 1 ms of CPU). Beside them: the time spent decoding rows
(`RunRow.from_json`, in the view), applying them to the store, ordering the runs and
building the table, and the CPU of the app and of its engine by then (and when every run
was known: the engine is the app's child).
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import TOP, compile_sources, default_workdir
from idle_cpu import corpus_of, cpu_seconds, family
from tui_goals import ENGINE_GONE_S, alive

CHILD = r"""
import time

began = time.time()
import json, os, runpy, sys

moments = {"interpreter": began}
spent = {"decode": 0.0, "apply": 0.0, "order": 0.0, "table": 0.0}


def note(what):
    moments.setdefault(what, time.time())


def timed(owner, name, into=None, after=None):
    inner = getattr(owner, name)

    def wrapper(*args, **kwargs):
        at = time.time()
        found = inner(*args, **kwargs)
        if into is not None:
            spent[into] += time.time() - at
        if after is not None:
            after(found, *args)
        return found

    setattr(owner, name, wrapper)


import wftop.tui.start as start

timed(start, "engine_started", after=lambda _found, *_args: note("engine started"))


def rows_came(message, _line):
    from wftop.core.engine import protocol

    if isinstance(message, protocol.Rows | protocol.Changed) and message.rows:
        note("first rows")
        moments["last rows"] = time.time()
    if isinstance(message, protocol.Kept):
        note("kept")
    if isinstance(message, protocol.Rows) and message.final:
        note("final rows")


def traced():
    from wftop.core.engine import link
    from wftop.tui import runlist, store
    from wftop.tui.widgets import table

    timed(link.wire, "decode", "decode", rows_came)
    timed(link, "check_hello", after=lambda _found, _line: note("hello"))
    timed(store.Store, "apply", "apply")
    timed(runlist.RunListView, "load", "order")
    timed(table.FittedTable, "show", "table")


def children_cpu():
    # the CPU of this process's children (its engine) so far, from /proc
    import os
    total, tick = 0.0, os.sysconf("SC_CLK_TCK")
    for task in os.listdir(f"/proc/{os.getpid()}/task"):
        try:
            with open(f"/proc/{os.getpid()}/task/{task}/children") as handle:
                kids = handle.read().split()
        except OSError:
            continue
        for kid in kids:
            try:
                with open(f"/proc/{kid}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


async def main(app):
    import asyncio

    async with app.run_test(size=(100, 30)) as pilot:
        note("app running")
        while not (app.store.progress.loaded and app.store.rows):
            await asyncio.sleep(0.005)
        note("every run known")
        known_cpu = {"app": time.process_time(), "engine": children_cpu()}
        drawn = asyncio.get_running_loop().create_future()
        app.screen.call_after_refresh(lambda: drawn.done() or drawn.set_result(None))
        await drawn
        note("list drawn")
        await pilot.pause()
        note("listed")
        cpu = time.process_time()
        said = {"moments": moments, "spent": spent, "cpu": cpu, "runs": len(app.store.rows)}
        said["known_cpu"] = known_cpu
        os.write(1, json.dumps(said).encode() + b"\n")  # the command gates sys.stdout
        sys.stdin.readline()


# The wftop command, as `bench/tui_goals.py` starts it: the app it makes is run by the pilot.
made, root = start.make_app, sys.argv[1]


def make_app(*args, **kwargs):
    app = made(*args, **kwargs)
    note("app made")
    traced()
    app.run = lambda **_: __import__("asyncio").run(main(app))
    return app


start.make_app = make_app
sys.argv = ["wftop", "--no-default-root", "--root", root]
runpy.run_module("wftop.cli", run_name="__main__", alter_sys=True)
"""


def one_start(root: Path, cache: Path) -> dict[str, Any]:
    """One start over ``root`` with the rows cache in ``cache``: its moments in seconds from
    the process's start, what it spent, and its engine's CPU by then."""
    where = Path(tempfile.mkdtemp(prefix="wftop-tui-trace-"))
    config = where / "config.toml"
    config.write_text("bell = false\nnotify = false\n")
    env = {
        **os.environ,
        "PYTHONPATH": str(TOP),
        "WFTOP_CONFIG": str(config),
        "WFTOP_STATE_DIR": str(where / "state"),
        "WFTOP_CACHE_DIR": str(cache),
        "WFTOP_ENGINE_LINGER": "1",
    }
    began = time.time()
    process = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=TOP,
        env=env,
        text=True,
    )
    try:
        assert process.stdout is not None and process.stdin is not None
        said = process.stdout.readline()
        if not said:
            raise SystemExit("tui_trace: the app said nothing")
        found: dict[str, Any] = json.loads(said)
        engine = [pid for pid in family(process.pid) if pid != process.pid]
        engine_cpu = sum(cpu_seconds(pid) for pid in engine)
        process.stdin.write("\n")
        process.stdin.flush()
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    gone_by = time.monotonic() + ENGINE_GONE_S
    while any(alive(pid) for pid in engine) and time.monotonic() < gone_by:
        time.sleep(0.1)
    shutil.rmtree(where, ignore_errors=True)
    moments = sorted(found["moments"].items(), key=lambda item: item[1])
    return {
        "runs": found["runs"],
        "moments_s": {what: round(at - began, 3) for what, at in moments},
        "spent_s": {what: round(seconds, 3) for what, seconds in found["spent"].items()},
        "app_cpu_s": round(found["cpu"], 3),
        "cpu_when_known_s": {what: round(cpu, 3) for what, cpu in found["known_cpu"].items()},
        "engine_cpu_s": round(engine_cpu, 3),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20000)
    parser.add_argument("--no-cache", action="store_true")
    parser.add_argument("--workdir", type=Path, default=default_workdir())
    args = parser.parse_args(argv)
    compile_sources()
    root = corpus_of(args.workdir, args.runs)
    cache = Path(tempfile.mkdtemp(prefix="wftop-tui-trace-cache-"))
    try:
        if not args.no_cache:
            one_start(root, cache)  # the start before, whose engine leaves the rows cache
        found = one_start(root, cache)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    found["cache"] = not args.no_cache
    print(json.dumps(found, indent=2))
    return found


if __name__ == "__main__":
    main()
