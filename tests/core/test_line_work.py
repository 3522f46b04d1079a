"""The work of one appended line does not grow with the run it joins, counted in lines of
Python run (a tracer counts them: no clock), for a run of a few hundred calls and one of
some thousands, in the shapes a journal that grows for long takes: calls that returned
without a transcript (copied from elsewhere, or cleaned up), and calls still open in a run
whose owner is gone.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from tests.core.test_index import rows
from tests.corpus import aged, copy_tree, only_journal
from wftop.core.index.coldpass import scan_roots
from wftop.core.index.live import LiveIndex
from wftop.core.system.procs import FakeProcessTable

SMALL, LARGE = 200, 4_000


def python_lines(work: Callable[[], object]) -> int:
    """Lines of Python ``work()`` ran (every frame, a loop's lines once per turn)."""
    count = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def call(frame: FrameType, event: str, arg: Any) -> Any:
        return local

    sys.settrace(call)
    try:
        work()
    finally:
        sys.settrace(None)
    return count


def line(record: dict[str, Any]) -> bytes:
    return json.dumps(record).encode() + b"\n"


def grown(tmp_path: Path, name: str, calls: int, *, returned: bool) -> tuple[Path, Path]:
    """The killed tree (its owner gone), its run grown by ``calls`` calls with no agent
    transcript: each returned (``returned``) or left open."""
    root = copy_tree("killed", tmp_path / name)
    journal = only_journal(root)
    with journal.open("ab") as handle:
        for n in range(calls):
            handle.write(line({"type": "started", "key": f"v2:g{n}", "agentId": f"ag{n}"}))
            if returned:
                handle.write(line({"type": "result", "key": f"v2:g{n}", "agentId": f"ag{n}"}))
    aged(root)
    return root, journal


def work_of_a_line(root: Path, journal: Path, *, spends: bool) -> int:
    """Lines of Python the live index runs for the third of three lines appended one by
    one (the first ones settle what a run's first change reads once)."""
    index = LiveIndex([str(root)], processes=FakeProcessTable(), spends=spends)
    index.cold_start()
    counts = []
    for n in range(3):
        with journal.open("ab") as handle:
            handle.write(line({"type": "started", "key": f"live-{n}", "agentId": f"l{n}"}))
        counts.append(python_lines(lambda: index.apply(index.classify([str(journal)]))))
    fresh = scan_roots([str(root)], processes=FakeProcessTable()).runs
    assert rows(index.runs()) == rows(fresh)
    return counts[-1]


def test_a_line_costs_the_same_whatever_its_runs_missing_transcripts(tmp_path: Path) -> None:
    """Returned calls whose transcripts are missing were each looked at again by the spend
    at every change (a 100,000-line journal growing at 500 lines a second: a third of the
    engine's CPU)."""
    small = work_of_a_line(*grown(tmp_path, "small", SMALL, returned=True), spends=True)
    large = work_of_a_line(*grown(tmp_path, "large", LARGE, returned=True), spends=True)
    assert large <= small * 1.1 + 50, (small, large)
