"""What the command line prints goes through the gate (`wftop.core.text.gate`).

Each command builds its lines and passes the text it read from disk, a host or the CLI
through `wftop.core.text.gate.shown` (masked, then one line); errors go out with `fail`, one
line each; JSON goes out with `print_json`, the one encoder (`wftop.core.text.jsonout`).
Behind all of that, `gated_output` stands for the whole run of ``wftop``: what is printed
as text passes `wftop.core.text.gate.gate_lines` on its way to the terminal, so a control
character that a command let through is shown, never acted on.

Nothing here imports more than the gate until it is called (``wftop status`` stays fast).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import IO, Any

from wftop.core.text.gate import gate_lines, shown


def fail(message: str, *, prefix: str = "wftop") -> None:
    """``wftop: <message>`` on stderr, as one line: secrets masked, controls and line
    breaks shown (a ``--root`` holding a newline does not split the message)."""
    print(f"{prefix}: {shown(message)}", file=sys.stderr)


def print_json(value: Any, *, indent: bool = True) -> None:
    """``value`` on stdout as JSON (`wftop.core.text.jsonout.dumps`) and a newline."""
    from wftop.core.text.jsonout import dumps

    write_json(dumps(value, indent=indent))


def write_json(data: bytes) -> None:
    """Encoded JSON and a newline on stdout, the text written as it is: joined to its
    newline first, the 18.6 MB of a plan of 100,000 calls was copied into 4,500 pages of
    fresh memory."""
    out = sys.stdout.buffer
    out.write(data)
    out.write(b"\n")


class GatedText:
    """A text stream whose writes pass `gate_lines` first; everything else is the stream's
    own (its ``buffer``, where JSON is written already escaped, its ``fileno``, ...)."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(gate_lines(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextlib.contextmanager
def gated_output() -> Iterator[None]:
    """Gate ``sys.stdout`` and ``sys.stderr`` (as text) while the block runs; a stream the
    block replaced (``sys.stdout = None`` once its reader went away) stays replaced."""
    names = [name for name in ("stdout", "stderr") if getattr(sys, name) is not None]
    gated = {name: GatedText(getattr(sys, name)) for name in names}
    for name, stream in gated.items():
        setattr(sys, name, stream)
    try:
        yield
    finally:
        for name, stream in gated.items():
            if getattr(sys, name) is stream:
                setattr(sys, name, stream.stream)
