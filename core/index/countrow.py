"""A run's row made straight from what its reader read: no `Run`, no `RunRow`.

A list's cold pass reads every run for its row alone (`wftop.core.index.reader.RunReader`
with a `wftop.core.read.countfold.CountingFold`). `counted_row` takes what that row shows
from the reader and the pass's `RunContext`, and gives the row's JSON fields as
`RunRow.json_fields` gives them of ``RunRow.of(made_run(reader, context))``: the same
values, in the same order, with the facts the caller keeps of the run besides (its problems,
its last activity, whether it is settled or ended, the script its snapshot names). Making the
`Run` and the `RunRow` only to print the row was about a fifth of a cold pass's work a run.

A row whose spend must be read from the transcripts of a run without its journal has no
counted row (None): its reader's run is made and its row printed as every other's.
A differential test holds the fields equal to the full way's on every tree under
``tests/data`` and on fuzzed journals (``tests/core/test_counting_fold.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import itemgetter
from typing import Any, NamedTuple

import orjson

from wftop.core.cost.tokens import NOTHING
from wftop.core.index.context import RunContext
from wftop.core.index.reader import RunReader
from wftop.core.index.rowfile import Naming, naming_of, row_array, row_naming
from wftop.core.index.runmade import classified
from wftop.core.index.scriptlook import NamedScript
from wftop.core.model import ENDED, Status, iso_utc
from wftop.core.read.journal import CallState
from wftop.core.read.jsonl import Problem
from wftop.core.read.runfolder import short_project
from wftop.core.row import array_line, printed_item
from wftop.core.rowwire import moment
from wftop.core.text.gate import escape_json
from wftop.core.text.prefilter import may_hold_secret
from wftop.core.text.redact import PATH_KEYS, Redactor

_LIVE = (Status.RUNNING, Status.STALLED)


class Counted(NamedTuple):
    """A run's row as `RunRow.json_fields` gives it, and what its reader keeps of the run."""

    fields: dict[str, Any]
    problems: tuple[Problem, ...]
    last_activity: float | None
    journal: str
    named: NamedScript
    """The script path its snapshot names, and whether it was a file when its reader looked
    (`wftop.core.index.naming.RunNames.named`: the look it took, not another)."""
    settled: bool
    """`wftop.core.index.cachefile.settled` of its run."""
    ended: bool
    """`wftop.core.index.cachefile.ended` of its run."""


def counted_row(reader: RunReader, context: RunContext, *, pending: bool) -> Counted | None:
    """The row of the run ``reader`` read, classified in ``context`` (see the module);
    ``pending``: without what it spent, as `RunRow.of`'s. None: make the run instead."""
    if pending:
        spent = NOTHING
    elif reader.count_spend and not reader.journal_missing:
        spent = reader.spend()
    else:
        return None
    folder, fold = reader.folder, reader.fold
    how = classified(reader, context)
    owner, superseded_by, status, found = how.owner, how.superseded_by, how.status, how.failures
    snapshot, current = reader.snapshot, how.current
    ended = status in ENDED
    failed_keys = {failure.key for failure in found}
    flight = (
        []
        if ended
        else [
            call.label for call in fold.calls_in(CallState.IN_FLIGHT) if call.key not in failed_keys
        ]
    )
    cwd = context.cwd(folder)
    journal = folder.journal
    failed = len(found)
    calls = len(fold.calls)
    open_keys = fold.open_keys
    still = len(open_keys) - (sum(1 for f in found if f.key in open_keys) if found else 0)
    returned = calls - failed - still
    cached = len(snapshot.cached) if snapshot is not None and current else 0
    cached = min(cached, returned)
    live = status in _LIVE
    cost = None if pending or spent.cost_usd is None else round(spent.cost_usd, 6)
    fields: dict[str, Any] = {
        "run_id": folder.run_id,
        "session_id": folder.session_id,
        "project": folder.project,
        "project_name": short_project(cwd, folder.project),
        "root": folder.root,
        "cwd": cwd,
        "name": reader.run_name,
        "status": status.value,
        "started": fold.started_lines,
        "returned": fold.result_lines,
        "failed": failed,
        "calls": calls,
        "in_flight": flight,
        "failed_calls": [failure.label for failure in found],
        "rerun_tokens": reader.rerun_tokens,
        "dead_workers": len(flight) if status is Status.DEAD else 0,
        "journal": None if reader.journal_missing else journal,
        "snapshot": snapshot.path if snapshot is not None else None,
        "snapshot_current": current,
        "script_path": reader.script_path,
        "owner": owner.liveness.value,
        "owner_pid": owner.entry.pid if owner.entry else None,
        "superseded_by": superseded_by,
        "last_activity": printed_moment(how.last_activity),
        "unreadable_lines": len(how.problems),
        "host": None,
        "unreadable_reason": how.unreadable,
        "call_states": {
            "done": returned - cached,
            "cached": cached,
            "failed": failed,
            "running": still if live else 0,
            "dead": 0 if live else still,
        },
        "cost_usd": cost,
        "tokens": spent.tokens.to_json(),
        "unpriced_models": list(spent.unpriced_models),
        "missing_transcripts": spent.missing,
        "cost_is_lower_bound": spent.lower_bound,
    }
    if pending:
        fields["cost_pending"] = True
    fields["failed_lines"] = fold.failed_lines
    fields["failures"] = [{"label": failure.label, "kind": failure.kind} for failure in found]
    return Counted(
        fields,
        how.problems,
        how.last_activity,
        journal,
        reader.names.named,
        how.unreadable is None and (ended or not owner.may_be_alive),
        ended and snapshot is not None and current,
    )


SURE_SECONDS = 2.0**32
"""Within this many seconds of the epoch, a moment printed to the millisecond reads back as
a double within half a microsecond of it (half a step of a double there: 0.24 µs), which
`datetime.fromtimestamp` rounds to that millisecond again."""


def printed_moment(at: float | None) -> str | None:
    """A row's moment as `RunRow.json_fields` prints it: ``iso_utc`` of what its printed
    text reads back as (`wftop.core.rowwire.moment`), which within `SURE_SECONDS` of the
    epoch is the text printed once (a read back and a print the less, a row)."""
    if at is not None and -SURE_SECONDS < at < SURE_SECONDS:
        return iso_utc(at)
    return iso_utc(moment(iso_utc(at), "last_activity"))


def printed_row(fields: dict[str, Any], redactor: Redactor) -> bytes:
    """`wftop.core.row.printed_item` of a row's JSON fields, ``redactor`` being
    `wftop.core.text.redact.Redactor.for_json`'s: where masking could not change them
    (`may_be_masked`), printed as they are, the masking's quick test run on their strings
    but the paths (a row's indented text, its paths and keys with it, took 4-5 times as
    long to search)."""
    return printed_named(fields, redactor)[0]


def printed_named(fields: dict[str, Any], redactor: Redactor) -> tuple[bytes, Naming | None]:
    """`printed_row`, and the `wftop.core.index.rowfile.row_naming` of what it printed: taken
    from the fields where they were printed as they are, not parsed back from the row (5 µs
    of a worker's CPU a row)."""
    if not may_be_masked(fields):
        try:
            return indented(fields), naming_of(fields)
        except TypeError:  # a name that is not UTF-8: as printed_item prints it
            pass
    row = printed_item(fields, redactor)
    return row, row_naming(row)


def printed_array(fields: dict[str, Any], row: bytes) -> bytes:
    """The row `printed_named` printed of ``fields`` as the engine's stream sends it
    (`wftop.core.row.array_line`, which the rows cache keeps beside it): made of the fields
    where they were printed as they are, else read back from what was printed (masked)."""
    if not may_be_masked(fields):
        try:
            return array_line(fields)
        except TypeError:  # a name that is not UTF-8: as printed_item printed it
            pass
    return row_array(row)


def indented(fields: dict[str, Any]) -> bytes:
    """A row's JSON fields printed as an item of ``ls --json``'s array, unmasked (a row
    `may_be_masked` says masking leaves as it is); TypeError: a name that is not UTF-8."""
    text = orjson.dumps(fields, option=orjson.OPT_INDENT_2)
    return b"  " + escape_json(text).replace(b"\n", b"\n  ")


def may_be_masked(fields: dict[str, Any]) -> bool:
    """Whether masking could change a row's JSON (`wftop.core.text.jsonout.dumps_masked`
    with `wftop.core.text.redact.Redactor.for_json`): where no string value of it, but the
    paths it keeps real, holds any of the quick test's literals, it is printed as it is.
    Only the values are searched, not the keys (no key of a row names a secret, which would
    mask its value by its name: a test holds them to that), nor the paths."""
    texts: list[str] = []
    if fields.keys() == ROW_KEYS:  # a row's fields, as `counted_row` makes them
        for value in _row_texts(fields):
            if type(value) is str:
                texts.append(value)
            elif value is not None and not _strings(value, texts):
                return True
        return may_hold_secret("\n".join(texts))
    for key, value in fields.items():
        if type(value) is str:
            if key not in PATH_KEYS:
                texts.append(value)
        elif type(value) not in _PLAIN and not _strings(value, texts):
            return True
    return may_hold_secret("\n".join(texts))


ROW_TEXTS = (
    "run_id", "session_id", "project_name", "name", "status", "in_flight", "failed_calls",
    "owner", "superseded_by", "last_activity", "host", "unreadable_reason", "unpriced_models",
    "failures",
)  # fmt: skip
"""The fields of a row (`counted_row`'s, `RunRow.json_fields`') that can hold text masking
could change, in print order: a string, None, or a list of strings or of objects of strings.
`may_be_masked` walks only these of a row with a row's keys (`ROW_KEYS`)."""

ROW_PLAIN = (
    "started", "returned", "failed", "calls", "rerun_tokens", "dead_workers",
    "snapshot_current", "owner_pid", "unreadable_lines", "call_states", "cost_usd", "tokens",
    "missing_transcripts", "cost_is_lower_bound", "failed_lines",
)  # fmt: skip
"""The fields of a row that hold no string: numbers, flags, None, or objects of numbers."""

ROW_PATHS = ("project", "root", "cwd", "journal", "snapshot", "script_path")
"""The paths of a row (`PATH_KEYS`), kept real in ``ls --json``: not searched."""

ROW_KEYS = frozenset((*ROW_TEXTS, *ROW_PLAIN, *ROW_PATHS))
"""The keys of a row's fields (but a row whose spend is to come: ``cost_pending``)."""

_row_texts = itemgetter(*ROW_TEXTS)


_PLAIN = frozenset((int, float, bool, type(None)))
"""Values with no string in them."""


def _strings(value: Any, texts: list[str]) -> bool:
    """The strings of a row's list or object field (labels, models, the failures' labels
    and kinds) added to ``texts``; False: it holds something else than these and plain
    values, which is not searched (the row may be masked)."""
    items: Iterable[Any]
    if type(value) is list:
        items = value
    elif type(value) is dict:
        items = value.values()
    else:
        return False
    for item in items:
        if type(item) is str:
            texts.append(item)
        elif type(item) not in _PLAIN and not _strings(item, texts):
            return False
    return True
