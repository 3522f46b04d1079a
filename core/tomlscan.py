"""TOML text read without parsing it: how deep its values nest and where its keys are.

A TOML parser recurses on nested arrays and inline tables (a config nested thousands deep
is a `RecursionError`), and says nothing of where a key sits in the file. These scans read
the text as it is: strings and comments skipped, table headers told apart from arrays, so
the config's errors can name the line of what they refuse.
"""

from __future__ import annotations

import re


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


_HEADER = re.compile(r"""\s*\[\s*([^\[\]#]*?)\s*\]\s*(?:#.*)?$""")
_KEY = r"""(?:"([^"\\]*)"|'([^']*)'|([A-Za-z0-9_-]+))"""
_ENTRY = re.compile(rf"\s*{_KEY}\s*=")
_DOTTED = re.compile(rf"\s*{_KEY}\s*\.\s*{_KEY}\s*=")
_INLINE = re.compile(rf"\s*{_KEY}\s*=\s*\{{")
_INLINE_ENTRY = re.compile(rf"[{{,]\s*{_KEY}\s*=")


def _name(match: re.Match[str], first: int = 1) -> str:
    return next(part for part in match.groups()[first - 1 : first + 2] if part is not None)


def key_lines(text: str, table: str) -> dict[str, int]:
    """The 1-based line of each key of the top-level ``table`` in TOML text: the keys under
    its ``[table]`` header, ``table.key = …`` lines, and an inline ``table = {key = …}``.
    A key written twice keeps its first line (the parser refuses the second)."""
    found: dict[str, int] = {}
    current: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("[["):  # an array of tables: none of ``table``'s keys
            current = ""
            continue
        header = _HEADER.match(line)
        if header is not None:
            current = header.group(1).strip("\"'")
            continue
        if current == table:
            entry = _ENTRY.match(line)
            if entry is not None:
                found.setdefault(_name(entry), number)
            continue
        if current is not None:
            continue
        dotted = _DOTTED.match(line)
        if dotted is not None and _name(dotted) == table:
            found.setdefault(_name(dotted, 4), number)
            continue
        inline = _INLINE.match(line)
        if inline is not None and _name(inline) == table:
            for entry in _INLINE_ENTRY.finditer(line, inline.end() - 1):
                found.setdefault(_name(entry), number)
    return found
