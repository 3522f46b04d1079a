"""Live latency: from a journal line's ``write()`` to its change set on ``ls --watch``'s stdout.

    python bench/live_latency.py [--runs 5000] [--writers 16] [--rate 500] [--seconds 20]

``wftop ls --watch --json`` follows the generated corpus plus one extra session per
writer. Each writer appends to its own run's journal at ``rate / writers`` lines a
second (``started`` then ``result`` of a fresh key, each line with a unique marker).
A line counts as delivered by the first change set whose ``started + returned`` for
that run reaches the line's position; its latency is that set's arrival time minus
the moment just before the line's ``write()``. Lines never delivered are lost; counts
beyond what was written are duplicates; an ``in_flight`` list that is not the marker
of the run's open call is an inconsistency. The extra sessions are removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from common import TOP, WFTOP, default_workdir, ensure_corpus
from make_corpus import Plan

SLUG = "-home-dev-work-bench-live"


def make_writer_runs(root: Path, writers: int) -> list[tuple[str, Path]]:
    """One fresh session holding one run (a journal with a ``launched`` line) per writer."""
    made = []
    for _ in range(writers):
        session = str(uuid.uuid4())
        run_id = f"wf_{uuid.uuid4().hex[:8]}-{uuid.uuid4().hex[:3]}"
        folder = root / "projects" / SLUG / session / "subagents" / "workflows" / run_id
        folder.mkdir(parents=True)
        (folder / "journal.jsonl").write_bytes(b'{"type":"launched"}\n')
        made.append((f"{session}/{run_id}", folder / "journal.jsonl"))
    return made


def line_for(writer: int, number: int) -> bytes:
    pair = number // 2
    key = f"lat-{writer}-{pair}"
    agent = f"a{writer:02d}{pair:012d}"
    if number % 2 == 0:
        record = {"type": "started", "key": key, "agentId": agent, "label": f"m{writer}-{pair}"}
    else:
        record = {"type": "result", "key": key, "agentId": agent, "result": {"marker": key}}
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def write_lines(
    journal: Path, writer: int, count: int, start: float, interval: float
) -> list[float]:
    """Append ``count`` lines on schedule; the time taken just before each ``write()``."""
    times = []
    fd = os.open(journal, os.O_WRONLY | os.O_APPEND)
    try:
        for number in range(count):
            due = start + number * interval
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            data = line_for(writer, number)
            times.append(time.time())
            os.write(fd, data)
    finally:
        os.close(fd)
    return times


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def run(root: Path, writers: int, rate: float, seconds: float) -> dict[str, Any]:
    shutil.rmtree(root / "projects" / SLUG, ignore_errors=True)
    runs = make_writer_runs(root, writers)
    idents = {ident: number for number, (ident, _journal) in enumerate(runs)}
    argv = [*WFTOP, "ls", "--watch", "--json", "--no-default-root", "--root", str(root)]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=TOP)
    arrivals: list[tuple[float, bytes]] = []
    first_line = threading.Event()

    def read() -> None:
        # Nothing but a timestamp here: parsing waits until the end, so this thread is
        # never the reason a line looks late.
        assert process.stdout is not None
        for raw in process.stdout:
            arrivals.append((time.time(), raw))
            first_line.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        if not first_line.wait(timeout=300):
            raise SystemExit("live_latency: no cold index from wftop within 300 s")
        wait_until_following(runs[0][1], arrivals, idents)
        per_writer = max(2, int(rate / writers * seconds))
        # The writers run in a process of their own (one thread each), so neither they
        # nor this reader wait for the other's interpreter lock.
        spec = {"journals": [str(journal) for _ident, journal in runs], "lines": per_writer}
        spec["interval"] = writers / rate
        done = subprocess.run(
            [sys.executable, __file__, "--write", json.dumps(spec)],
            capture_output=True,
            check=True,
            timeout=seconds * 3 + 60,
        )
        written = {int(key): times for key, times in json.loads(done.stdout).items()}
        deadline = time.time() + 10
        seen = 1
        best = dict.fromkeys(idents.values(), 0)
        while time.time() < deadline and min(best.values()) < per_writer:
            while seen < len(arrivals):
                for writer, counted, _flight in progress_of(arrivals[seen][1], idents):
                    best[writer] = max(best[writer], counted)
                seen += 1
            time.sleep(0.1)
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for _ident, journal in runs:
            shutil.rmtree(journal.parents[3], ignore_errors=True)
        shutil.rmtree(root / "projects" / SLUG, ignore_errors=True)
    result = analyse(arrivals[1:], idents, written)
    result.update(
        {
            "writers": writers,
            "rate_lines_per_s": rate,
            "seconds": seconds,
            "lines_written": sum(len(times) for times in written.values()),
            "exit_code": code,
        }
    )
    return result


def wait_until_following(
    journal: Path, arrivals: list[tuple[float, bytes]], idents: dict[str, int]
) -> None:
    """Append probe lines until a change set shows one: the watch is up and caught up.

    A probe is a ``launched`` line, which counts in neither ``started`` nor ``returned``,
    so the measured positions of that writer do not move.
    """
    deadline = time.time() + 300
    seen = 1
    number = 0
    while time.time() < deadline:
        with open(journal, "ab") as handle:
            handle.write(b'{"type":"launched"}\n')
        number += 1
        until = time.time() + 1.0
        while time.time() < until:
            while seen < len(arrivals):
                change = json.loads(arrivals[seen][1])
                seen += 1
                for row in change["added"] + change["changed"]:
                    if f"{row['session_id']}/{row['run_id']}" in idents:
                        time.sleep(1.0)  # let the catch-up sweep that follows settle
                        return
            time.sleep(0.05)
    raise SystemExit("live_latency: wftop never reported the probe lines")


def progress_of(raw: bytes, idents: dict[str, int]) -> list[tuple[int, int, list[str]]]:
    """(writer, lines counted, in_flight) for every writer run in one change set."""
    change = json.loads(raw)
    found = []
    for row in change["added"] + change["changed"]:
        writer = idents.get(f"{row['session_id']}/{row['run_id']}")
        if writer is not None:
            found.append((writer, row["started"] + row["returned"], row["in_flight"]))
    return found


def analyse(
    arrivals: list[tuple[float, bytes]], idents: dict[str, int], written: dict[int, list[float]]
) -> dict[str, Any]:
    latencies: list[float] = []
    lost = duplicated = inconsistent = 0
    sets = 0
    seen: dict[int, list[tuple[float, int, list[str]]]] = {writer: [] for writer in written}
    for when, raw in arrivals:
        sets += 1
        for writer, counted, flight in progress_of(raw, idents):
            seen[writer].append((when, counted, flight))
    for writer, times in written.items():
        updates = seen[writer]
        for _when, counted, flight in updates:
            open_pair = f"m{writer}-{(counted - 1) // 2}" if counted % 2 else None
            if flight != ([open_pair] if open_pair else []):
                inconsistent += 1
        most = max((counted for _when, counted, _flight in updates), default=0)
        duplicated += max(0, most - len(times))
        cursor = 0
        for position, wrote in enumerate(times, 1):
            while cursor < len(updates) and updates[cursor][1] < position:
                cursor += 1
            if cursor == len(updates):
                lost += len(times) - position + 1
                break
            latencies.append((updates[cursor][0] - wrote) * 1000)
    return {
        "change_sets": sets,
        "delivered": len(latencies),
        "lost": lost,
        "duplicated": duplicated,
        "inconsistent_sets": inconsistent,
        "p50_ms": round(percentile(latencies, 0.50), 1),
        "p95_ms": round(percentile(latencies, 0.95), 1),
        "p99_ms": round(percentile(latencies, 0.99), 1),
        "max_ms": round(max(latencies), 1) if latencies else None,
        "mean_ms": round(statistics.fmean(latencies), 1) if latencies else None,
    }


def write_all(spec: dict[str, Any]) -> None:
    """The writer process: one thread per journal, on schedule; prints the write times."""
    interval, count = spec["interval"], spec["lines"]
    journals = [Path(path) for path in spec["journals"]]
    start = time.monotonic() + 0.2
    written: dict[int, list[float]] = {}
    threads = []
    for number, journal in enumerate(journals):
        offset = start + number * interval / len(journals)

        def work(number: int = number, journal: Path = journal, offset: float = offset) -> None:
            written[number] = write_lines(journal, number, count, offset, interval)

        thread = threading.Thread(target=work)
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    print(json.dumps(written))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    arguments = sys.argv[1:] if argv is None else argv
    if arguments[:1] == ["--write"]:
        write_all(json.loads(arguments[1]))
        return {}
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--rate", type=float, default=500.0, help="lines per second, combined")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--workdir", type=Path, default=default_workdir())
    args = parser.parse_args(argv)
    root = ensure_corpus(
        args.workdir / f"corpus-{args.runs}", Plan(runs=args.runs, thin_agents=True)
    )
    result = run(root, args.writers, args.rate, args.seconds)
    result["corpus_runs"] = args.runs
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
