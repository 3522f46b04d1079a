"""``wftop ls --watch`` CPU per appended line, as the run it joins grows: 100 to 50,000 calls.

    python bench/watch_cost.py [--sizes 100 1000 10000 50000] [--rate 200] [--seconds 8]
                               [--repeat 3]

For each size, a private copy of the real ``killed`` tree whose run is grown to that many
calls (a ``started`` and a ``result`` line each, and an agent transcript each, as the CLI
leaves them) and whose session is owned by a live process (a ``sleep`` this bench starts
and registers under ``sessions/``): a running run, the costly kind, whose transcripts tell
running from stalled. ``wftop ls --watch --json`` follows it. Then, in turns, ``--seconds``
of quiet and about as long while a writer appends new calls (a transcript, a ``started`` line, a
``result`` line) at ``--rate`` lines a second. The CPU of the watcher and its helper (all
threads, ``/proc``) per line written is the writing window's CPU less what the quiet
window's rate would have spent in it, over the lines; the median over ``--repeat`` turns
is what counts. The last change set must count every line (nothing lost).

The work per line is flat when the largest size costs at most `FLAT` times the smallest.
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from common import TOP, WFTOP, median
from idle_cpu import cpu_seconds

SIZES = (100, 1000, 10000, 50000)
FLAT = 1.25
"""Per-line CPU at the largest size over the smallest: at most this is flat."""
SOURCE = TOP / "tests" / "data" / "corpus" / "killed"


def pair(tag: str, number: int) -> tuple[str, bytes]:
    """The agent id and the two lines of call ``number`` of writer ``tag``."""
    key, agent = f"v2:{tag}-{number}", f"a{tag}x{number:06d}"
    started = {"type": "started", "key": key, "agentId": agent, "label": f"{tag}-{number}"}
    result = {"type": "result", "key": key, "agentId": agent, "result": {"n": number}}
    lines = [json.dumps(record, separators=(",", ":")) for record in (started, result)]
    return agent, ("\n".join(lines) + "\n").encode()


def make_tree(where: Path, calls: int, owner: int) -> tuple[Path, Path]:
    """The tree, its journal grown to ``calls`` calls, its session owned by ``owner``."""
    root = where / "tree"
    shutil.copytree(SOURCE, root, ignore=shutil.ignore_patterns("claude-tmp"))
    (journal,) = root.glob("projects/*/*/subagents/workflows/wf_*/journal.jsonl")
    chunks = []
    for number in range(calls):
        agent, lines = pair("g", number)
        (journal.parent / f"agent-{agent}.jsonl").write_bytes(b'{"type":"user"}\n')
        chunks.append(lines)
    with journal.open("ab") as handle:
        handle.write(b"".join(chunks))
    session = journal.parents[3].name
    sys.path.insert(0, str(TOP))
    from wftop.core.system.procs import default_table

    record = {"pid": owner, "sessionId": session, "procStart": default_table().start_time(owner)}
    (root / "sessions").mkdir(exist_ok=True)
    (root / "sessions" / f"{owner}.json").write_text(json.dumps(record))
    return root, journal


def write(journal: Path, tag: str, lines: int, rate: float) -> None:
    """Append ``lines`` lines (calls of two lines) at ``rate`` lines a second."""
    start = time.monotonic()
    for number in range(lines // 2):
        due = start + 2 * number / rate
        pause = due - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        agent, both = pair(tag, number)
        (journal.parent / f"agent-{agent}.jsonl").write_bytes(b'{"type":"user"}\n')
        started, result = both.split(b"\n", 1)
        with journal.open("ab") as handle:
            handle.write(started + b"\n")
        time.sleep(1 / rate)
        with journal.open("ab") as handle:
            handle.write(result)


def measure_size(calls: int, rate: float, seconds: float, repeat: int) -> dict[str, Any]:
    owner = subprocess.Popen(["sleep", "100000"])
    where = Path(tempfile.mkdtemp(prefix="wftop-watch-cost-"))
    process: subprocess.Popen[bytes] | None = None
    try:
        root, journal = make_tree(where, calls, owner.pid)
        argv = [*WFTOP, "ls", "--watch", "--json", "--no-default-root", "--root", str(root)]
        env = {**os.environ, "WFTOP_CACHE_DIR": str(where / "cache")}
        process = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=TOP, env=env
        )
        last: list[dict[str, Any]] = []
        first = threading.Event()

        def read() -> None:
            assert process is not None and process.stdout is not None
            for raw in process.stdout:
                change = json.loads(raw)
                for row in change["added"] + change["changed"]:
                    last[:] = [row]
                first.set()

        threading.Thread(target=read, daemon=True).start()
        if not first.wait(timeout=300):
            raise SystemExit("watch_cost: no cold index within 300 s")
        if last[0]["status"] != "running":
            raise SystemExit(f"watch_cost: the run reads {last[0]['status']}, not running")
        time.sleep(3.0)  # the watch up and its first sweep done
        lines = int(rate * seconds) // 2 * 2
        per_line = []
        for turn in range(repeat):
            before, at = cpu_seconds(process.pid), time.monotonic()
            time.sleep(seconds)
            idle = (cpu_seconds(process.pid) - before) / (time.monotonic() - at)
            before, at = cpu_seconds(process.pid), time.monotonic()
            write(journal, f"w{turn}", lines, rate)
            time.sleep(0.5)
            used = cpu_seconds(process.pid) - before - idle * (time.monotonic() - at)
            per_line.append(1000 * used / lines)
        expected = 2 * calls + repeat * lines
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and last[0]["started"] + last[0]["returned"] < expected:
            time.sleep(0.1)
        counted = last[0]["started"] + last[0]["returned"]
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
    finally:
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()
        owner.kill()
        owner.wait()
        shutil.rmtree(where, ignore_errors=True)
    return {
        "calls": calls,
        "lines_per_turn": lines,
        "cpu_ms_per_line": round(median(per_line), 4),
        "all_ms_per_line": [round(value, 4) for value in per_line],
        "lost": max(0, expected - counted),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    rows = [measure_size(calls, args.rate, args.seconds, args.repeat) for calls in args.sizes]
    ratio = rows[-1]["cpu_ms_per_line"] / rows[0]["cpu_ms_per_line"]
    result = {"sizes": rows, "rate": args.rate, "ratio": round(ratio, 2), "flat": ratio <= FLAT}
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
