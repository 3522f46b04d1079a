"""Soak: 16 writers append to 16 journals at a steady rate while wftop follows them.

    python bench/soak.py [--minutes 10] [--writers 16] [--lines 10000] [--cycle 60]
                         [--sample 10] [--json] [--out FILE]

The tree is a private copy of the real ``killed`` corpus tree with ``--writers`` copies
of its run folder. Each writer is its own process appending ``--lines`` journal lines
per cycle (a ``started`` line, then its ``result``; one line in seven written in two
``write`` calls, a torn write the reader must wait out) at a steady rate, so one cycle
takes ``--cycle`` seconds. The watcher is a real ``wftop ls --watch --json`` process;
this script reads its stream and keeps the latest row of every run.

At the end of each cycle the watcher's rows must equal a fresh cold scan
(``wftop.core.index.coldpass.scan_roots``) and
every run's started/returned counts must equal the lines
written (each line counted exactly once); then the cycle's run folders are deleted and
16 new copies made, so the data the watcher holds stays the same size and any growth
of its memory is a leak, not data. Every ``--sample`` seconds the watcher's RSS (and
CPU time) is read from ``/proc``.

Verdict: each cycle loads the same amount of data, so each cycle's peak RSS should be
the same. Memory is flat when the peak of every cycle after the first (the first is
warm-up: imports, the cold scan, the first allocations) is within ``max(5 MiB, 5 %)``
of the second cycle's peak. Between peaks the RSS need not fall back: freed memory
stays with the allocator and is reused by the next cycle, which is why the peaks,
not the troughs, tell a leak.

The writer half (``write_lines``) and the tree helpers are shared with
``tests/test_load_writers.py``, which runs the same load once, fast, under a
``LiveIndex`` in the test process.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

TOP = Path(__file__).resolve().parent.parent
if str(TOP) not in sys.path:
    sys.path.insert(0, str(TOP))

TORN_EVERY = 7
"""One line in this many is written in two ``write`` calls."""
SETTLE_SECONDS = 60.0
"""Longest wait for the watcher to agree with a cold scan after a cycle."""
SOURCE_TREE = TOP / "tests" / "data" / "corpus" / "killed"


def line(worker: int, number: int) -> bytes:
    """Line ``number`` (from 0) of ``worker``: even lines start a call, odd ones return it."""
    call = number // 2
    key = f"v2:load-w{worker}-c{call}"
    if number % 2 == 0:
        record: dict[str, Any] = {
            "type": "started",
            "key": key,
            "agentId": f"aload{worker}x{call}",
            "label": f"w{worker}-{call}",
            "phase": "Load",
        }
    else:
        record = {
            "type": "result",
            "key": key,
            "agentId": f"aload{worker}x{call}",
            "result": {"worker": worker, "call": call, "ok": True},
        }
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def added_counts(lines: int) -> tuple[int, int]:
    """Started and result lines among the first ``lines`` lines of a writer."""
    return (lines + 1) // 2, lines // 2


def write_lines(journal: str, worker: int, count: int, rate: float) -> None:
    """Append ``count`` lines at ``rate`` lines a second (0: as fast as possible)."""
    fd = os.open(journal, os.O_WRONLY | os.O_APPEND)
    try:
        begin = time.monotonic()
        for number in range(count):
            data = line(worker, number)
            if number % TORN_EVERY == TORN_EVERY - 1:
                half = len(data) // 2
                os.write(fd, data[:half])
                os.write(fd, data[half:])
            else:
                os.write(fd, data)
            if rate > 0 and number % 10 == 9:
                ahead = begin + (number + 1) / rate - time.monotonic()
                if ahead > 0:
                    time.sleep(ahead)
    finally:
        os.close(fd)


def writer_argv(journal: Path, worker: int, count: int, rate: float) -> list[str]:
    """The command line of one writer process."""
    return [sys.executable, str(Path(__file__).resolve()), "--writer", str(journal),
            str(worker), str(count), str(rate)]  # fmt: skip


def source_run_folder(root: Path) -> Path:
    (folder,) = sorted(root.glob("projects/*/*/subagents/workflows/wf_*"))
    return folder


def make_runs(root: Path, count: int, tag: str) -> list[Path]:
    """``count`` copies of the tree's real run folder (journal, agents) next to it."""
    source = source_run_folder(root)
    folders = []
    for number in range(count):
        folder = source.with_name(f"wf_{tag}{number:02d}-x")
        shutil.copytree(source, folder)
        folders.append(folder)
    return folders


def base_counts(journal: Path) -> tuple[int, int]:
    """Started and result lines already in a copied journal."""
    started = returned = 0
    for raw in journal.read_bytes().splitlines():
        kind = json.loads(raw).get("type")
        started += kind == "started"
        returned += kind == "result"
    return started, returned


def ident_of(row: dict[str, Any]) -> str:
    return f"{row['session_id']}/{row['run_id']}"


# -- the watcher ------------------------------------------------------------------------------


class Watcher:
    """A ``wftop ls --watch --json`` process and the latest row of every run it streamed."""

    def __init__(self, root: Path) -> None:
        argv = [sys.executable, "-m", "wftop.cli", "ls", "--watch", "--json"]
        argv += ["--no-default-root", "--root", str(root)]
        self.process = subprocess.Popen(
            argv, cwd=TOP, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.rows: dict[str, dict[str, Any]] = {}
        self.sets = 0
        self.lock = threading.Lock()
        self.first: queue.Queue[bool] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            change = json.loads(raw)
            with self.lock:
                for row in change["added"] + change["changed"]:
                    self.rows[ident_of(row)] = row
                for ident in change["removed"]:
                    self.rows.pop(ident, None)
                self.sets += 1
                if self.sets == 1:
                    self.first.put(True)

    def snapshot(self) -> dict[str, dict[str, Any]]:
        with self.lock:
            return dict(self.rows)

    def sample(self) -> tuple[float, float]:
        """(RSS in MiB, CPU seconds) of the watcher process."""
        rss_kib = 0
        with open(f"/proc/{self.process.pid}/status") as handle:
            for text in handle:
                if text.startswith("VmRSS:"):
                    rss_kib = int(text.split()[1])
        with open(f"/proc/{self.process.pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return rss_kib / 1024, (int(fields[11]) + int(fields[12])) / ticks

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait(timeout=30)


def cold_rows(root: Path) -> dict[str, dict[str, Any]]:
    from wftop.core.index.coldpass import scan_roots
    from wftop.core.row import RunRow

    rows = [RunRow.of(run).to_json() for run in scan_roots([str(root)]).runs]
    return {ident_of(row): row for row in rows}


def settle(watcher: Watcher, root: Path, deadline: float) -> bool:
    """Wait (bounded) until the watcher's rows equal a cold scan; False on timeout."""
    while time.monotonic() < deadline:
        if watcher.snapshot() == cold_rows(root):
            return True
        time.sleep(0.2)
    return False


def cycle_peaks(samples: list[dict[str, float]], ends: list[float]) -> list[float]:
    """The highest RSS sampled in each cycle (a cycle ends at its check's time)."""
    peaks, start = [], -1.0
    for end in ends:
        inside = [s["rss_mib"] for s in samples if start < s["t"] <= end]
        peaks.append(max(inside) if inside else peaks[-1] if peaks else 0.0)
        start = end
    return peaks


# -- the soak ---------------------------------------------------------------------------------


def soak(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    root = work / "killed"
    shutil.copytree(SOURCE_TREE, root, symlinks=True)
    cycles = max(1, round(args.minutes * 60 / args.cycle))
    rate = args.lines / args.cycle
    samples: list[dict[str, float]] = []
    checks: list[dict[str, Any]] = []
    folders = make_runs(root, args.writers, "soak00w")
    watcher = Watcher(root)
    watcher.first.get(timeout=SETTLE_SECONDS)
    begin = time.monotonic()
    done = threading.Event()

    def sampler() -> None:
        while True:
            rss, cpu = watcher.sample()
            samples.append({"t": round(time.monotonic() - begin, 1), "rss_mib": round(rss, 1),
                            "cpu_s": round(cpu, 2)})  # fmt: skip
            if done.wait(args.sample):
                return

    thread = threading.Thread(target=sampler, daemon=True)
    thread.start()
    failures = []
    for cycle in range(cycles):
        bases = [base_counts(folder / "journal.jsonl") for folder in folders]
        writers = [
            subprocess.Popen(writer_argv(folder / "journal.jsonl", worker, args.lines, rate))
            for worker, folder in enumerate(folders)
        ]
        for process in writers:
            process.wait(timeout=args.cycle * 3 + 60)
        settled = settle(watcher, root, time.monotonic() + SETTLE_SECONDS)
        rows = watcher.snapshot()
        started, returned = added_counts(args.lines)
        exact = 0
        for folder, (base_started, base_returned) in zip(folders, bases, strict=True):
            ident = f"{folder.parents[2].name}/{folder.name}"
            row = rows.get(ident)
            if row and (row["started"], row["returned"]) == (
                base_started + started,
                base_returned + returned,
            ):
                exact += 1
        check = {"cycle": cycle + 1, "settled": settled, "runs_exact": exact,
                 "lines": args.writers * args.lines, "change_sets": watcher.sets,
                 "t": round(time.monotonic() - begin, 1)}  # fmt: skip
        checks.append(check)
        if not settled or exact != len(folders) or any(p.returncode for p in writers):
            failures.append(check)
        print(json.dumps(check), file=sys.stderr, flush=True)
        for folder in folders:
            shutil.rmtree(folder)
        if cycle + 1 < cycles:
            folders = make_runs(root, args.writers, f"soak{cycle + 1:02d}w")
    done.set()
    thread.join(timeout=args.sample + 5)
    code = watcher.stop()
    elapsed = time.monotonic() - begin

    peaks = cycle_peaks(samples, [check["t"] for check in checks])
    reference = peaks[1] if len(peaks) > 1 else peaks[0]
    growth = max(peaks[1:] or peaks) - reference
    flat = growth <= max(5.0, 0.05 * reference)
    return {
        "minutes": args.minutes,
        "writers": args.writers,
        "lines_per_writer_per_cycle": args.lines,
        "cycles": cycles,
        "lines_total": cycles * args.writers * args.lines,
        "rate_lines_per_s": round(rate * args.writers),
        "elapsed_s": round(elapsed, 1),
        "samples": samples,
        "checks": checks,
        "failures": failures,
        "watcher_exit": code,
        "rss_peak_per_cycle_mib": peaks,
        "rss_first_mib": samples[0]["rss_mib"],
        "rss_last_mib": samples[-1]["rss_mib"],
        "growth_mib": round(growth, 1),
        "verdict": "flat" if flat else "grows",
    }


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    if arguments[:1] == ["--writer"]:
        journal, worker, count, rate = arguments[1:5]
        write_lines(journal, int(worker), int(count), float(rate))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--lines", type=int, default=10_000, help="per writer per cycle")
    parser.add_argument("--cycle", type=float, default=60.0, help="seconds per cycle")
    parser.add_argument("--sample", type=float, default=10.0, help="seconds between samples")
    parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
    parser.add_argument("--out", type=Path, help="also write the JSON report here")
    args = parser.parse_args(arguments)
    with tempfile.TemporaryDirectory(prefix="wftop-soak-") as work:
        report = soak(args, Path(work))
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    if args.json:
        print(text)
    else:
        for sample in report["samples"]:
            print(f"t={sample['t']:>6}s  rss={sample['rss_mib']:>6} MiB  cpu={sample['cpu_s']} s")
        print(
            f"{report['lines_total']:,} lines in {report['cycles']} cycles, "
            f"{len(report['failures'])} failed checks; peak RSS per cycle "
            f"{report['rss_peak_per_cycle_mib']} MiB (growth after cycle 2: "
            f"{report['growth_mib']:+} MiB): {report['verdict']}"
        )
    return 1 if report["failures"] or report["verdict"] != "flat" else 0


if __name__ == "__main__":
    sys.exit(main())
