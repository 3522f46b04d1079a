"""When an agent's transcript begins and ends, read from its two ends only.

The journal keeps no time; each agent's transcript does: every record carries a
``timestamp``. The journal table shows a ``started`` line at its agent's first record and a
``result`` or ``failed`` line at its last; the timeline draws an attempt from one to the other.
"""

from __future__ import annotations

import os
import re
from typing import Final

from wftop.core.read.snapshot import parse_iso_time

SPAN_BYTES: Final = 64 * 1024
"""Bytes read at each end of a transcript for its span (a record's timestamp is near its
end; a first record longer than this, a prompt of a book, gives no start)."""

_TIMESTAMP: Final = re.compile(rb'"timestamp":\s*"([0-9T:.+Z-]{10,40})"')


def transcript_span(path: str) -> tuple[float, float] | None:
    """When an agent's transcript begins and ends: the timestamps of its first and its last
    record (read from the first and last `SPAN_BYTES`, not the whole file); None when it
    cannot be read or holds none."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(SPAN_BYTES)
            size = handle.seek(0, os.SEEK_END)
            if size > SPAN_BYTES:
                handle.seek(size - SPAN_BYTES)
                tail = handle.read(SPAN_BYTES)
            else:
                tail = head
    except (OSError, ValueError):
        return None
    newline = head.find(b"\n")
    first = _TIMESTAMP.search(head if newline < 0 else head[:newline])
    found = _TIMESTAMP.findall(tail)
    start = parse_iso_time(first.group(1).decode()) if first else None
    end = parse_iso_time(found[-1].decode()) if found else None
    if start is None:
        start = end
    if start is None or end is None:
        return None
    return start, max(start, end)
