"""How the CLI reads one JSON line (``JSON.parse`` of UTF-8 text), and nothing else.

`wftop.core.read.jsonl` cuts a file into lines and reads each one here.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson


class UnreadableLine(ValueError):
    """A line the CLI's reader cannot parse either; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _number(text: str) -> Any:
    """An integer literal as orjson reads it: an int within 64 bits, else a double."""
    value = int(text)
    return value if -(2**63) <= value < 2**64 else float(text)


_LENIENT = json.JSONDecoder(parse_constant=_reject_constant, parse_int=_number)


def parse_line(raw: bytes) -> Any:
    """Parse one line as the CLI does: any JSON value, or `UnreadableLine`.

    orjson first; only a line it refuses is decoded as the CLI decodes the file (invalid
    UTF-8 replaced) and parsed by a decoder that accepts lone surrogates (read as U+FFFD)
    and ``1e999`` (infinity), but refuses ``NaN`` and ``Infinity``.
    """
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass
    return parse_lenient(raw)


def parse_lenient(raw: bytes) -> Any:
    """A line orjson refused, read as ``JSON.parse`` reads it, or `UnreadableLine`."""
    try:
        text = raw.decode("utf-8")
        reason = "not valid JSON"
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        reason = "invalid UTF-8"
    try:
        value = _LENIENT.decode(text)
    except (ValueError, RecursionError):
        raise UnreadableLine(reason) from None
    return _without_lone_surrogates(value)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""A surrogate left in a decoded string: decoding joined every escaped pair already."""


def _without_lone_surrogates(value: Any) -> Any:
    """``value`` with every lone surrogate, in strings and keys, read as U+FFFD."""
    if type(value) is str:
        return _LONE_SURROGATE.sub("\ufffd", value)
    if type(value) is dict:
        return {
            _without_lone_surrogates(key): _without_lone_surrogates(item)
            for key, item in value.items()
        }
    if type(value) is list:
        return [_without_lone_surrogates(item) for item in value]
    return value


def read_record(raw: bytes) -> dict[str, Any]:
    """One line as a record (a JSON object), or `UnreadableLine` with the reason."""
    value = parse_line(raw)
    if type(value) is not dict:
        raise UnreadableLine(f"expected a JSON object, got {type(value).__name__}")
    return value
