"""How long an engine's watch helper outlives its engine, and the inotify watches it holds
meanwhile, over the generated corpus.

    python bench/helper_ends.py [--runs 20000] [--repeat 3] [--workdir DIR]

Each turn starts a ``wftop ls --watch --json`` view with a state dir of its own (its engine
is its own, gone a second after its last view), waits until the engine's watch helper is
setting its watches up (over 1,000 of them), then ends it one of two ways: the view is
interrupted (its engine lingers a second, then goes), or the engine is killed with SIGKILL.
From then on it reads, every 50 ms, which processes of that state dir are left and the
watches they hold (``/proc/<pid>/fdinfo``), until none is. Each watch is one of the user's
``fs.inotify.max_user_watches``: a helper left behind holds them for nothing. Prints one JSON
object: per way, the seconds until the last process went and the most watches held after
the end (median and every turn).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from common import TOP, WFTOP, compile_sources, default_workdir, median
from idle_cpu import corpus_of

POLL = 0.05
MOST = 120.0
"""Seconds a turn waits for the helper to begin, and for everything to go after the end."""


def of_state(state: Path) -> dict[int, tuple[str, int]]:
    """The processes started for ``state`` (their environment names it): pid → (engine or
    helper, inotify watches held)."""
    mark = f"WFTOP_STATE_DIR={state}".encode()
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if mark not in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
                continue
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
            watches = 0
            for fd in os.listdir(f"/proc/{pid}/fdinfo"):
                text = Path(f"/proc/{pid}/fdinfo/{fd}").read_text()
                watches += sum(line.startswith("inotify") for line in text.splitlines())
        except OSError:
            continue
        if b"wftop.core.engine" in command:
            found[int(pid)] = ("engine", watches)
        elif b"watcher" in command:
            found[int(pid)] = ("helper", watches)
    return found


def turn(root: Path, way: str) -> dict[str, Any]:
    where = Path(tempfile.mkdtemp(prefix="wftop-helper-ends-"))
    state = where / "state"
    state.mkdir()
    env = {**os.environ, "WFTOP_STATE_DIR": str(state), "WFTOP_ENGINE_LINGER": "1"}
    argv = [*WFTOP, "ls", "--watch", "--json", "--no-default-root", "--root", str(root)]
    view = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=TOP, env=env
    )
    try:
        began = time.monotonic()
        while not any(kind == "helper" and n > 1000 for kind, n in of_state(state).values()):
            if time.monotonic() - began > MOST:
                raise SystemExit("helper_ends: no watch helper began")
            time.sleep(POLL / 5)
        ended = time.monotonic()
        if way == "view interrupted":
            view.send_signal(signal.SIGINT)
        else:
            for pid, (kind, _n) in of_state(state).items():
                if kind == "engine":
                    os.kill(pid, signal.SIGKILL)
        most, left = 0, of_state(state)
        while left and time.monotonic() - ended < MOST:
            most = max(most, sum(n for _kind, n in left.values()))
            time.sleep(POLL)
            left = of_state(state)
        return {"gone_after_s": round(time.monotonic() - ended, 2), "most_watches_after": most}
    finally:
        view.kill()
        view.wait()
        for pid in of_state(state):
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(where, ignore_errors=True)


def run(runs: int, repeat: int, workdir: Path) -> dict[str, Any]:
    compile_sources()
    root = corpus_of(workdir, runs)
    found: dict[str, Any] = {"runs": runs}
    ways = ("view interrupted", "engine killed")
    turns: dict[str, list[dict[str, Any]]] = {way: [] for way in ways}
    for _ in range(repeat):
        for way in ways:  # in turns, under the same conditions
            turns[way].append(turn(root, way))
    for way in ways:
        found[way] = {
            "median_gone_after_s": median([one["gone_after_s"] for one in turns[way]]),
            "turns": turns[way],
        }
    return found


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=default_workdir())
    args = parser.parse_args(argv)
    result = run(args.runs, args.repeat, args.workdir)
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
