"""The work of one appended line does not grow with the run it joins, counted in lines of
Python run (a tracer counts them: no clock), for a run of a few hundred calls and one of
some thousands, in the shapes a journal that grows for long takes: calls that returned
without a transcript (copied from elsewhere, or cleaned up), and calls still open in a run
whose owner is gone.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from tests.core.test_index import rows
from tests.corpus import aged, copy_tree, only_journal
from tests.forensics_kit import real_line
from wftop.core.index.coldpass import scan_roots
from wftop.core.index.live import LiveIndex
from wftop.core.read import memo
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


def test_a_line_of_a_run_whose_owner_is_gone_reads_no_reply_of_its_open_calls_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run whose owner is gone has its open calls looked for a failure in their agents'
    last replies: each line it got stat'ed every one of their transcripts again (a journal
    grown by 500 started lines a second: 80% of the engine's CPU by the tenth second). A
    transcript the watch says changed is read again."""
    root, journal = grown(tmp_path, "open", 300, returned=False)
    index = LiveIndex([str(root)], processes=FakeProcessTable(), spends=True)
    index.cold_start()
    looked: list[str] = []
    real = os.stat

    def counted(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        looked.append(os.path.basename(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(memo.os, "stat", counted)
    for n in range(3):
        with journal.open("ab") as handle:
            handle.write(line({"type": "started", "key": f"live-{n}", "agentId": f"l{n}"}))
        index.apply(index.classify([str(journal)]))
    assert looked == ["agent-l0.jsonl", "agent-l1.jsonl", "agent-l2.jsonl"]  # each new one once
    error = real_line("api-529", '"isApiErrorMessage":true')
    transcript = journal.parent / "agent-ag7.jsonl"
    transcript.write_text(json.dumps(error) + "\n")
    looked.clear()
    change = index.apply(index.classify([str(transcript)]))
    assert change is not None and looked == ["agent-ag7.jsonl"]
    (run,) = change.changed
    assert [failure.key for failure in run.failures] == ["v2:g7"]
    fresh = scan_roots([str(root)], processes=FakeProcessTable()).runs
    assert rows(index.runs()) == rows(fresh)
