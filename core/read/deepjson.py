"""JSON nested deeper than Python should hold it: read without recursion, kept as its text.

``JSON.parse`` reads any nesting (200,000 levels and more); orjson reads 1,024 levels and
writes 254, Python's own decoder stops near 1,000, and every walk of a parsed value in
Python (masking, copying, comparing, pickling) recurses. So a line's value is held as
Python objects down to `MAX_DEPTH` levels, what orjson writes; an array or object that
opens deeper is a `DeepJson`: its compact text, read and checked without recursion
(`parse_deep`). Nothing wftop holds is deeper than orjson writes, and what deals with a
`DeepJson` treats it as one value: `dumps` writes it back as the JSON it was, `layout`
shows it (or anything too deep to lay out) as compact text with a note, and
`DeepJson.map_strings` masks its strings.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from json import JSONDecoder
from typing import Any, Final

import orjson

MAX_DEPTH: Final = 254
"""Levels of arrays and objects held as Python objects, counted from a line's root (the
record is level 1): what orjson writes (it refuses 255), so whether a parsed line nests
deeper is one ``orjson.dumps`` away (`held`); under Python's recursion limit (1,000)."""

LAYOUT_DEPTH: Final = 64
"""Levels laid out over lines with indents: a value nested deeper is shown compact."""

_TOKEN: Final = re.compile(
    r"[ \t\n\r]*(?:([\[{])|([\]}])|(,)|(:)"
    r'|("(?:[^"\\\x00-\x1f]++|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*+")'
    r"|(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)|(true|false|null))"
)
"""One token of JSON after its whitespace: open, close, comma, colon, a string (no control
character, only the escapes JSON has), a number, a literal (``[0-9]``: ``\\d`` would match
other digits too)."""
_OPEN, _CLOSE, _COMMA, _COLON, _STRING, _NUMBER, _LITERAL = range(1, 8)
_LITERALS: Final = {"true": True, "false": False, "null": None}
_WHITESPACE: Final = " \t\n\r"

_SURROGATE: Final = re.compile("[\ud800-\udfff]")
"""A surrogate left in a decoded string: decoding joined every escaped pair already, so
this one is alone, and ``JSON.parse`` reads it as U+FFFD."""

# What the parser expects next.
_VALUE, _FIRST_VALUE, _KEY, _FIRST_KEY, _COLON_NEXT, _NEXT, _END = range(7)


class DeepJson:
    """An array or object that opened past `MAX_DEPTH` levels, kept as its compact JSON
    text (strings as orjson writes them, numbers as they were written, lone surrogates
    read as U+FFFD). Equal when the text is."""

    __slots__ = ("depth", "text")

    def __init__(self, text: str, depth: int) -> None:
        self.text = text
        self.depth = depth
        """Levels of arrays and objects in the value itself (``[[1]]`` is 2)."""

    def __eq__(self, other: object) -> bool:
        return type(other) is DeepJson and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"DeepJson(depth={self.depth}, {len(self.text)} characters)"

    def __getstate__(self) -> tuple[str, int]:
        return self.text, self.depth

    def __setstate__(self, state: tuple[str, int]) -> None:
        self.text, self.depth = state

    def strings(self) -> Iterator[str]:
        """Every string value in it (not the keys), in order."""
        for match in _STRING_TOKEN.finditer(self.text):
            if not _is_key(self.text, match.end()):
                yield _decode_string(match.group())

    def map_strings(self, change: Callable[[str], str]) -> DeepJson:
        """The same value with every string value (not the keys) passed through ``change``;
        itself when nothing changed."""
        text, start = self.text, 0
        parts: list[str] = []
        for match in _STRING_TOKEN.finditer(text):
            if _is_key(text, match.end()):
                continue
            value = _decode_string(match.group())
            changed = change(value)
            if changed != value:
                parts += (text[start : match.start()], orjson.dumps(changed).decode())
                start = match.end()
        if not parts:
            return self
        parts.append(text[start:])
        return DeepJson("".join(parts), self.depth)


_STRING_TOKEN: Final = re.compile(r'"(?:[^"\\]++|\\.)*+"')
"""A string in compact JSON text (a `DeepJson`'s, where no quote stands outside one)."""


def _is_key(text: str, end: int) -> bool:
    return text.startswith(":", end)


_STRINGS: Final = JSONDecoder()


def _decode_string(quoted: str) -> str:
    """A JSON string's value (``quoted`` is valid), lone surrogates read as U+FFFD."""
    if "\\" not in quoted:
        return quoted[1:-1]
    string: str = _STRINGS.decode(quoted)
    return _SURROGATE.sub("\ufffd", string) if _SURROGATE.search(string) else string


def read_number(text: str) -> Any:
    """A JSON number as orjson reads it: an integer within 64 bits, else a double (one
    that overflows is infinite, as ``JSON.parse`` has it; a very long integer too, which
    ``int()`` would refuse)."""
    if "." in text or "e" in text or "E" in text or len(text) > 21:
        return float(text)
    value = int(text)
    return value if -(2**63) <= value < 2**64 else float(text)


def parse_deep(text: str, limit: int = MAX_DEPTH) -> Any:
    """``text`` read as ``JSON.parse`` reads it, at any depth, without recursion; raises
    ValueError where ``JSON.parse`` throws.

    Arrays and objects down to ``limit`` levels are Python lists and dicts; one that opens
    deeper is a `DeepJson` of its compact text. Lone surrogates read as U+FFFD, an integer
    beyond 64 bits and a number too large for a double as doubles (``1e999`` is infinite),
    ``NaN`` and ``Infinity`` are no JSON; a repeated key keeps its last value.
    """
    match_token = _TOKEN.match
    kinds: list[str] = []  # "[" or "{" of every open array or object, outermost first
    held: list[Any] = []  # the open ones held as Python objects (the outer `limit`)
    keys: list[str] = []  # the key each open object held waits to give a value
    parts: list[str] | None = None  # the text of the one kept as text, while it is open
    kept_at = deepest = 0  # the level it opened at, and the deepest level inside it
    root: Any = None
    expect, pos = _VALUE, 0
    while True:
        match = match_token(text, pos)
        if match is None:
            if expect == _END and not text[pos:].strip(_WHITESPACE):
                return root
            raise ValueError(f"not valid JSON at character {pos}")
        pos = match.end()
        token = match.lastindex
        if token == _STRING:
            string = _decode_string(match.group(token))
            if expect in (_KEY, _FIRST_KEY):
                if parts is not None:
                    parts.append(orjson.dumps(string).decode())
                else:
                    keys[-1] = string
                expect = _COLON_NEXT
                continue
            value: Any = string
            written = string if parts is None else orjson.dumps(string).decode()
        elif token in (_NUMBER, _LITERAL):
            written = match.group(token)
            value = read_number(written) if token == _NUMBER else _LITERALS[written]
        elif token == _OPEN:
            if expect not in (_VALUE, _FIRST_VALUE):
                raise ValueError(f"not valid JSON at character {pos - 1}")
            kind = match.group(token)
            kinds.append(kind)
            level = len(kinds)
            if parts is not None:
                parts.append(kind)
                deepest = max(deepest, level)
            elif level > limit:
                parts, kept_at, deepest = [kind], level, level
            else:
                held.append([] if kind == "[" else {})
                keys.append("")
            expect = _FIRST_VALUE if kind == "[" else _FIRST_KEY
            continue
        elif token == _CLOSE:
            kind = match.group(token)
            if not kinds or (kind == "]") != (kinds[-1] == "["):
                raise ValueError(f"not valid JSON at character {pos - 1}")
            if expect not in (_NEXT, _FIRST_VALUE if kind == "]" else _FIRST_KEY):
                raise ValueError(f"not valid JSON at character {pos - 1}")
            level = len(kinds)
            kinds.pop()
            if parts is not None:
                parts.append(kind)
                if level > kept_at:
                    expect = _NEXT
                    continue
                value = DeepJson("".join(parts), deepest - kept_at + 1)
                parts = None
            else:
                value = held.pop()
                keys.pop()
            if not kinds:
                root, expect = value, _END
            else:
                _give(held, keys, kinds[-1], value)
                expect = _NEXT
            continue
        elif token == _COMMA:
            if expect != _NEXT or not kinds:
                raise ValueError(f"not valid JSON at character {pos - 1}")
            if parts is not None:
                parts.append(",")
            expect = _VALUE if kinds[-1] == "[" else _KEY
            continue
        else:  # a colon
            if expect != _COLON_NEXT:
                raise ValueError(f"not valid JSON at character {pos - 1}")
            if parts is not None:
                parts.append(":")
            expect = _VALUE
            continue
        # A string, number or literal as a value.
        if expect not in (_VALUE, _FIRST_VALUE):
            raise ValueError(f"not valid JSON at character {match.start(token)}")
        if parts is not None:
            parts.append(written)
            expect = _NEXT
        elif not kinds:
            root, expect = value, _END
        else:
            _give(held, keys, kinds[-1], value)
            expect = _NEXT


def _give(held: list[Any], keys: list[str], kind: str, value: Any) -> None:
    """Put a finished value into the innermost array or object held."""
    if kind == "[":
        held[-1].append(value)
    else:
        held[-1][keys[-1]] = value


def held(raw: bytes, value: Any) -> Any:
    """What orjson read from the UTF-8 line ``raw``, or, when it nests deeper than orjson
    writes (`MAX_DEPTH`), ``raw`` read again with what opens deeper kept as text."""
    try:
        orjson.dumps(value)
    except TypeError:  # nested too deep: orjson reads 1,024 levels, writes 254
        return parse_deep(raw.decode())
    return value


def writable(value: Any) -> bool:
    """Whether orjson writes ``value`` as wftop holds it (each `DeepJson` as its text):
    False where it nests deeper than orjson writes (a value `held` has not looked at)."""
    try:
        orjson.dumps(value, default=_fragment)
    except TypeError:
        return False
    return True


# -- writing and showing -----------------------------------------------------------------------


def _fragment(value: Any) -> Any:
    if type(value) is DeepJson:
        return orjson.Fragment(value.text)
    raise TypeError(f"Type is not JSON serializable: {type(value).__name__}")


OUTPUT_DEPTH: Final = 128
"""Levels an output lays out when a value held at `MAX_DEPTH` would take it past what
orjson writes (the value sits inside the output's own objects): deeper ones go compact."""


def dumps(value: Any, option: int = 0) -> bytes:
    """``orjson.dumps`` of a value that may hold `DeepJson`, each written as the JSON it was
    (compact, whatever ``option`` says of the rest). A value held at `MAX_DEPTH` that an
    output puts inside objects of its own is written with its levels past `OUTPUT_DEPTH`
    compact: the same JSON, laid out less."""
    try:
        return orjson.dumps(value, option=option, default=_fragment)
    except TypeError:
        compact = _compact_below(value, OUTPUT_DEPTH)
        if compact is value:
            raise
        return orjson.dumps(compact, option=option, default=_fragment)


def _compact_below(value: Any, level: int) -> Any:
    """A copy of ``value`` with every array or object at ``level`` written as a `DeepJson`
    (orjson writes each: what wftop holds is no deeper than it writes); ``value`` itself
    when it nests no deeper. No recursion."""
    made: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, int]] = [(value, made, 0, 1)]
    changed = False
    while stack:
        item, into, at, depth = stack.pop()
        if type(item) is not dict and type(item) is not list:
            into[at] = item
        elif depth >= level:
            text = orjson.dumps(item, default=_fragment).decode()
            into[at] = DeepJson(text, json_depth(item))
            changed = True
        elif type(item) is dict:
            into[at] = copy = dict.fromkeys(item)
            stack += [(inner, copy, key, depth + 1) for key, inner in item.items()]
        else:
            into[at] = listed = [None] * len(item)
            stack += [(inner, listed, index, depth + 1) for index, inner in enumerate(item)]
    return made[0] if changed else value


def json_depth(value: Any) -> int:
    """Levels of arrays and objects in a value (0 for a string or number), a `DeepJson`'s
    counted in, without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if type(item) is DeepJson:
            deepest = max(deepest, level - 1 + item.depth)
        elif type(item) is dict or type(item) is list:
            deepest = max(deepest, level)
            items = item.values() if type(item) is dict else item
            stack += [(x, level + 1) for x in items if type(x) in _NESTED]
    return deepest


_NESTED: Final = (dict, list, DeepJson)


def depth_note(value: Any) -> str | None:
    """Why a value is shown as compact text (it nests deeper than `LAYOUT_DEPTH`), or None."""
    depth = json_depth(value)
    if depth <= LAYOUT_DEPTH:
        return None
    return f"nested {depth:,} levels deep: too deep to lay out, shown as compact JSON"


def compact(value: Any) -> Any:
    """A value too deep to lay out as one `DeepJson` of its compact text (an output writes
    it compact); any other value as it is."""
    depth = json_depth(value)
    if depth <= LAYOUT_DEPTH or type(value) is DeepJson:
        return value
    return DeepJson(dumps(value).decode(), depth)


def layout(value: Any) -> tuple[str, str | None]:
    """A JSON value as a person reads it: laid out over lines with two-space indents, or,
    when it nests deeper than `LAYOUT_DEPTH`, as its compact text and a note that says
    why (`depth_note`)."""
    note = depth_note(value)
    if note is None:
        try:
            return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode(), None
        except TypeError:  # not plain JSON (a lone surrogate): as repr below
            pass
    try:
        return dumps(value).decode(), note
    except TypeError:
        return repr(value), note
