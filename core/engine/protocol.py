"""The engine's stream: versioned JSON lines, one message each, and the typed messages.

Engine to view, in this order on every connection:

* ``hello``: ``{"type": "hello", "protocol": 3, "wftop": "0.1.0", "pid": 4242, "roots":
  [...], "stall_window": 600.0}``: who speaks. A view uses an engine only when both its
  ``protocol`` and its ``wftop`` version are the view's own.
* ``progress``: ``{"type": "progress", "read": 1200, "total": 5000}`` while the first cold
  pass reads, at most about a hundred of them.
* ``rows``: ``{"type": "rows", "seq": 0, "rows": [...], "final": false}``: the runs the
  engine holds, in batches (the first ones early, while the cold pass still reads); the
  batch with ``final: true`` ends this connection's snapshot, as of change set ``seq``.
* ``kept``: ``{"type": "kept"}``, within a snapshot: the rows sent so far hold every run the
  engine's rows cache kept (a start before read them, and they have not changed): a view may
  list them now. The rest of the snapshot follows (what the engine's walk of the roots finds:
  runs it did not keep, runs gone or superseded meanwhile) up to its ``final`` batch. Sent
  once per connection at most, never after ``final`` (none on a start with no row kept).
* ``changed``: ``{"type": "changed", "seq": 7, "rows": [...], "removed": [ident, ...]}``: one
  change set, numbered from 1 with no gaps on one engine: the rows of runs added or changed,
  and the idents of runs that went. Only rows that differ from what was sent are sent.
* ``problem``: ``{"type": "problem", "text": "<file>:<line>: <why>", "fatal": false}``: a line
  or a root it cannot read (a view shows it; the run it belongs to is still listed). With
  ``fatal: true`` the engine itself failed (a bug, a package missing) and stopped reading:
  the text says why in one line and names the log holding the traceback; the engine stays,
  holding what it had, and tells every view that joins. With ``notice: true`` (left out
  when false) it is for the user at once, not only the log: the engine follows the disk less
  well than it should (a watch the kernel refused: it polls instead).
* ``status``: ``{"type": "status", "counts": {"dead": 2, ...}, "complete": true, "needy":
  [[ident, run_id, shown, last_activity], ...]}``: the answer to a view that asked for counts
  only (``wftop status``), with the runs that may need a person (dead, stalled, failed,
  partial: `wftop.core.notify.acks.RunState`, their last activity in seconds since the epoch,
  or null), so it can hold them to the attention window and the runs marked seen; then the
  engine closes.
* ``bye``: ``{"type": "bye", "why": "..."}``: the engine goes (idle, stopped, or a view of
  another version asked).

A row is a JSON array of the values of `wftop.core.row.RunRow`'s ``ls --json`` fields, in
the order ``ls`` prints them, every field there (`wftop.core.row.array_line`; a view parses
an array at about half the cost of the object, and takes it a field at a time without a key
compared), its names masked as ``ls`` masks them. A view speaking to a shared engine first
sends one line, ``{"type": "hello", "protocol": 3, "wftop": "0.1.0", "want": "rows"}``
(``want``: ``rows`` or ``status``).

Every line is checked as it is read (`decode`): one that is not such a message is a
`ProtocolError` saying what was expected, and a row is checked by `RunRow.from_array`. The
lines are made in `wftop.core.engine.lines` (named here too), the engine's side, which the
engine imports without the messages a view reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from wftop.core.compared import compared
from wftop.core.engine.lines import KEPT_LINE as KEPT_LINE
from wftop.core.engine.lines import PROTOCOL as PROTOCOL
from wftop.core.engine.lines import SNAPSHOT_BATCH as SNAPSHOT_BATCH
from wftop.core.engine.lines import Ask as Ask
from wftop.core.engine.lines import Hello as Hello
from wftop.core.engine.lines import ProtocolError as ProtocolError
from wftop.core.engine.lines import ask_line as ask_line
from wftop.core.engine.lines import bye_line as bye_line
from wftop.core.engine.lines import changed_line as changed_line
from wftop.core.engine.lines import checked_field as checked_field
from wftop.core.engine.lines import decode_ask as decode_ask
from wftop.core.engine.lines import hello_line as hello_line
from wftop.core.engine.lines import one_line as one_line
from wftop.core.engine.lines import problem_line as problem_line
from wftop.core.engine.lines import progress_line as progress_line
from wftop.core.engine.lines import rows_line as rows_line
from wftop.core.engine.lines import snapshot_lines as snapshot_lines
from wftop.core.engine.lines import status_line as status_line

if TYPE_CHECKING:  # a view's reading imports them
    from wftop.core.attention import RunState
    from wftop.core.row import RunRow

MAX_LINE = 1 << 30
"""Longest line a view reads (one snapshot batch of rows is far below it)."""


@compared
@dataclass(frozen=True, eq=False, repr=False)
class Progress:
    """The first cold pass has read ``read`` of ``total`` runs."""

    read: int
    total: int


@compared
@dataclass(frozen=True, eq=False, repr=False)
class Kept:
    """The rows of the snapshot so far are every run the rows cache kept: they may be
    listed (the rest of the snapshot, what the walk of the roots finds, follows)."""


@compared
@dataclass(frozen=True, eq=False, repr=False)
class Rows:
    """A batch of the runs the engine holds; ``final`` ends the snapshot (as of ``seq``)."""

    seq: int
    rows: tuple[RunRow, ...]
    final: bool
    rejected: tuple[str, ...] = ()
    """Why each row that is not a row was left out (the others stand)."""


@compared
@dataclass(frozen=True, eq=False, repr=False)
class Changed:
    """One change set: rows added or changed, idents removed."""

    seq: int
    rows: tuple[RunRow, ...]
    removed: tuple[str, ...]
    rejected: tuple[str, ...] = ()


@compared
@dataclass(frozen=True, eq=False, repr=False)
class ProblemSeen:
    """Something the engine could not read, in one line (``<file>:<line>: <why>``)."""

    text: str
    fatal: bool = False
    """The engine failed and stopped reading (the text names its log)."""
    notice: bool = False
    """For the user at once (a toast), not only the log: the watch polls, a watch refused."""


@compared
@dataclass(frozen=True, eq=False, repr=False)
class Counts:
    """Runs per shown status (``wftop status``); ``complete`` once the cold pass is done."""

    counts: dict[str, int]
    complete: bool
    needy: tuple[RunState, ...] = ()
    """The runs that may need a person (a shown status of `wftop.core.model.NEEDS_YOU`)."""


@compared
@dataclass(frozen=True, eq=False, repr=False)
class Bye:
    """The engine goes, and says why."""

    why: str


Message = Hello | Progress | Kept | Rows | Changed | ProblemSeen | Counts | Bye


# -- reading -------------------------------------------------------------------------------


def _row_list(payload: dict[str, Any]) -> tuple[tuple[RunRow, ...], tuple[str, ...]]:
    """The rows of a message, and why each of the others is not a row: one bad row is
    left out, not the whole message (a view asking again would get it again)."""
    from wftop.core.row import RunRow

    items = checked_field(payload, "rows", list, "a list of rows")
    batch = RunRow.batch_from_arrays(items)
    if batch is not None:  # every row as the engine sends one: read a field at a time
        return tuple(batch), ()
    return rows_each(items, payload.get("type"))


def rows_each(items: list[Any], kind: Any) -> tuple[tuple[RunRow, ...], tuple[str, ...]]:
    """The rows of a ``kind`` message read a row at a time (`RunRow.from_array`), and why
    each of the others is not a row."""
    from wftop.core.row import RowError, RunRow

    rows: list[RunRow] = []
    rejected: list[str] = []
    for at, item in enumerate(items):
        try:
            rows.append(RunRow.from_array(item))
        except RowError as error:
            rejected.append(f"{kind} row {at}: {error}")
    return tuple(rows), tuple(rejected)


def _texts(payload: dict[str, Any], key: str) -> tuple[str, ...]:
    items = checked_field(payload, key, list, "a list of strings")
    if not all(isinstance(item, str) for item in items):
        raise ProtocolError(f"{payload.get('type')}: {key} must be a list of strings")
    return tuple(items)


def decode(line: bytes) -> Message:
    """The message a line holds; `ProtocolError` saying what was expected when none."""
    try:
        payload = orjson.loads(line)
    except orjson.JSONDecodeError as error:
        raise ProtocolError(f"not a JSON line ({error})") from None
    if not isinstance(payload, dict):
        raise ProtocolError("not a message (expected a JSON object with a type)")
    kind = payload.get("type")
    if kind == "hello":
        return Hello(
            protocol=checked_field(payload, "protocol", int, "a whole number"),
            wftop=checked_field(payload, "wftop", str, "a version"),
            pid=checked_field(payload, "pid", int, "a process id"),
            roots=_texts(payload, "roots"),
            stall_window=float(checked_field(payload, "stall_window", (int, float), "seconds")),
        )
    if kind == "progress":
        read = checked_field(payload, "read", int, "a whole number")
        return Progress(read, checked_field(payload, "total", int, "a whole number"))
    if kind == "kept":
        return Kept()
    if kind == "rows":
        seq = checked_field(payload, "seq", int, "a whole number")
        final = checked_field(payload, "final", bool, "true or false")
        rows, rejected = _row_list(payload)
        return Rows(seq, rows, final, rejected)
    if kind == "changed":
        seq = checked_field(payload, "seq", int, "a whole number")
        rows, rejected = _row_list(payload)
        return Changed(seq, rows, _texts(payload, "removed"), rejected)
    if kind == "problem":
        fatal = payload.get("fatal", False)
        if not isinstance(fatal, bool):
            raise ProtocolError(f"problem: fatal must be true or false, got {fatal!r:.60}")
        notice = payload.get("notice", False)
        if not isinstance(notice, bool):
            raise ProtocolError(f"problem: notice must be true or false, got {notice!r:.60}")
        return ProblemSeen(checked_field(payload, "text", str, "a line of text"), fatal, notice)
    if kind == "status":
        counts = checked_field(payload, "counts", dict, "an object of counts")
        if not all(type(value) is int and value >= 0 for value in counts.values()):
            raise ProtocolError("status: counts must be whole numbers")
        complete = checked_field(payload, "complete", bool, "true or false")
        return Counts(counts, complete, _needy(payload.get("needy", [])))
    if kind == "bye":
        return Bye(checked_field(payload, "why", str, "a reason"))
    raise ProtocolError(f"unknown message type {kind!r:.40} (expected one of {KINDS})")


KINDS = "hello, progress, kept, rows, changed, problem, status, bye"


def _needy(items: Any) -> tuple[RunState, ...]:
    from wftop.core.attention import RunState

    expected = "status: needy must be a list of [ident, run_id, shown, last_activity]"
    if not isinstance(items, list):
        raise ProtocolError(expected)
    found = []
    for item in items:
        if not (
            isinstance(item, list)
            and len(item) == 4
            and all(isinstance(part, str) for part in item[:3])
            and (
                item[3] is None
                or (isinstance(item[3], int | float) and not isinstance(item[3], bool))
            )
        ):
            raise ProtocolError(expected)
        found.append(RunState(*item))
    return tuple(found)
