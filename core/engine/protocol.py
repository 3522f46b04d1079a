"""The engine's stream: versioned JSON lines, one message each, and the typed messages.

Engine to view, in this order on every connection:

* ``hello``: ``{"type": "hello", "protocol": 2, "wftop": "0.1.0", "pid": 4242, "roots":
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

A row is `wftop.core.row.RunRow`'s ``ls --json`` shape, its names masked as ``ls`` masks
them. A view speaking to a shared engine first sends one line, ``{"type": "hello",
"protocol": 2, "wftop": "0.1.0", "want": "rows"}`` (``want``: ``rows`` or ``status``).

Every line is checked as it is read (`decode`): one that is not such a message is a
`ProtocolError` saying what was expected, and a row is checked by `RunRow.from_json`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from wftop.core.engine.version import PROTOCOL as PROTOCOL

if TYPE_CHECKING:  # what the engine writes needs neither: a view's reading imports them
    from wftop.core.attention import RunState
    from wftop.core.row import RunRow

SNAPSHOT_BATCH = 1000
"""Rows per ``rows`` message of a snapshot sent to a view that joins."""
MAX_LINE = 1 << 30
"""Longest line a view reads (one snapshot batch of rows is far below it)."""


class ProtocolError(ValueError):
    """A line of the engine's stream that is not one of its messages."""


@dataclass(frozen=True)
class Hello:
    """Who speaks: the engine's protocol and wftop version, its pid, roots and stall window."""

    protocol: int
    wftop: str
    pid: int
    roots: tuple[str, ...]
    stall_window: float


@dataclass(frozen=True)
class Progress:
    """The first cold pass has read ``read`` of ``total`` runs."""

    read: int
    total: int


@dataclass(frozen=True)
class Kept:
    """The rows of the snapshot so far are every run the rows cache kept: they may be
    listed (the rest of the snapshot, what the walk of the roots finds, follows)."""


@dataclass(frozen=True)
class Rows:
    """A batch of the runs the engine holds; ``final`` ends the snapshot (as of ``seq``)."""

    seq: int
    rows: tuple[RunRow, ...]
    final: bool
    rejected: tuple[str, ...] = ()
    """Why each row that is not a row was left out (the others stand)."""


@dataclass(frozen=True)
class Changed:
    """One change set: rows added or changed, idents removed."""

    seq: int
    rows: tuple[RunRow, ...]
    removed: tuple[str, ...]
    rejected: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProblemSeen:
    """Something the engine could not read, in one line (``<file>:<line>: <why>``)."""

    text: str
    fatal: bool = False
    """The engine failed and stopped reading (the text names its log)."""
    notice: bool = False
    """For the user at once (a toast), not only the log: the watch polls, a watch refused."""


@dataclass(frozen=True)
class Counts:
    """Runs per shown status (``wftop status``); ``complete`` once the cold pass is done."""

    counts: dict[str, int]
    complete: bool
    needy: tuple[RunState, ...] = ()
    """The runs that may need a person (a shown status of `wftop.core.model.NEEDS_YOU`)."""


@dataclass(frozen=True)
class Bye:
    """The engine goes, and says why."""

    why: str


Message = Hello | Progress | Kept | Rows | Changed | ProblemSeen | Counts | Bye


# -- writing -------------------------------------------------------------------------------

_INDENT = re.compile(rb"\n *")


def one_line(item: bytes) -> bytes:
    """A row printed indented (``ls --json``'s items, the rows cache's) on one line: JSON
    strings hold no raw newline, so every newline and the indent after it go."""
    return _INDENT.sub(b"", item) if b"\n" in item else item


def _rows(rows: Sequence[bytes]) -> bytes:
    return b"[" + b",".join(rows) + b"]"


def hello_line(hello: Hello) -> bytes:
    payload = {
        "type": "hello",
        "protocol": hello.protocol,
        "wftop": hello.wftop,
        "pid": hello.pid,
        "roots": list(hello.roots),
        "stall_window": hello.stall_window,
    }
    return orjson.dumps(payload) + b"\n"


def progress_line(read: int, total: int) -> bytes:
    return orjson.dumps({"type": "progress", "read": read, "total": total}) + b"\n"


def rows_line(seq: int, rows: Sequence[bytes], *, final: bool) -> bytes:
    """A ``rows`` message of rows already printed (one line each, masked)."""
    head = b'{"type":"rows","seq":%d,"final":%s,"rows":' % (seq, b"true" if final else b"false")
    return head + _rows(rows) + b"}\n"


KEPT_LINE = b'{"type":"kept"}\n'


def snapshot_lines(seq: int, rows: Sequence[bytes], *, final: bool) -> list[bytes]:
    """A snapshot of ``rows`` (one line each) as of change set ``seq`` in ``rows`` messages
    of at most `SNAPSHOT_BATCH` rows, the last one ``final`` if it ends the snapshot."""
    lines = []
    for start in range(0, len(rows), SNAPSHOT_BATCH):
        last = start + SNAPSHOT_BATCH >= len(rows)
        lines.append(rows_line(seq, rows[start : start + SNAPSHOT_BATCH], final=final and last))
    if final and not rows:
        lines.append(rows_line(seq, [], final=True))
    return lines


def changed_line(seq: int, rows: Sequence[bytes], removed: Sequence[str]) -> bytes:
    head = b'{"type":"changed","seq":%d,"removed":%s,"rows":' % (seq, orjson.dumps(list(removed)))
    return head + _rows(rows) + b"}\n"


def problem_line(text: str, *, fatal: bool = False, notice: bool = False) -> bytes:
    said = {"type": "problem", "text": text, "fatal": fatal, **({"notice": True} if notice else {})}
    return orjson.dumps(said) + b"\n"


def status_line(counts: dict[str, int], *, complete: bool, needy: Sequence[RunState] = ()) -> bytes:
    listed = [list(run) for run in needy]
    payload = {"type": "status", "counts": counts, "complete": complete, "needy": listed}
    return orjson.dumps(payload) + b"\n"


def bye_line(why: str) -> bytes:
    return orjson.dumps({"type": "bye", "why": why}) + b"\n"


def ask_line(want: str, wftop: str) -> bytes:
    """What a view sends a shared engine first: who it is and what it wants."""
    payload = {"type": "hello", "protocol": PROTOCOL, "wftop": wftop, "want": want}
    return orjson.dumps(payload) + b"\n"


# -- reading -------------------------------------------------------------------------------


def _field(payload: dict[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
    value = payload.get(key)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        kind_name = payload.get("type")
        raise ProtocolError(f"{kind_name}: {key} must be {what}, got {value!r:.60}")
    return value


def _row_list(payload: dict[str, Any]) -> tuple[tuple[RunRow, ...], tuple[str, ...]]:
    """The rows of a message, and why each of the others is not a row: one bad row is
    left out, not the whole message (a view asking again would get it again)."""
    from wftop.core.row import RunRow

    items = _field(payload, "rows", list, "a list of rows")
    batch = RunRow.batch_from_json(items)
    if batch is not None:  # every row as wftop prints one: read a field at a time
        return tuple(batch), ()
    return rows_each(items, payload.get("type"))


def rows_each(items: list[Any], kind: Any) -> tuple[tuple[RunRow, ...], tuple[str, ...]]:
    """The rows of a ``kind`` message read a row at a time (`RunRow.from_json`), and why
    each of the others is not a row."""
    from wftop.core.row import RowError, RunRow

    rows: list[RunRow] = []
    rejected: list[str] = []
    for at, item in enumerate(items):
        try:
            rows.append(RunRow.from_json(item))
        except RowError as error:
            rejected.append(f"{kind} row {at}: {error}")
    return tuple(rows), tuple(rejected)


def _texts(payload: dict[str, Any], key: str) -> tuple[str, ...]:
    items = _field(payload, key, list, "a list of strings")
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
            protocol=_field(payload, "protocol", int, "a whole number"),
            wftop=_field(payload, "wftop", str, "a version"),
            pid=_field(payload, "pid", int, "a process id"),
            roots=_texts(payload, "roots"),
            stall_window=float(_field(payload, "stall_window", (int, float), "seconds")),
        )
    if kind == "progress":
        read = _field(payload, "read", int, "a whole number")
        return Progress(read, _field(payload, "total", int, "a whole number"))
    if kind == "kept":
        return Kept()
    if kind == "rows":
        seq = _field(payload, "seq", int, "a whole number")
        final = _field(payload, "final", bool, "true or false")
        rows, rejected = _row_list(payload)
        return Rows(seq, rows, final, rejected)
    if kind == "changed":
        seq = _field(payload, "seq", int, "a whole number")
        rows, rejected = _row_list(payload)
        return Changed(seq, rows, _texts(payload, "removed"), rejected)
    if kind == "problem":
        fatal = payload.get("fatal", False)
        if not isinstance(fatal, bool):
            raise ProtocolError(f"problem: fatal must be true or false, got {fatal!r:.60}")
        notice = payload.get("notice", False)
        if not isinstance(notice, bool):
            raise ProtocolError(f"problem: notice must be true or false, got {notice!r:.60}")
        return ProblemSeen(_field(payload, "text", str, "a line of text"), fatal, notice)
    if kind == "status":
        counts = _field(payload, "counts", dict, "an object of counts")
        if not all(type(value) is int and value >= 0 for value in counts.values()):
            raise ProtocolError("status: counts must be whole numbers")
        complete = _field(payload, "complete", bool, "true or false")
        return Counts(counts, complete, _needy(payload.get("needy", [])))
    if kind == "bye":
        return Bye(_field(payload, "why", str, "a reason"))
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


@dataclass(frozen=True)
class Ask:
    """What a view asked a shared engine for (its first line)."""

    want: str
    wftop: str
    protocol: int


def decode_ask(line: bytes) -> Ask:
    """A view's first line to a shared engine; `ProtocolError` when it is not one."""
    try:
        payload = orjson.loads(line)
    except orjson.JSONDecodeError as error:
        raise ProtocolError(f"not a JSON line ({error})") from None
    if not isinstance(payload, dict) or payload.get("type") != "hello":
        raise ProtocolError("expected a hello first")
    want = _field(payload, "want", str, "rows or status")
    if want not in ("rows", "status"):
        raise ProtocolError(f"hello: want must be rows or status, got {want!r:.40}")
    wftop = _field(payload, "wftop", str, "a version")
    return Ask(want, wftop, _field(payload, "protocol", int, "a whole number"))
