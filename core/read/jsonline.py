"""How the CLI reads one JSON line (``JSON.parse`` of UTF-8 text), and nothing else.

`wftop.core.read.jsonl` cuts a file into lines and reads each one here. Any nesting reads;
what opens past `wftop.core.read.deepjson.MAX_DEPTH` levels is kept as its text
(`wftop.core.read.deepjson.DeepJson`).
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from wftop.core.read.deepjson import MAX_DEPTH, held, parse_deep, read_number


class UnreadableLine(ValueError):
    """A line the CLI's reader cannot parse either; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_LENIENT = json.JSONDecoder(parse_constant=_reject_constant, parse_int=read_number)

SHALLOW_BYTES = 2 * MAX_DEPTH + 1
"""A line this long or shorter nests no deeper than `MAX_DEPTH`: each level takes two bytes."""


def parse_line(raw: bytes) -> Any:
    """Parse one line as the CLI does: any JSON value, or `UnreadableLine`.

    orjson first; only a line it refuses is decoded as the CLI decodes the file (invalid
    UTF-8 replaced) and parsed by a decoder that accepts lone surrogates (read as U+FFFD)
    and ``1e999`` (infinity), but refuses ``NaN`` and ``Infinity``. Any nesting reads: what
    opens deeper than `MAX_DEPTH` is kept as its text (`wftop.core.read.deepjson`).
    """
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return parse_lenient(raw)
    return value if len(raw) <= SHALLOW_BYTES else held(raw, value)


def parse_shallow(raw: bytes) -> Any:
    """`parse_line` for a reader that holds the value only after a look of its own: what
    nests deeper than `MAX_DEPTH` is left as orjson read it, not held yet
    (`wftop.core.read.deepjson.held`, which writes the whole value again to find it out).
    Values within `MAX_DEPTH` levels are `parse_line`'s."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return parse_lenient(raw)


def parse_lenient(raw: bytes) -> Any:
    """A line orjson refused, read as ``JSON.parse`` reads it, or `UnreadableLine`.

    Python's decoder reads it; what orjson then cannot write (a lone surrogate, or nesting
    past `MAX_DEPTH`), or what nests too deep for Python's decoder (about 1,000 levels), is
    read again by `wftop.core.read.deepjson.parse_deep`, without recursion."""
    try:
        text = raw.decode("utf-8")
        reason = "not valid JSON"
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        reason = "invalid UTF-8"
    try:
        value = _LENIENT.decode(text)
        orjson.dumps(value)
    except RecursionError:
        pass
    except TypeError:  # a lone surrogate, or nested past MAX_DEPTH
        pass
    except ValueError:
        raise UnreadableLine(reason) from None
    else:
        return value
    try:
        return parse_deep(text)
    except ValueError:
        raise UnreadableLine(reason) from None


def read_record(raw: bytes) -> dict[str, Any]:
    """One line as a record (a JSON object), or `UnreadableLine` with the reason."""
    value = parse_line(raw)
    if type(value) is not dict:
        raise UnreadableLine(f"expected a JSON object, got {type(value).__name__}")
    return value
