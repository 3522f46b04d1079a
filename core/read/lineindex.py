"""Where each line of a JSON Lines file starts, for a viewer that reads only what it shows.

A `LineIndex` scans a file for newlines once, piece by piece (`update`), and keeps one
checkpoint, a line number and where that line starts, per block of `BLOCK_BYTES` that holds
a newline: a 1 GB file costs some 16,000 checkpoints, not one entry per line. Any line is
then found by reading forward from the checkpoint before it (`locate`), a block at most
besides the lines longer than a block. `read` gives the bytes of a few lines; what a line
reads as (a record, or unreadable and why) is `wftop.core.read.jsonl.line_verdict`, the one
reader's rules for one line.

An index can also keep rows: the lines where a pattern occurs (an agent transcript's
``"type":"user"`` and ``"type":"assistant"`` lines), one line number and offset per row.
`find` searches the raw bytes for a text, forward or backward from a line, wrapping around
the file.

The index notices a file that was truncated or replaced (`update` says ``"reset"``; the
caller builds a new index). Nothing here writes to the file.
"""

from __future__ import annotations

import os
import re
import threading
from array import array
from bisect import bisect_right
from dataclasses import dataclass
from typing import Final, Literal

from wftop.core.read.lineverdict import DEFAULT_MAX_LINE_BYTES, PREFIX_BYTES

BLOCK_BYTES: Final = 64 * 1024
"""One checkpoint per block of this size that holds a newline."""

SCAN_BYTES: Final = 4 * 1024 * 1024
"""Bytes read per system call while scanning."""

TAIL_BYTES: Final = 64
"""Bytes of a line kept across chunks for the row pattern (longer than any match)."""

Change = Literal["same", "grew", "reset"]


@dataclass(frozen=True)
class Line:
    """One line as read from disk: its number, its bytes and its full length."""

    number: int
    """1-based line number."""
    raw: bytes
    """The whole line, or its first `PREFIX_BYTES` when it is longer than the line limit."""
    size: int
    """Length of the line in bytes, its newline not counted."""
    complete: bool
    """The line ends with a newline (the last line of a growing file may not yet)."""


class LineIndex:
    """Line starts of one file, scanned incrementally; safe to read from another thread."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        rows: re.Pattern[bytes] | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    ) -> None:
        self.path = os.fspath(path)
        self.max_line_bytes = max_line_bytes
        self._rows = rows
        self._lock = threading.Lock()
        self._cp_line = array("q", [1])
        self._cp_offset = array("q", [0])
        self._row_line = array("q")
        self._row_offset = array("q")
        self._row_start = 0
        """Where the line being read for the row pattern starts."""
        self._row_number = 1
        """That line's number."""
        self._row_hit = False
        """The pattern occurs in the part of that line read so far."""
        self._row_tail = b""
        """The last bytes read of that line (a match may go on in the next chunk)."""
        self._identity: tuple[int, int] | None = None
        self.newlines = 0
        """Complete lines indexed (newlines seen)."""
        self.end = 0
        """Offset just after the last newline indexed: where the last, open line starts."""
        self.scanned = 0
        """Bytes scanned so far."""
        self.size = 0
        """The file's size when last looked at."""

    # -- scanning --------------------------------------------------------------------------

    @property
    def done(self) -> bool:
        """Everything the file held when last looked at is indexed."""
        return self.scanned >= self.size

    @property
    def lines(self) -> int:
        """Lines in the file: the complete ones and an open last line, if any."""
        return self.newlines + (1 if self.size > self.end else 0)

    @property
    def checkpoints(self) -> int:
        """Checkpoints kept: one per block that holds a newline, what the index costs."""
        return len(self._cp_line)

    @property
    def row_count(self) -> int:
        """Rows: every line, or the lines that match the row pattern."""
        if self._rows is None:
            return self.lines
        return len(self._row_line)

    def update(self, budget: int | None = None) -> Change:
        """Index what was appended since the last call (at most ``budget`` bytes of it)."""
        fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            info = os.fstat(fd)
            identity = (info.st_dev, info.st_ino)
            if self._identity is not None and (
                identity != self._identity or info.st_size < self.scanned
            ):
                return "reset"
            self._identity = identity
            grew = info.st_size != self.size
            self.size = info.st_size
            stop = self.size if budget is None else min(self.size, self.scanned + budget)
            while self.scanned < stop:
                length = min(SCAN_BYTES, stop - self.scanned)
                chunk = os.pread(fd, length, self.scanned)
                if not chunk:
                    break
                self._scan(chunk, len(chunk))
            return "grew" if grew else "same"
        finally:
            os.close(fd)

    def _scan(self, chunk: bytes, length: int) -> None:
        """Index the first ``length`` bytes of ``chunk`` (which starts at `scanned`)."""
        base, count = self.scanned, self.newlines
        cp_line, cp_offset = array("q"), array("q")
        last = self._cp_line[-1]
        for start in range(0, length, BLOCK_BYTES):
            stop = min(start + BLOCK_BYTES, length)
            first = chunk.find(b"\n", start, stop)
            if first < 0:
                continue
            if count + 2 > last:
                cp_line.append(count + 2)
                cp_offset.append(base + first + 1)
                last = count + 2
            count += chunk.count(b"\n", start, stop)
        if self._rows is not None:
            self._scan_rows(chunk, length)
        final = chunk.rfind(b"\n", 0, length)
        with self._lock:
            self._cp_line.extend(cp_line)
            self._cp_offset.extend(cp_offset)
            self.newlines = count
            if final >= 0:
                self.end = base + final + 1
            self.scanned = base + length

    def _scan_rows(self, chunk: bytes, length: int) -> None:
        """Rows among the lines that end in this chunk: those where the pattern occurs.

        A line is judged once its newline is read; the part read of a line that goes on
        into the next chunk is remembered (whether it matched, and its last bytes, for a
        match that straddles the two).
        """
        assert self._rows is not None
        search, base = self._rows.search, self.scanned
        start, number, hit, tail = self._row_start, self._row_number, self._row_hit, self._row_tail
        rows_line, rows_offset = array("q"), array("q")
        position = 0
        while position < length:
            newline = chunk.find(b"\n", position, length)
            stop = length if newline < 0 else newline
            if not hit:
                hit = search(chunk, position, stop) is not None or (
                    bool(tail)
                    and search(tail + chunk[position : position + TAIL_BYTES]) is not None
                )
            if newline < 0:
                tail = (tail + chunk[max(position, stop - TAIL_BYTES) : stop])[-TAIL_BYTES:]
                break
            if hit:
                rows_line.append(number)
                rows_offset.append(start)
            start, number, hit, tail = base + newline + 1, number + 1, False, b""
            position = newline + 1
        self._row_start, self._row_number, self._row_hit, self._row_tail = start, number, hit, tail
        with self._lock:
            self._row_line.extend(rows_line)
            self._row_offset.extend(rows_offset)

    # -- reading ---------------------------------------------------------------------------

    def row_line(self, row: int) -> int:
        """The line number of a row (0-based row, 1-based line)."""
        if self._rows is None:
            return row + 1
        return self._row_line[row]

    def row_of_line(self, line: int) -> int | None:
        """The row showing ``line``; None when that line is not a row."""
        if self._rows is None:
            return line - 1 if 1 <= line <= self.lines else None
        at = bisect_right(self._row_line, line) - 1
        return at if at >= 0 and self._row_line[at] == line else None

    def row_at_or_after(self, line: int) -> int | None:
        """The first row on ``line`` or after it."""
        if self._rows is None:
            return max(0, line - 1) if line <= self.lines else None
        at = bisect_right(self._row_line, line - 1)
        return at if at < len(self._row_line) else None

    def locate(self, line: int) -> int:
        """Where line ``line`` (1-based) starts."""
        if self._rows is not None:
            row = self.row_of_line(line)
            if row is not None:
                return self._row_offset[row]
        with self._lock:
            at = bisect_right(self._cp_line, line) - 1
            number, offset = self._cp_line[at], self._cp_offset[at]
        if number == line:
            return offset
        with open(self.path, "rb") as handle:
            handle.seek(offset)
            while number < line:
                block = handle.read(BLOCK_BYTES)
                if not block:
                    break
                position = 0
                while number < line:
                    newline = block.find(b"\n", position)
                    if newline < 0:
                        break
                    position, number = newline + 1, number + 1
                offset += position if number == line else len(block)
        return offset

    def line_at(self, offset: int) -> int:
        """The number of the line that holds byte ``offset``."""
        with self._lock:
            at = bisect_right(self._cp_offset, offset) - 1
            number, start = self._cp_line[at], self._cp_offset[at]
        with open(self.path, "rb") as handle:
            handle.seek(start)
            while start < offset:
                block = handle.read(min(BLOCK_BYTES, offset - start))
                if not block:
                    break
                number += block.count(b"\n")
                start += len(block)
        return number

    def read(self, first: int, count: int) -> list[Line]:
        """Lines ``first`` … ``first + count - 1`` (1-based) as they stand on disk."""
        last = min(first + count, self.lines + 1)
        if first >= last:
            return []
        lines: list[Line] = []
        with open(self.path, "rb") as handle:
            handle.seek(self.locate(first))
            for number in range(first, last):
                line = self._read_line(handle, number)
                if line is None:
                    break
                lines.append(line)
        return lines

    def read_rows(self, first: int, count: int) -> list[Line]:
        """The lines of rows ``first`` … ``first + count - 1`` (0-based rows)."""
        if self._rows is None:
            return self.read(first + 1, count)
        lines: list[Line] = []
        with open(self.path, "rb") as handle:
            for row in range(first, min(first + count, self.row_count)):
                handle.seek(self._row_offset[row])
                line = self._read_line(handle, self._row_line[row])
                if line is not None:
                    lines.append(line)
        return lines

    def _read_line(self, handle: object, number: int) -> Line | None:
        """The line at the handle's position; the handle is left at the next line."""
        from io import BufferedReader

        assert isinstance(handle, BufferedReader)
        head = handle.readline(self.max_line_bytes + 1)
        if not head:
            return None
        if head.endswith(b"\n"):
            return Line(number, head[:-1], len(head) - 1, True)
        if len(head) <= self.max_line_bytes:
            return Line(number, head, len(head), False)
        size = len(head)  # over the line limit: keep its prefix, find its end
        while True:
            more = handle.readline(SCAN_BYTES)
            size += len(more)
            if not more or more.endswith(b"\n"):
                complete = more.endswith(b"\n")
                return Line(number, head[:PREFIX_BYTES], size - complete, complete)

    # -- searching -------------------------------------------------------------------------

    def find(self, text: str, line: int, *, backward: bool = False) -> int | None:
        """The next line after ``line`` (or before it) whose bytes hold ``text``, wrapping.

        Lower-case text matches either case; text with a capital matches exactly (the smart
        case of less and vim). Only rows are found when the index keeps rows.
        """
        needle = text.encode()
        if not needle:
            return None
        fold = text == text.lower()
        if fold:
            needle = needle.lower()
        end = self.size
        start = self.locate(line + 1) if line < self.lines else end
        spans = [(0, self.locate(line)), (start, end)] if backward else [(start, end), (0, start)]
        for low, high in spans:
            found = self._find_in(needle, fold, low, high, backward)
            if found is not None:
                return found
        return None

    def _find_in(
        self, needle: bytes, fold: bool, low: int, high: int, backward: bool
    ) -> int | None:
        """The first (or last) accepted line with a match between byte ``low`` and ``high``."""
        overlap = len(needle) - 1
        position = high if backward else low
        with open(self.path, "rb") as handle:
            while (position > low) if backward else (position < high):
                begin = max(low, position - SCAN_BYTES) if backward else position
                stop = (
                    min(position + overlap, high)
                    if backward
                    else min(begin + SCAN_BYTES + overlap, high)
                )
                handle.seek(begin)
                chunk = handle.read(stop - begin)
                if not chunk:
                    return None
                hay = chunk.lower() if fold else chunk
                found = self._first_row_hit(hay, needle, begin, backward, position - begin)
                if found is not None:
                    return found
                position = begin if backward else begin + SCAN_BYTES
        return None

    def _first_row_hit(
        self, hay: bytes, needle: bytes, begin: int, backward: bool, bound: int
    ) -> int | None:
        """The line of the first hit in ``hay`` (the last, backward) that is a row.

        A hit on a line that is not a row skips the rest of that line.
        """
        at = hay.rfind(needle, 0, bound + len(needle) - 1) if backward else hay.find(needle)
        while at >= 0:
            number = self.line_at(begin + at)
            if self._rows is None or self.row_of_line(number) is not None:
                return number
            if backward:
                line_start = hay.rfind(b"\n", 0, at)
                if line_start < 0:
                    return None
                at = hay.rfind(needle, 0, line_start)
            else:
                line_end = hay.find(b"\n", at)
                if line_end < 0:
                    return None
                at = hay.find(needle, line_end + 1)
        return None
