"""The TUI's own work in a start with no cache, apart from its engine's: a captured stream
replayed into the app.

    python3 bench/tui_replay.py [--runs 5000] [--pace 0.025] [--each] [--repeat 3]

First the stream of an engine's start with no cache over the corpus (`bench/make_corpus.py
--thin-agents`) is captured once: ``python -m wftop.core.engine --stdio`` with a state and
cache dir of its own, its lines kept up to its final rows (``--stream``, or
``corpus-N-stream-no-cache.jsonl`` beside the corpus). Then each repeat starts a fresh
process that makes the app as the command does (the collector paused before its imports,
`wftop.tui.start`) with a connector that hands it those lines (the hello once the app
runs, a rows batch every ``--pace`` seconds, about the engine's pace on 2 CPUs), runs it
headless at 100×30 and reports the process's CPU at each moment: the app made, running,
the first rows, the final rows read, every run known, the list drawn and the app idle
("listed", as `bench/tui_goals.py` counts it), with the store's applications. No engine
runs beside it, so the view's CPU is its own; the stream is the same for every start, so
a change of the view is seen apart from the engine's.

``--each``: a batch is handed over only once the one before is applied (each applied in an
application of its own, whatever the clock): for instruction counts (``valgrind
--tool=callgrind``, where the frames' timers would otherwise follow a slowed clock).
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import TOP, compile_sources, default_workdir
from idle_cpu import corpus_of

STREAM = "stream-no-cache.jsonl"
"""The captured stream's file, beside the corpus it was captured over."""
CAPTURE_LIMIT_S = 600.0
FINAL = b'{"type":"rows","seq":0,"final":true'
"""How the engine's final rows of a first start begin (`wftop.core.engine.lines`)."""

CHILD = r"""
import sys, time

from wftop.tui.collector import StartPause

pause = StartPause()  # as `wftop.tui.start.make_app` pauses it, before the app's imports
import asyncio, json, os

stream, pace, each = sys.argv[1], float(sys.argv[2]), sys.argv[3] == "each"
lines = open(stream, "rb").read().splitlines(keepends=True)
moments = {}


def note(what):
    moments.setdefault(what, time.process_time())


class Replayed:
    shared = False

    def __init__(self, app):
        self.app, self.at = app, 0

    async def readline(self):
        while "running" not in moments:
            await asyncio.sleep(0.01)
        if self.at == len(lines):
            await asyncio.sleep(3600)
        line, self.at = lines[self.at], self.at + 1
        if line.startswith(b'{"type":"rows"'):
            await asyncio.sleep(pace)
            store = self.app.store
            while each and (store._due or store._pending):  # the batch before applied
                await asyncio.sleep(0.002)
            note("first rows")
            if b'"final":true' in line:
                note("final rows")
        return line

    async def ended(self, pid):
        return "the replay ended"

    async def close(self):
        pass


class Connector:
    app = None

    async def connect(self):
        return Replayed(self.app)


from wftop.core.config import Config
from wftop.tui.app import WftopApp

connector = Connector()
roots = json.loads(lines[0])["roots"]
config = Config(bell=False, notify=False)
app = connector.app = WftopApp(roots, config=config, connector=connector, pause=pause)
note("app made")


async def refreshed(screen):
    done = asyncio.get_running_loop().create_future()
    screen.call_after_refresh(lambda: done.done() or done.set_result(None))
    await done


async def main():
    async with app.run_test(size=(100, 30)) as pilot:
        note("running")
        while not (app.store.progress.loaded and app.store.rows):
            await asyncio.sleep(0.005)
        note("every run known")
        await refreshed(app.screen)
        note("list drawn")
        await pilot.pause()
        note("listed")
        said = {"cpu_s": moments, "runs": len(app.store.rows), "applied": app.store.applied}
        os.write(1, json.dumps(said).encode() + b"\n")
        os._exit(0)


asyncio.run(main())
"""


def captured(root: Path, stream: Path | None = None) -> Path:
    """The stream of an engine's start with no cache over ``root``, captured once (into
    ``stream``, or beside the corpus)."""
    stream = stream or root.parent / f"{root.name}-{STREAM}"
    if stream.exists():
        return stream
    where = Path(tempfile.mkdtemp(prefix="wftop-tui-replay-"))
    env = {
        **os.environ,
        "PYTHONPATH": str(TOP),
        "WFTOP_STATE_DIR": str(where / "state"),
        "WFTOP_CACHE_DIR": str(where / "cache"),
    }
    argv = [sys.executable, "-m", "wftop.core.engine", "--stdio", "--root", str(root)]
    engine = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    assert engine.stdout is not None and engine.stdin is not None
    kept, left, deadline = [], b"", time.monotonic() + CAPTURE_LIMIT_S
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([engine.stdout], [], [], 1.0)
            if not ready:
                continue
            chunk = os.read(engine.stdout.fileno(), 1 << 20)
            if not chunk:
                break
            *lines, left = (left + chunk).split(b"\n")
            kept += lines
            if any(
                line.startswith(b'{"type":"rows"') and b'"final":true' in line for line in lines
            ):
                break
        else:
            raise SystemExit("tui_replay: the engine's rows did not end")
    finally:
        engine.stdin.close()
        engine.wait(timeout=60)
        shutil.rmtree(where, ignore_errors=True)
    stream.write_bytes(b"".join(line + b"\n" for line in kept))
    return stream


def replayed(stream: Path, pace: float, each: bool) -> dict[str, Any]:
    """One start of the app over the replayed stream: its CPU at each moment."""
    where = Path(tempfile.mkdtemp(prefix="wftop-tui-replay-"))
    env = {**os.environ, "PYTHONPATH": str(TOP), "WFTOP_STATE_DIR": str(where / "state")}
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(stream), repr(pace), "each" if each else "-"],
            capture_output=True,
            text=True,
            check=True,
            env=env,
            cwd=TOP,
        )
    finally:
        shutil.rmtree(where, ignore_errors=True)
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    found["cpu_s"] = {what: round(cpu, 3) for what, cpu in found["cpu_s"].items()}
    return found


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--pace", type=float, default=0.025)
    parser.add_argument("--each", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=default_workdir())
    parser.add_argument("--stream", type=Path, help="the captured stream (made if absent)")
    args = parser.parse_args(argv)
    compile_sources()
    stream = captured(corpus_of(args.workdir, args.runs), args.stream)
    starts = [replayed(stream, args.pace, args.each) for _ in range(args.repeat)]
    reading = [start["cpu_s"]["final rows"] - start["cpu_s"]["running"] for start in starts]
    found = {
        "runs": starts[0]["runs"],
        "first_read_cpu_s": round(statistics.median(reading), 3),
        "listed_cpu_s": round(statistics.median(start["cpu_s"]["listed"] for start in starts), 3),
        "starts": starts,
    }
    print(json.dumps(found, indent=2))
    return found


if __name__ == "__main__":
    main()
