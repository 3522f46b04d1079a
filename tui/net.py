"""The last line of defence between text and the terminal: no control character in a line
Textual draws reaches the terminal.

Every field a screen shows from disk, from a host or from the CLI is gated where it is drawn
(`wftop.core.text.gate`: a control character is shown, ``␛[2J``). Should one be missed, this
net drops what the gate would have shown: Textual turns each line of each widget into a
`textual.strip.Strip` and writes it with ``Strip.render``; `install` wraps that method so
the text of a strip's segments loses every control character, bidirectional control and
separator first (Textual measures them as zero cells wide, so nothing moves; a lone
surrogate, one cell, becomes ``�``). Segments that are control codes on purpose (a
`rich.segment.Segment` with ``control`` set) are left alone. `dropped` counts what the net
had to drop: the tests draw every screen over hostile text and expect it to stay 0.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from rich.segment import Segment
from textual.strip import Strip

from wftop.core.text.gate import BIDI, SEPARATORS


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """What the net drops, and a lone surrogate: compiled when a strip first holds either
    (the gate shows them first: a list of runs never does)."""
    return re.compile(f"[\x00-\x1f\x7f-\x9f{BIDI}{SEPARATORS}]"), re.compile("[\ud800-\udfff]")


_count = [0]


def dropped() -> int:
    """Characters the net dropped since the process started."""
    return _count[0]


def clean(text: str) -> str:
    """``text`` without what a terminal acts on (and with ``�`` for a lone surrogate)."""
    if text.isprintable():
        return text
    stopped, surrogate = _patterns()
    kept, count = stopped.subn("", text)
    kept, more = surrogate.subn("\ufffd", kept)
    _count[0] += count + more
    return kept


def _cleaned(strip: Strip) -> Strip | None:
    """A strip of the same segments with their text cleaned, or None when every one was
    clean already (a strip iterates over its segments)."""
    if all(text.isprintable() or control for text, _style, control in strip):
        return None
    segments = [
        segment if segment.control else Segment(clean(segment.text), segment.style)
        for segment in strip
    ]
    return Strip(segments)


def install() -> None:
    """Wrap ``Strip.render`` (once) so a strip's text is cleaned before it is rendered: a
    strip holding a control is rendered as a clean copy (public API only: a strip's segments
    are read by iterating over it, the copy is a new `Strip`); a clean one, as it is."""
    stock: Any = Strip.render
    if getattr(stock, "wftop_net", False):
        return

    def render(self: Strip, console: Any) -> str:
        cleaned = _cleaned(self)
        text: str = stock(self if cleaned is None else cleaned, console)
        return text

    render.wftop_net = True  # type: ignore[attr-defined]
    render.__doc__ = stock.__doc__
    Strip.render = render  # type: ignore[method-assign]
