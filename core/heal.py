"""The heal of the surgical strategy: which ``failed`` lines a healed copy leaves out.

A call whose latest state is failed loses its ``failed`` line(s), so the resume
reads it as "in flight when the run stopped": it re-runs without ending reuse
(spec C.5), and without the ``replaced`` chain rule (C.3) later keys stay the same.
Nothing else changes: a call that failed and later returned keeps its lines.
"""

from __future__ import annotations

from typing import Any

from core.journal import CallState, JournalFold


def record_key(record: dict[str, Any]) -> str:
    key = record.get("key")
    return key if isinstance(key, str) and key else f"agent:{record.get('agentId')}"


def lines_to_drop(records: list[tuple[int, dict[str, Any]]], fold: JournalFold) -> set[int]:
    """Line numbers of the ``failed`` lines of calls whose latest state is failed."""
    drop = set()
    for line, record in records:
        if record.get("type") != "failed":
            continue
        call = fold.calls.get(record_key(record))
        if call is not None and call.state is CallState.FAILED:
            drop.add(line)
    return drop


def healed_fold(records: list[tuple[int, dict[str, Any]]]) -> tuple[JournalFold, set[int]]:
    """The fold of the journal as the healed copy will read, and the lines dropped."""
    fold = JournalFold().feed_all(records)
    drop = lines_to_drop(records, fold)
    kept = [(line, record) for line, record in records if line not in drop]
    return JournalFold().feed_all(kept), drop
