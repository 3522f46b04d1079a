"""A line another host printed, read as the CLI's journals are read.

What a host prints (its ``ls --watch --json`` stream, the events of a resume it runs, its
``status --format json``, what ``supervise`` relays) comes over ssh from a machine this one
does not control. It is read by `wftop.core.read.jsonline.parse_line`, as every journal line
is: any nesting reads (100,000 levels and more, without recursion; what opens deeper than
orjson writes is held as its text), and a line that is no JSON is a `HostLineError`, one
line naming the host and the line.
"""

from __future__ import annotations

from typing import Any

from wftop.core.read.jsonline import UnreadableLine, parse_line


class HostLineError(ValueError):
    """A line a host printed that cannot be read: ``host: line N: why``."""

    def __init__(self, host: str, number: int, reason: str) -> None:
        super().__init__(f"{host}: line {number}: {reason}")
        self.host = host
        self.number = number
        self.reason = reason

    @property
    def where(self) -> str:
        """``line N: why``, for a message that names the host already."""
        return f"line {self.number}: {self.reason}"


def host_line(host: str, number: int, raw: bytes) -> Any:
    """Line ``number`` (from 1) that ``host`` printed, as ``JSON.parse`` reads it."""
    try:
        return parse_line(raw.rstrip(b"\r\n"))
    except UnreadableLine as error:
        raise HostLineError(host, number, error.reason) from None
