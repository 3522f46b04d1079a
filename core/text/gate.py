"""The gate every string from disk, from a host or from the CLI passes on its way to a
terminal: what a terminal would act on is shown, never passed.

A journal's labels, phases, results and names are written by scripts a model authored and
by sub-agents that read the web; printed raw, ``ESC ] 52 ; c ; … BEL`` sets the clipboard,
``ESC [ 2J`` clears the screen, U+009B is a CSI to a terminal that honours 8-bit controls
and U+202E turns the rest of a line around. Here each of them becomes printable text:

* ESC and the other C0 controls, their picture (``␛``, ``␇``, ``␀`` …), so ``ESC [2J``
  reads ``␛[2J``; a newline ``↵`` and a tab ``⇥`` where one line is wanted (`gate`), kept
  where lines are (`gate_lines`); DEL ``␡``;
* the C1 controls (U+0080–U+009F), ``\\x9b``;
* the bidirectional controls (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069) and the line
  and paragraph separators (U+2028/9), ``\\u202e``;
* a lone surrogate (a byte of a name that was not UTF-8, as ``surrogateescape`` reads it),
  ``\\xNN``, else ``\\udNNN``: it cannot be written to a terminal at all.

Every replacement is printable, so the gate's output passes it unchanged (it is
idempotent) and its width is what a table measures. A person sees ``gate(redact(text))``
(`shown`): secrets are masked first, on the text as it was written. JSON keeps every value
as it was, escaped (`escape_json`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import Final

from wftop.core.text.prefilter import may_hold_secret

BIDI: Final = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
"""Bidirectional marks, embeddings, overrides and isolates: shown as ``\\u…``."""
SEPARATORS: Final = "\u2028\u2029"
"""Line and paragraph separators (some readers split lines at them): shown as ``\\u…``."""

_UNSAFE: Final = re.compile(f"[\x00-\x1f\x7f-\x9f{BIDI}{SEPARATORS}\ud800-\udfff]")


@cache
def _unsafe_in_lines() -> re.Pattern[str]:
    """`_UNSAFE` less the newline and the tab, which `gate_lines` keeps: compiled when text
    of several lines that holds a control is first met (4.4 M instructions, which a list of
    runs never needs)."""
    return re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}{SEPARATORS}\ud800-\udfff]")


def _picture(char: str) -> str:
    code = ord(char)
    if char == "\n":
        return "↵"
    if char == "\t":
        return "⇥"
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␀ … ␛ … ␟
    if code == 0x7F:
        return "␡"
    if code <= 0x9F:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, read with surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def _visible(match: re.Match[str]) -> str:
    """What a character the gate stops is shown as (`_picture`: made when it is met, where
    a table of the 2,200 such characters was made at every start, 1.5 ms)."""
    return _picture(match.group())


def gate(text: str) -> str:
    """``text`` as one line a terminal shows and never acts on: every control character,
    bidirectional control and separator, newlines and tabs included, made visible.

    Clean text (nearly all of it) costs one `str.isprintable`: it is false for every
    character the gate stops (and for a few harmless ones, such as a no-break space,
    which the slower path leaves as they are)."""
    if text.isprintable():
        return text
    return _UNSAFE.sub(_visible, text)


def gate_lines(text: str) -> str:
    """`gate` for text of several lines: newlines and tabs are kept, the rest is shown."""
    if text.isprintable():
        return text
    return _unsafe_in_lines().sub(_visible, text)


def gate_each(lines: Iterable[str]) -> str:
    """Lines a program made, each holding text from disk, gated one by one and joined: a
    newline in that text is shown (``↵``), never a line of its own."""
    return "\n".join(map(gate, lines))


def shown(text: str) -> str:
    """Text as a person sees it: secrets masked (on the text as it was written), then
    gated to one line."""
    return gate(masked(text))


def masked(text: str) -> str:
    """`wftop.core.text.redact.redact` of ``text``, whose patterns are loaded only for text
    the quick test finds something in (`may_hold_secret`, the test it starts with): a
    command that shows no such text loads none of them."""
    if not may_hold_secret(text):
        return text
    from wftop.core.text.redact import redact

    return redact(text)


def shown_lines(text: str) -> str:
    """`shown` for text of several lines (`gate_lines`)."""
    return gate_lines(masked(text))


def shown_each(lines: Iterable[str]) -> str:
    """`gate_each` of the lines, each masked first."""
    return "\n".join(shown(line) for line in lines)


def not_copyable(value: str) -> str | None:
    """Why ``value`` should not go to a clipboard (where a shell may paste it), or None.

    A control character or a newline in what a person pastes acts there: a newline runs
    the line, an escape drives the terminal."""
    found = _UNSAFE.search(value)
    if found is None:
        return None
    char = found.group()
    if char in "\r\n":
        return "it holds a line break"
    if char in BIDI + SEPARATORS:
        return f"it holds a bidirectional control ({_picture(char)})"
    return f"it holds a control character ({_picture(char)})"


# -- JSON ------------------------------------------------------------------------------------

_JSON_UNSAFE: Final = re.compile(
    rb"\x7f|\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8e\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]"
)
"""DEL, the C1 controls, U+061C, U+200E/F, U+2028–U+202E and U+2066–U+2069 in UTF-8. In
valid UTF-8 a lead byte never follows a byte that is part of another character, so these
are only ever those characters."""


_JSON_LEADS: Final = (b"\x7f", b"\xc2", b"\xd8", b"\xe2")
"""The byte every character `_JSON_UNSAFE` finds begins with: text without any of them holds
none. A search for one byte is a ``memchr``; longer needles and the expression itself look
through 10 MB in 20 to 100 ms."""


def escape_json(data: bytes) -> bytes:
    """JSON text (UTF-8) with DEL, the C1 controls and the bidirectional controls and
    separators escaped as ``\\u…``, which a JSON encoder such as orjson writes raw. In
    valid JSON such characters only occur inside strings, where the escape means the same
    character: a reader gets the same values, a terminal that shows the text gets no
    control.

    Byte searches find where such a character may begin (`_JSON_LEADS`) and only there is
    the expression tried: 10 MB of ``ls --json`` is looked through in about 1 ms when it is
    ASCII; each ``\\xe2`` (a ``✔``, a ``—``) costs a look of about half a microsecond."""
    if data.isascii():  # nearly always: only DEL may be there
        return data.replace(b"\x7f", b"\\u007f")  # ``data`` itself where there is none
    found: list[tuple[int, int]] = []
    for lead in _JSON_LEADS:
        at = data.find(lead)
        while at >= 0:  # where such a character may begin
            match = _JSON_UNSAFE.match(data, at)
            if match is not None:
                found.append(match.span())
            at = data.find(lead, at + 1)
    if not found:
        return data
    found.sort()
    out, start = [], 0
    for begin, end in found:
        out += [data[start:begin], f"\\u{ord(data[begin:end].decode()):04x}".encode()]
        start = end
    out.append(data[start:])
    return b"".join(out)
