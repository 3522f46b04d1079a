"""What one complete line of a JSONL file reads as, by the rules the CLI reads it by: its
record, why it cannot be read, or nothing (an empty line); a line too long to read whole
keeps the small fields that open it, and a long result is elided.
"""

from __future__ import annotations

import re
from typing import Any, Final

from wftop.core.read.jsonline import (
    UnreadableLine,
    parse_line,
)

DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024
"""The line limit: a longer line is not parsed whole (see `ELIDED`)."""


PREFIX_BYTES = 64 * 1024
"""How much of an oversized line is kept to recover its leading fields."""


ELIDED = "<elided>"
"""Value put in place of a ``result`` that was not read or not kept."""


ELIDED_BYTES: Final = "_elided_bytes"
"""Field added to a record whose ``result`` was elided: the length of its line."""


JSON_SPACE: Final = b" \t\r"
"""JSON whitespace besides the newline that ends a line."""


_LEADING_FIELD = re.compile(rb'"(type|key|agentId|label|phase)":"((?:[^"\\]|\\.){0,512})"')


def elide_result(record: dict[str, Any], size: int) -> dict[str, Any]:
    """The record of a line of ``size`` bytes with its ``result`` not kept."""
    if "result" in record:
        record["result"] = ELIDED
        record[ELIDED_BYTES] = size
    return record


def recover_leading_fields(prefix: bytes) -> dict[str, Any] | None:
    """Rebuild the small string fields that open a compact JSON object line.

    Journal lines are written with ``type`` first and the (possibly huge) ``result``
    after ``key`` and ``agentId``, so those survive when the rest is not read.
    """
    if not prefix.startswith(b"{"):
        return None
    record: dict[str, Any] = {}
    for match in _LEADING_FIELD.finditer(prefix[:PREFIX_BYTES]):
        name = match.group(1).decode()
        if name in record:
            continue
        try:
            record[name] = parse_line(b'"' + match.group(2) + b'"')
        except UnreadableLine:
            continue
    if "type" not in record:
        return None
    if record["type"] == "result":
        record["result"] = ELIDED
    return record


def line_verdict(
    raw: bytes,
    size: int,
    *,
    keep_bytes: int | None = None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
) -> dict[str, Any] | str | None:
    """What one complete line reads as, by the rules of `JsonlTail`: its record, why it is
    unreadable, or None for an empty line (which the reader skips).

    ``raw`` is the whole line, or its first `PREFIX_BYTES` when ``size`` is over the limit.
    A record of a line longer than ``keep_bytes`` has its ``result`` elided.
    """
    if size > max_line_bytes:
        record = recover_leading_fields(raw[:PREFIX_BYTES])
        if record is None:
            return f"line of {size} bytes is too long to read (and not compact JSON)"
        record[ELIDED_BYTES] = size
        return record
    if not raw:
        return None
    try:
        value = parse_line(raw)
    except UnreadableLine as error:
        return error.reason if raw.strip(JSON_SPACE) else "a line of only whitespace"
    if type(value) is not dict:
        return f"expected a JSON object, got {type(value).__name__}"
    keep = max_line_bytes if keep_bytes is None else min(keep_bytes, max_line_bytes)
    return value if size <= keep else elide_result(value, size)
