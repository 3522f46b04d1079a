"""The timeline of a run of N calls: reading its times, laying out the axis, drawing a page.

Builds one run of ``--calls`` calls in a temporary config dir (a journal of started and
result lines, each agent a two-record transcript a few milliseconds apart, one death and one
resume in the middle), then measures, in this process, what the timeline screen does off
the loop (`read_timeline`: every transcript's first and last record; `Axis.of` at 60 and 200
columns) and what a page of lanes costs to draw (30 lanes, as the `LineView` asks).

    python bench/timeline.py [--calls 50000] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TOP))

SESSION = "0b0b0b0b-0000-4000-8000-000000000001"
RUN = "wf_0b0b0b0b-001"


def moment(seconds: float) -> str:
    whole = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(1_796_205_500 + int(seconds)))
    return f"{whole}.{int((seconds % 1) * 1000):03d}Z"


def build(root: Path, calls: int) -> None:
    folder = root / "projects" / "-w-proj" / SESSION / "subagents" / "workflows" / RUN
    folder.mkdir(parents=True)
    lines = [b'{"type":"launched"}']
    died = calls // 2
    for number in range(calls):
        agent = f"a{number:016x}"
        key = f"v2:{number:064x}"
        phase = f"P{number * 10 // calls}"
        started = {"type": "started", "key": key, "agentId": agent, "label": f"c{number}"}
        lines.append(json.dumps({**started, "phase": phase}).encode())
        start = number * 0.01 + (3600.0 if number >= died else 0.0)
        records = [{"type": "user", "timestamp": moment(start)}]
        records.append({"type": "assistant", "timestamp": moment(start + 0.008)})
        (folder / f"agent-{agent}.jsonl").write_bytes(
            b"".join(
                json.dumps(record, separators=(",", ":")).encode() + b"\n" for record in records
            )
        )
        if number != died - 1:
            result = {"type": "result", "key": key, "agentId": agent, "result": number}
            lines.append(json.dumps(result).encode())
    (folder / "journal.jsonl").write_bytes(b"\n".join(lines) + b"\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=50_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    from rich.text import Text

    from wftop.core.forensics.timeline import Axis, read_timeline
    from wftop.core.index.coldpass import scan_roots
    from wftop.core.system.procs import FakeProcessTable
    from wftop.tui.screens.timeline import lane_text
    from wftop.tui.styles import Palette

    with tempfile.TemporaryDirectory() as work:
        root = Path(work) / "claude"
        build(root, args.calls)
        (run,) = scan_roots([str(root)], processes=FakeProcessTable()).runs
        began = time.process_time()
        timeline = read_timeline(run)
        read_s = time.process_time() - began
        axes = {}
        for width in (60, 200):
            began = time.process_time()
            axes[width] = Axis.of(timeline, width)
            axes[f"{width}_s"] = time.process_time() - began
        axis = axes[60]
        assert isinstance(axis, Axis)
        began = time.process_time()
        page: list[Text] = [
            lane_text(lane, timeline, axis, 8, Palette()) for lane in timeline.lanes[:30]
        ]
        page_s = time.process_time() - began
        result = {
            "calls": args.calls,
            "lanes": len(timeline.lanes),
            "deaths": len(timeline.deaths),
            "resumes": len(timeline.resumes),
            "read_s": round(read_s, 3),
            "axis_60_s": round(float(axes["60_s"]), 4),  # type: ignore[arg-type]
            "axis_200_s": round(float(axes["200_s"]), 4),  # type: ignore[arg-type]
            "page_of_30_ms": round(page_s * 1000, 2),
            "cpus": os.cpu_count(),
        }
        del page
    if args.json:
        print(json.dumps(result))
    else:
        for name, value in result.items():
            print(f"{name:>14}  {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
