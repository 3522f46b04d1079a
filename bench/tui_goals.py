"""The TUI's speed goals of issue 29, each beside the floor measured in the same run.

    python3 bench/tui_goals.py [--sizes 5000 20000] [--repeat 3] [--json]
    python3 bench/tui_goals.py --only-growing [--grow-seconds 10]

Each start is a fresh process that runs the ``wftop`` command as a person does
(``python -m wftop.cli --no-default-root --root CORPUS``, a config file of its own without
the bell and notifications: the command line, the config, the roots, then the app its
engine was started for) and runs the app it made headless at 100×30 under the pilot where
the command runs it on a terminal, with a state dir of its own, so no engine runs when it
starts and the one it starts is its own; "TUI and engine" counts that engine's processes
(the app's descendants) wherever the app runs it. Per corpus size
(`bench/make_corpus.py --thin-agents`):

* every run listed, in seconds from the process's start (interpreter and imports included),
  with no cache at all (≤ 3× the floor) and when it has started once before (its rows
  cache: ≤ 2×), in turns with the floor (`bench/floor.py`: walk and orjson-parse every
  journal line), medians of ``--repeat``;
* at the largest size, once every run is listed: the TUI's and the engine's resident
  memory (< 150 MB, < 300 MB together), the keys (`KEYS`, ``/`` and typing a filter
  included: the CPU time of the app's process, every thread, from sending the key until
  the app is idle with the screen refreshed, less the same for a key bound to nothing: the
  pilot's waits for idleness poll, so their wall time says little on a shared machine),
  and both processes' CPU over ``--idle-seconds`` of quiet (< 1% of a core). The app waits
  for the word to go on (and to end) in a thread: its loop goes on reading its engine and
  running its timers, as it does for a person (a loop blocked on its stdin left the engine
  waiting for it to read what followed the first rows, so the engine's follow began, with
  its watch over every run, in the keys or the quiet measured after them).

Keys while a 100,000-line journal grows at 500 lines/s: a copy of the real ``killed`` tree,
its journal grown first, ``j`` and ``k`` on the runs screen while a writer appends. A key's
figure is the process's CPU from posting it until its action has run and the screen has
been refreshed after it: the key's effect on screen, with what the app spends meanwhile on
the rows that changed (``--grow-method idle``: as before, until the pilot finds the app
idle, less a key bound to nothing; with a change set every 33 ms that takes in 1 to 46 of
them, whatever the key did).
Prints one JSON object; `rows` makes of it the rows of the goals table.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from common import TOP, compile_sources, default_workdir, measure
from goal_table import Goal, settle
from idle_cpu import corpus_of, cpu_seconds, family, rss_mb

KEYS = [
    ("j", 40),
    ("k", 40),
    ("pagedown", 10),
    ("s", 8),
    ("o", 4),
    ("/ then typing", 10),
    ("enter (open a run)", 10),
    ("escape (back)", 10),
]
"""Keys pressed on the full list at the largest size, and how many times each."""
ENGINE_GONE_S = 300.0
"""Seconds an ended start's engine is given to finish its live index and go."""

CHILD = r"""
import sys

root, keys, grow, pressed = sys.argv[1], sys.argv[2] == "keys", sys.argv[3], sys.argv[4]


def listed(app):
    # the engine-fed app holds a store; the app before it held its runs itself
    store = getattr(app, "store", None)
    if store is not None:
        return store.progress.loaded, len(store.rows)
    return app.loaded, len(app.runs)


def shown_by(app):
    # How long a key takes to show: the process's CPU (every thread) from posting it
    # until its action (the table's cursor moved) has run and the screen has been
    # refreshed after it; what the app does meanwhile (change sets applied) counts in it.
    import asyncio, time

    table, waiting = app.focused, []
    for action in ("action_cursor_down", "action_cursor_up"):
        def acted(real=getattr(table, action)):
            real()
            for done in waiting:
                app.screen.call_after_refresh(lambda done=done: done.done() or done.set_result(0))
            waiting.clear()
        setattr(table, action, acted)

    async def shown(key):
        began = time.process_time()
        done = asyncio.get_running_loop().create_future()
        waiting.append(done)
        app.simulate_key(key)
        await asyncio.wait_for(done, 30)
        return (time.process_time() - began) * 1000

    return shown


def say(**fields):
    import json, os

    os.write(1, json.dumps(fields).encode() + b"\n")  # the command gates sys.stdout


async def drive(app):
    import asyncio, json, statistics, time

    async with app.run_test(size=(100, 30)) as pilot:
        while True:
            loaded, count = listed(app)
            if loaded and count:
                break
            await asyncio.sleep(0.005)
        await pilot.pause()
        say(listed_at=time.time(), runs=count)
        # go (or end), read off the loop: the app goes on drawing and reading its engine
        await asyncio.to_thread(sys.stdin.readline)
        if not keys:
            return

        async def press(*names):
            # the process's CPU (every thread) from sending the key until the app is idle
            # with its screen refreshed: the pilot's own waits are in the key bound to nothing
            began = time.process_time()
            await pilot.press(*names)
            return (time.process_time() - began) * 1000

        noop = statistics.median([await press("f12") for _ in range(20)])
        found = {}
        if grow == "-":
            for name, times in json.loads(pressed):
                each = found.setdefault(name, [])
                for _ in range(times):
                    if name == "/ then typing":
                        await pilot.press("home")
                        each.append(await press("slash") - noop)
                        for letter in "p00":
                            each.append(await press(letter) - noop)
                        await pilot.press("escape", "escape")
                    elif name == "enter (open a run)":
                        each.append(await press("enter") - noop)
                        await pilot.pause()
                        found.setdefault("escape (back)", []).append(
                            await press("escape") - noop
                        )
                    elif name != "escape (back)":
                        each.append(await press(name) - noop)
        else:
            seconds, method = grow.split(":")
            each = found["j / k while the journal grows"] = []
            deadline = time.monotonic() + float(seconds)
            down = True
            shown = shown_by(app)
            if method == "shown":
                noop = 0.0  # no pilot's wait to take off: nothing is polled
            while time.monotonic() < deadline:
                key = "j" if down else "k"
                each.append(await (shown(key) if method == "shown" else press(key)) - noop)
                down = not down
                await asyncio.sleep(0.04)
        say(noop_ms=noop, keys=found)
        await asyncio.to_thread(sys.stdin.readline)  # while the idle CPU is measured


# The user's path: `python -m wftop.cli` (what the `wftop` script runs) reads its command line
# and config file, picks the roots and makes the app (its engine started first); the app it
# made is then run headless by the pilot instead of on a terminal.
import runpy

import wftop.tui.start as start

made = start.make_app


def make_app(*args, **kwargs):
    app = made(*args, **kwargs)
    app.run = lambda **_: __import__("asyncio").run(drive(app))
    return app


start.make_app = make_app
sys.argv = ["wftop", "--no-default-root", "--root", root]
runpy.run_module("wftop.cli", run_name="__main__", alter_sys=True)
"""


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


class Start:
    """One start of the app in a process of its own, with its own state dir."""

    def __init__(self, root: Path, cache: Path, *, keys: str = "", grow: str = "-") -> None:
        self.where = Path(tempfile.mkdtemp(prefix="wftop-tui-goals-"))
        config = self.where / "config.toml"
        config.write_text("bell = false\nnotify = false\n")
        env = {
            **os.environ,
            "PYTHONPATH": str(TOP),
            "WFTOP_CONFIG": str(config),
            "WFTOP_STATE_DIR": str(self.where / "state"),
            "WFTOP_CACHE_DIR": str(cache),
            "WFTOP_ENGINE_LINGER": "1",
        }
        argv = [sys.executable, "-c", CHILD, str(root), "keys" if keys else "-", grow, keys]
        self.began = time.time()
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=(self.where / "err").open("wb"),
            cwd=TOP,
            env=env,
            text=True,
        )

    def said(self, timeout: float = 600) -> dict[str, Any]:
        """The next JSON line the app printed."""
        assert self.process.stdout is not None
        box: list[str] = []
        reader = threading.Thread(target=lambda: box.append(self.process.stdout.readline()))
        reader.start()
        reader.join(timeout)
        if not box or not box[0]:
            err = (self.where / "err").read_text(errors="replace").strip()[-800:]
            self.end()
            raise SystemExit(f"tui_goals: the app said nothing: {err}")
        found: dict[str, Any] = json.loads(box[0])
        return found

    def listed(self) -> dict[str, Any]:
        found = self.said()
        found["listed_s"] = found.pop("listed_at") - self.began
        return found

    def memory(self) -> dict[str, float]:
        pid = self.process.pid
        engine = [member for member in family(pid) if member != pid]
        return {
            "tui_rss_mb": round(rss_mb(pid), 1),
            "engine_rss_mb": round(sum(rss_mb(member) for member in engine), 1),
            "engine_processes": len(engine),
        }

    def go(self) -> None:
        """Let the app begin its keys."""
        assert self.process.stdin is not None
        self.process.stdin.write("go\n")
        self.process.stdin.flush()

    def end(self) -> None:
        """End the app, then wait for the engine it started to be gone: an engine finishes
        its live index (and writes the rows cache) after its last view left, and one still
        at it would share the CPUs with the next start measured."""
        engine = []
        if self.process.poll() is None:
            engine = [member for member in family(self.process.pid) if member != self.process.pid]
            assert self.process.stdin is not None
            try:
                self.process.stdin.write("\n")
                self.process.stdin.flush()
                self.process.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        gone_by = time.monotonic() + ENGINE_GONE_S
        while any(alive(pid) for pid in engine) and time.monotonic() < gone_by:
            time.sleep(0.1)
        shutil.rmtree(self.where, ignore_errors=True)


def alive(pid: int) -> bool:
    """The process is still there (not a zombie)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"


def floor_s(root: Path) -> float:
    return measure([sys.executable, str(Path(__file__).parent / "floor.py"), str(root)]).seconds


def starts(root: Path, repeat: int) -> dict[str, Any]:
    """Every run listed with no cache and with the cache of a start before, in turns with
    the floor."""
    floors: list[float] = []
    cold: list[float] = []
    warm: list[float] = []
    scratch = Path(tempfile.mkdtemp(prefix="wftop-tui-cache-"))
    try:
        floor_s(root)  # the page cache warm, as it is for the other commands
        for turn in range(repeat + 1):
            floors.append(floor_s(root))
            cache = scratch / f"c{turn}"
            for into in (cold, warm):
                start = Start(root, cache)
                took = start.listed()["listed_s"]
                start.end()
                if turn:  # the first turn warms the page cache and the imports
                    into.append(took)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    floor = statistics.median(floors[1:])
    return {
        "floor_s": round(floor, 3),
        "no_cache_s": round(statistics.median(cold), 3),
        "cached_s": round(statistics.median(warm), 3),
        "no_cache_all_s": [round(value, 3) for value in cold],
        "cached_all_s": [round(value, 3) for value in warm],
    }


def keys_and_idle(root: Path, idle_seconds: float) -> dict[str, Any]:
    """At the largest size: memory once listed, the keys, then the CPU of quiet."""
    scratch = Path(tempfile.mkdtemp(prefix="wftop-tui-cache-"))
    start = Start(root, scratch, keys=json.dumps(KEYS))
    try:
        found = start.listed()
        found["settled_after_s"] = settle(start.process.pid)  # the engine's live index built
        found.update(start.memory())
        start.go()
        keys = start.said()
        found["noop_ms"] = round(keys["noop_ms"], 1)
        found["keys"] = summary(keys["keys"])
        pid = start.process.pid
        before, at = cpu_seconds(pid), time.monotonic()
        time.sleep(idle_seconds)
        used, elapsed = cpu_seconds(pid) - before, time.monotonic() - at
        found["idle_seconds"] = round(elapsed, 1)
        found["idle_cpu_percent"] = round(100 * used / elapsed, 2)
        found["after_idle"] = start.memory()
    finally:
        start.end()
        shutil.rmtree(scratch, ignore_errors=True)
    return found


def summary(keys: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    every = [value for values in keys.values() for value in values]
    found = {
        name: {
            "presses": len(values),
            "p50_ms": round(statistics.median(values), 1),
            "p99_ms": round(percentile(values, 0.99), 1),
            "max_ms": round(max(values), 1),
        }
        for name, values in {**keys, "every key": every}.items()
        if values
    }
    return found


def grow_journal(journal: Path, lines: int) -> None:
    chunks = []
    for number in range(lines // 2):
        key, agent = f"v2:g{number}", f"ag{number:08d}"
        chunks.append(
            json.dumps({"type": "started", "key": key, "agentId": agent, "label": f"g {number}"})
        )
        chunks.append(json.dumps({"type": "result", "key": key, "agentId": agent, "result": 1}))
    first, rest = journal.read_bytes().split(b"\n", 1)
    journal.write_bytes(first + b"\n" + ("\n".join(chunks) + "\n").encode() + rest)


def growing(lines: int, rate: float, seconds: float, method: str = "shown") -> dict[str, Any]:
    """Keys while one journal of ``lines`` lines grows at ``rate`` lines a second, each
    measured until it shows (``shown``) or, as before, until the pilot finds the app idle
    (``idle``)."""
    scratch = Path(tempfile.mkdtemp(prefix="wftop-tui-grow-"))
    root = scratch / "killed"
    shutil.copytree(TOP / "tests" / "data" / "corpus" / "killed", root)
    (journal,) = root.glob("projects/*/*/subagents/workflows/wf_*/journal.jsonl")
    grow_journal(journal, lines)
    start = Start(root, scratch / "cache", keys="[]", grow=f"{seconds}:{method}")
    stop = threading.Event()
    written = [0]

    def write() -> None:
        began = time.monotonic()
        with journal.open("ab", buffering=0) as handle:
            while not stop.is_set():
                number = written[0]
                line = {"type": "started", "key": f"live-{number}", "agentId": f"l{number}"}
                handle.write(json.dumps(line).encode() + b"\n")
                written[0] += 1
                time.sleep(max(0.0, began + written[0] / rate - time.monotonic()))

    try:
        found = start.listed()
        settle(start.process.pid)  # the engine follows the disk
        writer = threading.Thread(target=write, daemon=True)
        start.go()
        writer.start()
        keys = start.said(timeout=seconds + 120)
        stop.set()
        writer.join()
        found["noop_ms"] = round(keys["noop_ms"], 1)
        found["keys"] = summary(keys["keys"])
        found["lines_written"] = written[0]
        found["method"] = method
        found["journal_lines"] = lines
    finally:
        stop.set()
        start.end()
        shutil.rmtree(scratch, ignore_errors=True)
    return found


def run(
    sizes: list[int],
    repeat: int,
    workdir: Path,
    idle_seconds: float,
    grow_seconds: float,
) -> dict[str, Any]:
    compile_sources()
    found: dict[str, Any] = {"sizes": {}}
    for runs in sizes:
        found["sizes"][str(runs)] = starts(corpus_of(workdir, runs), repeat)
    found["largest"] = keys_and_idle(corpus_of(workdir, max(sizes)), idle_seconds)
    found["largest"]["corpus_runs"] = max(sizes)
    found["growing"] = growing(100_000, 500.0, grow_seconds)
    return found


def rows(found: dict[str, Any]) -> list[Goal]:
    """The rows of `tui_goals.run`'s numbers."""
    goals: list[Goal] = []
    for runs, start in found["sizes"].items():
        floor = start["floor_s"]
        for what, key, most in (
            ("no cache at all", "no_cache_s", 3),
            ("its rows cache (started once before)", "cached_s", 2),
        ):
            times = start[key] / floor
            goals.append(
                Goal(
                    f"TUI, every run listed, {what}, at {int(runs):,} runs",
                    f"≤ {most}× the floor",
                    f"{start[key]:.2f} s ({times:.2f}×)",
                    f"{floor:.2f} s",
                    times <= most,
                )
            )
    largest = found["largest"]
    runs = largest["corpus_runs"]
    late = largest["after_idle"]
    tui = max(largest["tui_rss_mb"], late["tui_rss_mb"])
    both = max(
        largest["tui_rss_mb"] + largest["engine_rss_mb"], late["tui_rss_mb"] + late["engine_rss_mb"]
    )
    keys = largest["keys"]
    every = keys["every key"]
    slowest = max((name for name in keys if name != "every key"), key=lambda n: keys[n]["p99_ms"])
    typing = keys.get("/ then typing", {"p99_ms": float("nan")})
    grown = found["growing"]
    grow_keys = grown["keys"]["every key"]
    goals += [
        Goal(f"the TUI's process at {runs:,} runs", "< 150 MB", f"{tui:.0f} MB", "—", tui < 150),
        Goal(
            f"the TUI and its engine at {runs:,} runs",
            "< 300 MB",
            f"{both:.0f} MB (its engine or helpers "
            f"{max(largest['engine_rss_mb'], late['engine_rss_mb']):.0f} MB in "
            f"{largest['engine_processes']} process(es))",
            "—",
            both < 300,
        ),
        Goal(
            f"keys at {runs:,} rows, `/` and typing included",
            "p99 < 50 ms",
            f"p99 {every['p99_ms']:.1f} ms CPU over {every['presses']} presses (p50 "
            f"{every['p50_ms']:.1f}; slowest {slowest} p99 {keys[slowest]['p99_ms']:.1f} ms; "
            f"`/` and typing p99 {typing['p99_ms']:.1f} ms)",
            f"a key bound to nothing: {largest['noop_ms']:.1f} ms CPU (taken off)",
            every["p99_ms"] < 50,
        ),
        Goal(
            f"keys while a {grown['journal_lines']:,}-line journal grows at 500 lines/s",
            "p99 < 50 ms",
            f"p99 {grow_keys['p99_ms']:.1f} ms CPU over {grow_keys['presses']} presses "
            f"(p50 {grow_keys['p50_ms']:.1f} ms; {grown['lines_written']:,} lines written)",
            "each key until its action ran and the screen was refreshed"
            if grown.get("method", "idle") == "shown"
            else f"a key bound to nothing meanwhile: {grown['noop_ms']:.1f} ms CPU (taken off)",
            grow_keys["p99_ms"] < 50,
        ),
        Goal(
            f"idle TUI and engine at {runs:,} runs",
            "< 1% of a core",
            f"{largest['idle_cpu_percent']:.2f}% over {largest['idle_seconds']:.0f} s, from "
            f"{largest['listed_s'] + largest['settled_after_s']:.0f} s after its start",
            "—",
            largest["idle_cpu_percent"] < 1,
        ),
    ]
    return goals


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 20000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--idle-seconds", type=float, default=20.0)
    parser.add_argument("--grow-seconds", type=float, default=10.0)
    parser.add_argument("--workdir", type=Path, default=default_workdir())
    parser.add_argument(
        "--grow-method",
        choices=["shown", "idle"],
        default="shown",
        help="a key while the journal grows: until it shows (the goal), or until the app "
        "is idle (the measure before)",
    )
    parser.add_argument(
        "--only-growing",
        action="store_true",
        help="only the keys while a journal grows (no corpus needed)",
    )
    args = parser.parse_args(argv)
    if args.only_growing:
        compile_sources()
        grown = {"growing": growing(100_000, 500.0, args.grow_seconds, args.grow_method)}
        print(json.dumps(grown, indent=2))
        return grown
    result = run(args.sizes, args.repeat, args.workdir, args.idle_seconds, args.grow_seconds)
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
