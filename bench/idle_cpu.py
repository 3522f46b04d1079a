"""Steady-state cost: CPU used by an idle ``wftop ls --watch --json`` following N runs.

    python bench/idle_cpu.py [--runs 5000] [--seconds 60]

Starts the watcher on the generated corpus, waits for the cold index and for the
first stat sweep to finish, then reads the user+system CPU time of the process and
its watch helper (all threads, from ``/proc/<pid>/stat``) over ``--seconds`` of
quiet, which includes the periodic sweeps and owner checks. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from common import TOP, WFTOP, default_workdir, ensure_corpus
from make_corpus import Plan

TICKS = os.sysconf("SC_CLK_TCK")


def family(pid: int) -> list[int]:
    """The process and its descendants (wftop runs its file watch in a helper process)."""
    found = [pid]
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in children:
            found += family(int(child))
    return found


def cpu_seconds(pid: int) -> float:
    """User + system CPU of the process and its descendants, all threads, and of the
    descendants gone and waited for (a forked worker's CPU does not leave the sum when it
    ends: an engine that forks workers after its first rows looked quiet at their end)."""
    total = 0
    for member in family(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(field) for field in fields[11:15])
    return total / TICKS


def rss_of_family(pid: int) -> float:
    return sum(rss_mb(member) for member in family(pid))


def rss_mb(pid: int) -> float:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return 0.0
    for line in lines:
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def run(root: Path, seconds: float, settle: float) -> dict[str, Any]:
    argv = [*WFTOP, "ls", "--watch", "--json", "--no-default-root", "--root", str(root)]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=TOP)
    lines: list[float] = []
    first = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for _raw in process.stdout:
            lines.append(time.monotonic())
            first.set()

    threading.Thread(target=read, daemon=True).start()
    started = time.monotonic()
    try:
        if not first.wait(timeout=300):
            raise SystemExit("idle_cpu: no cold index within 300 s")
        cold = time.monotonic() - started
        time.sleep(settle)
        before, at = cpu_seconds(process.pid), time.monotonic()
        sets_before = len(lines)
        time.sleep(seconds)
        used, elapsed = cpu_seconds(process.pid) - before, time.monotonic() - at
        memory = rss_of_family(process.pid)
        helpers = len(family(process.pid)) - 1
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return {
        "seconds": round(elapsed, 1),
        "cpu_seconds": round(used, 3),
        "cpu_percent_of_one_core": round(100 * used / elapsed, 2),
        "change_sets_while_idle": len(lines) - sets_before,
        "rss_mb": round(memory, 1),
        "helper_processes": helpers,
        "first_line_after_s": round(cold, 2),
        "exit_code": code,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--settle", type=float, default=10.0)
    parser.add_argument("--workdir", type=Path, default=default_workdir())
    args = parser.parse_args(argv)
    root = corpus_of(args.workdir, args.runs)
    return report(run(root, args.seconds, args.settle), args.runs)


def corpus_of(workdir: Path, runs: int) -> Path:
    """The generated corpus of ``runs`` runs (thin agents), made once under ``workdir``."""
    return ensure_corpus(workdir / f"corpus-{runs}", Plan(runs=runs, thin_agents=True))


def report(result: dict[str, Any], runs: int) -> dict[str, Any]:
    """The result with its corpus size, printed as JSON."""
    result["corpus_runs"] = runs
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
