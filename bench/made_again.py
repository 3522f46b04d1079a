"""A tree deleted and made again under a `wftop ls --watch --json` view: how long until the
view holds no run, every run again, and a line appended after.

    python bench/made_again.py --root COPY [--part projects|root] [--way mv|copy]
                               [--repeat 3] [--python PYTHON]

``COPY`` is a copy of a generated corpus the bench may change: it moves ``COPY/projects``
(``--part root``: ``COPY`` itself) away, waits until the view holds no run, then puts it
back: ``mv`` renames it back (the same files), ``copy`` copies it back with ``cp -a`` and
deletes what it was copied from, as a restore from a backup does (the same bytes and times,
new inodes). Then it appends a line to a run's journal. The view has a state dir and a cache
dir of its own (its engine is its own; its rows cache is warm after the first start). Per
turn: seconds until no run is held, until every run is back (from the move or the copy's
end), until the appended line shows; and the CPU the view's engine (and its helpers) spent
meanwhile. ``--python``: the interpreter to run wftop with (another checkout's, to compare).
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
import threading
import time
from pathlib import Path
from typing import Any

import orjson
import psutil
from common import TOP, median

MOST = 600.0
"""Seconds any wait gives up after."""
QUIET = 5.0
"""Seconds the watch must hold still before a turn begins."""


class View:
    """A ``ls --watch --json`` view's runs, read from its lines in a thread."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, cwd=TOP, env=env)
        self.runs: dict[str, dict[str, Any]] = {}
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            change = orjson.loads(line)
            with self.lock:
                for row in change.get("added", []) + change.get("changed", []):
                    self.runs[_ident(row)] = row
                for ident in change.get("removed", []):
                    self.runs.pop(ident, None)

    def rows(self) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.runs.values())

    def count(self) -> int:
        with self.lock:
            return len(self.runs)

    def until(self, check: Any) -> float:
        began = time.monotonic()
        while not check():
            if time.monotonic() - began > MOST:
                raise SystemExit("made_again: waited too long")
            time.sleep(0.01)
        return time.monotonic()

    def family(self) -> list[psutil.Process]:
        """The view's engine and its helpers (the view's children)."""
        return psutil.Process(self.process.pid).children(recursive=True)

    def cpu(self) -> float:
        """User and system CPU of the view's engine and helpers, seconds."""
        total = 0.0
        for child in self.family():
            try:
                times = child.cpu_times()
            except psutil.Error:
                continue
            total += times.user + times.system + times.children_user + times.children_system
        return total

    def watches(self) -> int:
        """The inotify watches the engine's helpers hold."""
        count = 0
        for child in self.family():
            try:
                for fd in os.listdir(f"/proc/{child.pid}/fdinfo"):
                    text = Path(f"/proc/{child.pid}/fdinfo/{fd}").read_text()
                    count += sum(line.startswith("inotify") for line in text.splitlines())
            except OSError:
                continue
        return count

    def watch_up(self) -> None:
        """Until the engine's watch is up: its helper's watches have not changed for `QUIET`
        seconds (the live index is built before its watch: it follows the disk)."""
        last, since = -1, time.monotonic()
        while time.monotonic() - since < QUIET or last <= 0:
            time.sleep(0.2)
            now = self.watches()
            if now != last:
                last, since = now, time.monotonic()


def _ident(row: dict[str, Any]) -> str:
    return f"{row['session_id']}/{row['run_id']}@{row['root']}"


def turn(view: View, root: Path, part: str, way: str, runs: int) -> dict[str, float]:
    target = root / part if part else root
    aside = root.parent / f"{root.name}-aside"
    moved = time.monotonic()
    os.rename(target, aside)
    gone = view.until(lambda: view.count() == 0) - moved
    view.watch_up()  # the watch set up again over what is left
    cpu = view.cpu()
    began = time.monotonic()
    if way == "mv":
        os.rename(aside, target)
    else:
        subprocess.run(["cp", "-a", str(aside), str(target)], check=True)
        shutil.rmtree(aside)
    put = time.monotonic()
    back = view.until(lambda: view.count() == runs)
    cpu = view.cpu() - cpu
    journal = next(row["journal"] for row in view.runs.values() if row["journal"])
    label = f"made-again-{time.monotonic_ns()}"
    appended = time.monotonic()
    with open(journal, "ab") as handle:
        line = {"type": "started", "key": label, "agentId": f"a{label}", "label": label}
        handle.write(json.dumps(line).encode() + b"\n")
    shown = view.until(lambda: any(label in row["in_flight"] for row in view.rows()))
    return {
        "none_held_s": round(gone, 2),
        "put_back_s": round(put - began, 2),
        "all_back_s": round(back - put, 2),
        "line_s": round(shown - appended, 3),
        "engine_cpu_s": round(cpu, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--part", choices=["projects", "root"], default="projects")
    parser.add_argument("--way", choices=["mv", "copy"], default="mv")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    where = Path(tempfile.mkdtemp(prefix="wftop-made-again-"))
    env = {**os.environ, "WFTOP_STATE_DIR": str(where / "state"), "WFTOP_ENGINE_LINGER": "1"}
    env["WFTOP_CACHE_DIR"] = str(where / "cache")
    root = args.root.resolve()
    argv = [args.python, "-m", "wftop.cli", "ls", "--watch", "--json", "--no-default-root"]
    part = "" if args.part == "root" else "projects"
    view = View([*argv, "--root", str(root)], env)
    try:
        view.until(lambda: view.count() > 0)
        view.watch_up()
        runs = view.count()
        turns = [turn(view, root, part, args.way, runs) for _ in range(args.repeat)]
    finally:
        aside, target = root.parent / f"{root.name}-aside", root / part if part else root
        if aside.exists() and not target.exists():  # interrupted: the tree put back
            os.rename(aside, target)
        view.process.terminate()
        view.process.wait(timeout=30)
        shutil.rmtree(where, ignore_errors=True)
    result: dict[str, Any] = {"runs": runs, "part": args.part, "way": args.way}
    for key in turns[0]:
        values = [one[key] for one in turns]
        result[key] = {"median": round(median(values), 3), "turns": values}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
