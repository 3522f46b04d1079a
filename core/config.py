"""What a person may give wftop as a value, on the command line or in the config file:
a number of seconds, a count, how deep a value may nest. Each check says, in words, what
was expected; the command line and the config file put their own names on it.
"""

from __future__ import annotations

import math
import reprlib
from typing import Any, Final

MAX_SECONDS: Final = 366 * 24 * 3600.0
"""The longest time wftop takes (a year): a timer or a clock sum past it overflows."""

MAX_CONFIG_DEPTH: Final = 16
"""Arrays and inline tables nested in a config value: the deepest a key needs is 2."""


def seconds_problem(value: Any) -> str | None:
    """What is wrong with ``value`` as a number of seconds (finite, above 0, at most a
    year), or None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "a number of seconds"
    if not math.isfinite(value) or not 0 < value <= MAX_SECONDS:
        return f"a number of seconds above 0 and at most {MAX_SECONDS:.0f} (a year)"
    return None


def count_problem(value: Any, low: int, high: int) -> str | None:
    """What is wrong with ``value`` as a whole number from ``low`` to ``high``, or None."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        return f"a whole number from {low} to {high}"
    return None


_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother = 3, 60, 60
_SHORT.maxlist = _SHORT.maxdict = _SHORT.maxtuple = 6


SHOWN_CHARS: Final = 80


def shown_value(value: Any) -> str:
    """A value as an error message quotes it: its repr, cut short (a config value may be a
    megabyte, or nested deep)."""
    text = _SHORT.repr(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def toml_nesting(text: str) -> tuple[int, int, str]:
    """(depth, line, key) of the deepest nesting of arrays and inline tables in TOML text,
    and the key whose value it is, read without parsing (a parser recurses on it): strings
    and comments skipped, table headers not counted."""
    depth = deepest = 0
    line = deepest_line = 1
    key = deepest_key = ""
    start, at, end = 0, 0, len(text)  # `start`: where the current line began
    while at < end:
        char = text[at]
        if char == "\n":
            line += 1
            start = at + 1
        elif char == "#":
            at = _line_end(text, at)
            continue
        elif char in "\"'":
            at, lines = _string_end(text, at)
            line += lines
            if lines:
                start = text.rfind("\n", 0, at) + 1
            continue
        elif char == "=" and depth == 0:
            key = text[start:at].strip()
        elif char in "[{":
            if depth == 0 and char == "[" and not text[start:at].strip():
                at = _line_end(text, at)  # a table header: [name] or [[name]]
                continue
            depth += 1
            if depth > deepest:
                deepest, deepest_line, deepest_key = depth, line, key
        elif char in "]}" and depth:
            depth -= 1
        at += 1
    return deepest, deepest_line, deepest_key


def _line_end(text: str, at: int) -> int:
    newline = text.find("\n", at)
    return len(text) if newline < 0 else newline


def _string_end(text: str, at: int) -> tuple[int, int]:
    """Where the string that opens at ``at`` ends (just past it), and how many newlines
    it holds. A basic string (``"``) has escapes; a literal one (``'``) has none."""
    quote = text[at]
    triple = text.startswith(quote * 3, at)
    closing = quote * 3 if triple else quote
    at += len(closing)
    newlines = 0
    while at < len(text):
        char = text[at]
        if char == "\\" and quote == '"':
            newlines += text.startswith("\n", at + 1)
            at += 2
            continue
        if char == "\n":
            if not triple:
                break  # an unclosed one-line string: the parser says so
            newlines += 1
        if text.startswith(closing, at):
            return at + len(closing), newlines
        at += 1
    return at, newlines
