"""A remote run as the local model holds it: a `Run` rebuilt from its ``ls --json`` row.

The row is what the remote wftop printed (its names masked there); this side masks them
again. The run's calls are not on the wire, only their counts and the labels of the calls
in flight and failed, so the fold holds one call per such label and one unlabelled call
per returned one: enough for every count, bar and list the run table shows.
"""

from __future__ import annotations

import posixpath
from typing import Any

from wftop.core.model import Run, Status, TranscriptStats
from wftop.core.read.discovery import RunFolder
from wftop.core.read.journal import Call, CallState, JournalFold
from wftop.core.read.sessions import Liveness, Owner
from wftop.core.read.snapshot import parse_iso_time
from wftop.core.text.redact import Redactor, redact_value

REQUIRED = ("run_id", "session_id", "project", "status")


class RowError(ValueError):
    """A row of the remote stream that is not a run."""


def text(row: dict[str, Any], key: str) -> str | None:
    value = row.get(key)
    return value if isinstance(value, str) else None


def count(row: dict[str, Any], key: str) -> int:
    value = row.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def labels(row: dict[str, Any], key: str) -> list[str]:
    value = row.get(key)
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def fold_of(row: dict[str, Any]) -> JournalFold:
    """A fold with the row's counts: its in-flight and failed calls by label, the rest done."""
    fold = JournalFold(
        started_lines=count(row, "started"),
        result_lines=count(row, "returned"),
        failed_lines=count(row, "failed"),
    )
    flight, failed = labels(row, "in_flight"), labels(row, "failed_calls")
    done = max(0, count(row, "calls") - len(flight) - len(failed))
    states = [(label, CallState.IN_FLIGHT) for label in flight]
    states += [(label, CallState.FAILED) for label in failed]
    states += [("", CallState.DONE)] * done
    for order, (label, state) in enumerate(states):
        key = f"remote:{order}"
        fold.calls[key] = Call(
            key, order, label=label, state=state, has_result=state is CallState.DONE
        )
        if state is CallState.IN_FLIGHT:
            fold.open_keys[key] = None
        elif state is CallState.FAILED:
            fold.failed_keys[key] = None
    return fold


def run_from_row(row: Any, host: str, redactor: Redactor | None = None) -> Run:
    """The `Run` a remote ``ls --json`` row describes, on ``host``; `RowError` if none."""
    if not isinstance(row, dict) or not all(text(row, key) for key in REQUIRED):
        raise RowError(f"not a run row (expected an object with {', '.join(REQUIRED)})")
    row = redact_value(row, redactor or Redactor())
    try:
        status = Status(row["status"])
    except ValueError:
        raise RowError(f"unknown status {row['status']!r}") from None
    journal = text(row, "journal") or ""
    path = posixpath.dirname(journal)
    folder = RunFolder(
        root=text(row, "root") or "",
        project=row["project"],
        session_id=row["session_id"],
        run_id=row["run_id"],
        path=path,
        real_path=path,
    )
    try:
        liveness = Liveness(row.get("owner"))
    except ValueError:
        liveness = Liveness.UNKNOWN
    activity = parse_iso_time(text(row, "last_activity"))
    return Run(
        folder=folder,
        fold=fold_of(row),
        snapshot=None,
        snapshot_current=bool(row.get("snapshot_current")),
        owner=Owner(liveness, why="as the host read it"),
        status=status,
        cwd=text(row, "cwd"),
        name=text(row, "name"),
        script_path=text(row, "script_path"),
        journal_size=0,
        journal_mtime=activity,
        transcripts=TranscriptStats(),
        last_activity=activity,
        superseded_by=text(row, "superseded_by"),
        failed_labels=tuple(labels(row, "failed_calls")),
        rerun_tokens=tokens if type(tokens := row.get("rerun_tokens")) is int else None,
        host=host,
    )
