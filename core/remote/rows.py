"""A remote run as the local model holds it: a `Run` rebuilt from its ``ls --json`` row.

The row is what the remote wftop printed (its names masked there), read back and checked by
`wftop.core.row.RunRow.from_json`; this side masks it again. The run's calls are not on the
wire, only how many stand how (``call_states``) and the labels of the calls in flight and
failed, so the fold holds one call per such label and one unlabelled call per other one:
enough for every count, bar and list the run table shows.
"""

from __future__ import annotations

import posixpath
from typing import Any

from wftop.core.cost.tokens import Spend
from wftop.core.model import Run, TranscriptStats
from wftop.core.read.failures import Failure
from wftop.core.read.journal import Call, CallState, JournalFold
from wftop.core.read.runfolder import RunFolder
from wftop.core.read.sessions import Owner
from wftop.core.row import RunRow
from wftop.core.text.redact import Redactor, redact_value


def fold_of(row: RunRow) -> JournalFold:
    """A fold with the row's counts: its in-flight and failed calls by label, the rest done
    (or open, running or dead, as the row counts them)."""
    tally = row.call_states
    still = tally.running + tally.dead
    flight = list(row.in_flight[:still]) if not row.ended else []
    failed = [label for label, _ in row.failures]
    done = max(0, row.calls - len(failed) - still)
    states = [(label, CallState.IN_FLIGHT) for label in flight]
    states += [(label, CallState.FAILED) for label in failed]
    states += [("", CallState.DONE)] * done
    states += [("", CallState.IN_FLIGHT)] * min(still - len(flight), row.calls)
    calls: dict[str, Call] = {}
    open_keys: dict[str, None] = {}
    failed_keys: dict[str, None] = {}
    for order, (label, state) in enumerate(states):
        key = f"remote:{order}"
        calls[key] = Call(key, order, label=label, state=state, has_result=state is CallState.DONE)
        if state is CallState.IN_FLIGHT:
            open_keys[key] = None
        elif state is CallState.FAILED:
            failed_keys[key] = None
    return JournalFold(
        calls=calls,
        started_lines=row.started,
        result_lines=row.returned,
        failed_lines=row.failed_lines,
        open_keys=open_keys,
        failed_keys=failed_keys,
    )


def run_from_row(row: Any, host: str, redactor: Redactor | None = None) -> Run:
    """The `Run` a remote ``ls --json`` row describes, on ``host``; `RowError` if none."""
    checked = RunRow.from_json(redact_value(row, redactor or Redactor.for_json()), host=host)
    return run_of(checked)


def run_of(row: RunRow) -> Run:
    """The `Run` a row describes, as far as a row tells (no calls but their counts)."""
    path = posixpath.dirname(row.journal) if row.journal else ""
    folder = RunFolder(
        root=row.root,
        project=row.project,
        session_id=row.session_id,
        run_id=row.run_id,
        path=path,
        real_path=path,
    )
    fold = fold_of(row)
    failures = tuple(
        Failure(key, label, kind, None, "remote")
        for key, (label, kind) in zip(fold.failed_keys, row.failures, strict=True)
    )
    run = Run(
        folder=folder,
        fold=fold,
        snapshot=None,
        snapshot_current=row.snapshot_current,
        owner=Owner(row.owner, why="as the host read it"),
        status=row.status,
        cwd=row.cwd,
        name=row.name,
        script_path=row.script_path,
        journal_missing=row.journal is None,
        unreadable_reason=row.unreadable_reason,
        journal_size=0,
        journal_mtime=row.last_activity,
        transcripts=TranscriptStats(),
        last_activity=row.last_activity,
        superseded_by=row.superseded_by,
        failures=failures,
        rerun_tokens=row.rerun_tokens,
        host=row.host,
        stale=row.stale,
        spend=Spend(row.tokens, row.cost_usd, row.unpriced_models, 0, row.missing_transcripts),
    )
    object.__setattr__(run, "_call_counts", tuple(row.call_states))  # as the host counted them
    return run
