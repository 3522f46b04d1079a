"""One engine per view, or one shared by every view: what each costs a second view.

    python3 bench/engine_share.py ROOT [--views 2] [--settle 20]

Views are ``wftop ls --watch --json`` processes over ROOT (as the TUI will be: a process
holding every row). For each way (``pipe``: each view starts an engine of its own over
stdio; ``socket``: views share one), with the rows cache warm from a first run: the seconds
from starting each view to its first line (every run listed), then, once the engines have
built their live index and gone quiet, the resident memory of the views and the engines,
and how many engines run. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

TOP = Path(__file__).resolve().parent.parent


def view(root: Path, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], float]:
    """A started view and the seconds it took to print every run."""
    argv = [sys.executable, "-m", "wftop.cli", "ls", "--watch", "--json"]
    argv += ["--no-default-root", "--root", str(root)]
    began = time.perf_counter()
    process = subprocess.Popen(argv, cwd=TOP, env=env, stdout=subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.readline()
    return process, time.perf_counter() - began


def engines(state: Path, views: list[subprocess.Popen[bytes]]) -> list[psutil.Process]:
    """The engine processes the views use: their children (pipes) or the shared one."""
    found = {}
    for each in views:
        for child in psutil.Process(each.pid).children(recursive=False):
            if "wftop.core.engine" in " ".join(child.cmdline()):
                found[child.pid] = child
    for process in psutil.process_iter(["cmdline"]):
        line = " ".join(process.info["cmdline"] or [])
        if "wftop.core.engine" in line and str(state) in line:
            found[process.pid] = process
    return list(found.values())


def rss_tree(process: psutil.Process) -> int:
    """Resident bytes of a process and its children (an engine's watch helper)."""
    total = process.memory_info().rss
    for child in process.children(recursive=True):
        total += child.memory_info().rss
    return total


def quiet(processes: list[psutil.Process], settle: float) -> None:
    """Wait until the processes use under 5% of a core over a second (their live index is
    built), at most ``settle`` seconds."""
    deadline = time.monotonic() + settle
    while time.monotonic() < deadline:
        before = sum(sum(p.cpu_times()[:2]) for p in processes)
        time.sleep(1.0)
        if sum(sum(p.cpu_times()[:2]) for p in processes) - before < 0.05:
            return


def measure(root: Path, way: str, views: int, settle: float) -> dict[str, Any]:
    state = Path(tempfile.mkdtemp(prefix="wfb-state-"))
    env = {**os.environ, "WFTOP_STATE_DIR": str(state), "WFTOP_ENGINE_LINGER": "2"}
    if way == "pipe":
        env["WFTOP_ENGINE"] = "pipe"
    else:
        env.pop("WFTOP_ENGINE", None)
    started: list[subprocess.Popen[bytes]] = []
    seconds = []
    try:
        for _ in range(views):
            process, took = view(root, env)
            started.append(process)
            seconds.append(round(took, 3))
            quiet(engines(state, started), settle)
        running = engines(state, started)
        return {
            "way": way,
            "first_line_s": seconds,
            "engines": len(running),
            "views_rss_mb": round(
                sum(psutil.Process(p.pid).memory_info().rss for p in started) / 2**20
            ),
            "engines_rss_mb": round(sum(rss_tree(e) for e in running) / 2**20),
        }
    finally:
        for process in started:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("root", type=Path)
    parser.add_argument("--views", type=int, default=2)
    parser.add_argument("--settle", type=float, default=30.0)
    args = parser.parse_args()
    cache = Path(tempfile.mkdtemp(prefix="wfb-cache-"))
    os.environ["WFTOP_CACHE_DIR"] = str(cache)
    # a first listing fills the rows cache, as a machine that ran wftop before has it
    subprocess.run(
        [sys.executable, "-m", "wftop.cli", "ls", "--json", "--no-default-root", "--root",
         str(args.root)],
        cwd=TOP, stdout=subprocess.DEVNULL, check=True,
    )  # fmt: skip
    results = [measure(args.root, way, args.views, args.settle) for way in ("pipe", "socket")]
    print(json.dumps({"root": str(args.root), "results": results}, indent=2))


if __name__ == "__main__":
    main()
