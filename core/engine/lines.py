"""What the engine writes on its stream: each message as its line (`hello_line`,
`rows_line`, …), and the first line a view sends a shared engine read back (`decode_ask`).
What each message says, and how a view reads the stream: `wftop.core.engine.protocol`,
which holds these too. The engine imports this alone before its kept rows are out: none
of the messages a view decodes is made for it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import orjson

from wftop.core.compared import record
from wftop.core.engine.version import PROTOCOL as PROTOCOL

if TYPE_CHECKING:
    from wftop.core.attention import RunState

SNAPSHOT_BATCH = 1000
"""Rows per ``rows`` message of a snapshot sent to a view that joins."""


class ProtocolError(ValueError):
    """A line of the engine's stream that is not one of its messages."""


@record
class Hello:
    """Who speaks: the engine's protocol and wftop version, its pid, roots and stall window."""

    protocol: int
    wftop: str
    pid: int
    roots: tuple[str, ...]
    stall_window: float


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


def checked_field(
    payload: dict[str, Any], key: str, kind: type | tuple[type, ...], what: str
) -> Any:
    value = payload.get(key)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        kind_name = payload.get("type")
        raise ProtocolError(f"{kind_name}: {key} must be {what}, got {value!r:.60}")
    return value


@record
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
    want = checked_field(payload, "want", str, "rows or status")
    if want not in ("rows", "status"):
        raise ProtocolError(f"hello: want must be rows or status, got {want!r:.40}")
    wftop = checked_field(payload, "wftop", str, "a version")
    return Ask(want, wftop, checked_field(payload, "protocol", int, "a whole number"))
