"""The one reader of JSON Lines files, journals first: bytes in, (line number, record) out.

Every view of a journal (run list and live index, plan and forecast, heal and relocation,
journal screen, forensics, drill, tripwire) reads it here, and sees what the CLI's own
reader sees (the rules, for people: ``docs/on-disk-format.md``, *How the lines are read*):

* a line orjson refuses is parsed again as ``JSON.parse`` reads the CLI's UTF-8 text
  (`wftop.core.read.jsonline`): invalid UTF-8 and lone surrogate escapes read as U+FFFD,
  ``1e999`` is infinite, ``NaN`` and ``Infinity`` stay unreadable, any nesting reads (what
  opens past `wftop.core.read.deepjson.MAX_DEPTH` levels is kept as its text); a line that
  is not a JSON object, or is only whitespace, is a `Problem`; an empty line is skipped;
* a last line without its newline is a record once it parses, provisionally: continued
  into another line, it is taken back (`Batch.reset`, `Batch.retracted`); one that does
  not parse yet is waited for, not reported;
* one line limit (`DEFAULT_MAX_LINE_BYTES`): a longer line is never held; it keeps the
  small fields that open it when written compactly (`recover_leading_fields`), and is a
  problem otherwise;
* a reader may keep less than it parses (``keep_bytes``): a longer line is parsed whole,
  then its ``result`` reads `ELIDED`, so a run list's memory does not grow with results
  while its fold stays the fold of the whole journal.

The tail never consumes a line that does not parse yet, and notices when the file was
truncated or replaced (and starts over).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple

import orjson

from wftop.core.read.deepjson import held
from wftop.core.read.jsonline import (
    SHALLOW_BYTES,
    UnreadableLine,
    parse_lenient,
    read_record,
)
from wftop.core.read.lineverdict import (
    DEFAULT_MAX_LINE_BYTES,
    ELIDED_BYTES,
    JSON_SPACE,
    PREFIX_BYTES,
    elide_result,
    recover_leading_fields,
)
from wftop.core.read.problem import Problem as Problem

CHUNK_BYTES = 1024 * 1024

SLICE_LINES = 256
"""A reader with a `JsonlTail.sink` hands it the records of so many lines at a time: they
are taken while their bytes and objects are still in the CPU's caches, and let go."""

SMALL_LINE_BYTES: Final = 4096
"""A line this long or shorter is always kept whole (see ``JsonlTail.keep_total``)."""


@dataclass
class Batch:
    """What one `JsonlTail.read` produced."""

    records: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    """(line number, parsed object) for every readable line, in order."""
    problems: list[Problem] = field(default_factory=list)
    reset: bool = False
    """True when earlier records no longer hold and these start from the first line: the
    file was truncated or replaced, or its provisional last line was continued."""
    retracted: bool = False
    """The reset is because a last line read before its newline was continued into a
    line that reads differently (set together with `reset`)."""
    open_tail: bool = False
    """The last record is a last line without its newline yet (provisional)."""
    missing: bool = False
    """The file is not there (no such file): a problem only where it must be."""


class FileStamp(NamedTuple):
    """What a reader keeps of its file's status: enough to notice it changed (an engine
    keeps one per run: a whole ``os.stat_result`` was 600 bytes of it)."""

    st_size: int
    st_mtime: float
    st_ino: int


Sink = Callable[[list[tuple[int, dict[str, Any]]]], list[Problem]]
"""Takes records as they are read, in order; returns the problems it finds in them."""


class JsonlTail:
    """Incremental reader of one JSONL file, remembering its byte offset."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        keep_bytes: int | None = None,
        keep_total: int | None = None,
    ):
        self.path = os.fspath(path)
        self.max_line_bytes = max_line_bytes
        self.keep_bytes = max_line_bytes if keep_bytes is None else min(keep_bytes, max_line_bytes)
        """Lines longer than this are parsed, then their ``result`` is elided."""
        self.keep_total = keep_total
        """Once the lines longer than `SMALL_LINE_BYTES` kept whole add up to more than this,
        every later such line is kept without its ``result`` (None: no such budget)."""
        self.kept = 0
        """Bytes of the lines longer than `SMALL_LINE_BYTES` kept whole so far."""
        self.offset = 0
        """Byte offset of the first byte not yet consumed (start of any partial line)."""
        self.line_no = 0
        """Number of lines consumed so far (a provisional last line included)."""
        self._identity: tuple[int, int] | None = None
        self._big_prefix: bytes | None = None
        """Prefix of an oversized line whose end has not been seen yet."""
        self._big_scanned = 0
        """Offset up to which the oversized line has been scanned."""
        self._open = False
        """The line that ends at `offset` has no newline yet; its record was given."""
        self._pending = b""
        """Bytes after the last newline read, up to where the last read stopped."""
        self.stat: FileStamp | None = None
        """The file's status as of the last `read` (None when it could not be opened)."""
        self.sink: Sink | None = None
        """Takes the records of a read's complete lines, `SLICE_LINES` at a time as they are
        parsed, in place of its `Batch` (which holds those of the lines it read otherwise:
        a long line's, a last line's without its newline); the problems it returns follow
        the read's own. A run read whole and folded once (a plan's) held the records of
        200,000 lines at once: 75 MB."""
        self._sunk: list[Problem] = []

    def _restart(self) -> None:
        self.offset = 0
        self.line_no = 0
        self.kept = 0
        self._big_prefix = None
        self._big_scanned = 0
        self._open = False
        self._pending = b""

    def read(self) -> Batch:
        """Read every line appended since the last call."""
        batch = Batch()
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except (OSError, ValueError) as error:
            self.stat = None
            batch.missing = isinstance(error, FileNotFoundError)
            batch.problems.append(Problem(self.path, 0, _describe_os_error(error)))
            return batch
        try:
            info = os.fstat(fd)
            self.stat = FileStamp(info.st_size, info.st_mtime, info.st_ino)
            if not stat.S_ISREG(info.st_mode):
                kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
                batch.problems.append(Problem(self.path, 0, f"{kind}, expected a JSONL file"))
                return batch
            identity = (info.st_dev, info.st_ino)
            if self._identity is not None and (
                identity != self._identity or info.st_size < self.offset
            ):
                self._restart()
                batch.reset = True
            elif self._big_prefix is not None and info.st_size < self._big_scanned:
                # Only the unfinished over-long line was cut: scan it again from its start.
                self._big_prefix = None
                self._big_scanned = 0
            self._identity = identity
            if self._open and not self._continue_open_line(fd, info.st_size):
                self._restart()
                batch.reset = batch.retracted = True
            self._pending = b""
            self._read_lines(fd, info.st_size, batch)
            self._take_tail(info.st_size, batch)
        except OSError as error:
            batch.problems.append(Problem(self.path, self.line_no + 1, _describe_os_error(error)))
        finally:
            os.close(fd)
        if self._sunk:
            batch.problems += self._sunk
            self._sunk = []
        return batch

    def _continue_open_line(self, fd: int, size: int) -> bool:
        """Consume what follows a provisional last line; False when it changes the line."""
        while self.offset < size:
            chunk = os.pread(fd, min(CHUNK_BYTES, size - self.offset), self.offset)
            if not chunk:
                break
            newline = chunk.find(b"\n")
            piece = chunk if newline < 0 else chunk[:newline]
            if piece.strip(JSON_SPACE):
                return False
            if newline >= 0:
                self.offset += newline + 1
                self._open = False
                return True
            self.offset += len(chunk)
        return True

    def _read_lines(self, fd: int, size: int, batch: Batch) -> None:
        position = self._big_scanned if self._big_prefix is not None else self.offset
        pending = b""
        while position < size:
            chunk = os.pread(fd, min(CHUNK_BYTES, size - position), position)
            if not chunk:
                break
            position += len(chunk)
            if self._big_prefix is not None:
                newline = chunk.find(b"\n")
                if newline < 0:
                    self._big_scanned = position
                    continue
                self._finish_big_line(batch, end=position - len(chunk) + newline + 1)
                chunk = chunk[newline + 1 :]
            if chunk.find(b"\n") >= 0:  # only a chunk with a newline ends lines
                lines = _split_lines(chunk)
                if pending:  # the line left open ends here (the chunk itself is not copied)
                    lines[0] = pending + lines[0]
                rest = lines.pop()
                self._take(lines, batch)
                self.offset += len(pending) + len(chunk) - len(rest)
                pending = rest
            else:
                pending += chunk
            if len(pending) > self.max_line_bytes:
                self._big_prefix = pending[:PREFIX_BYTES]
                self._big_scanned = position
                pending = b""
        self._pending = pending

    def _take_tail(self, size: int, batch: Batch) -> None:
        """A last line without its newline is a record once it parses (provisionally)."""
        pending = self._pending
        if not pending or self._big_prefix is not None or self.offset + len(pending) != size:
            return
        try:
            record = read_record(pending)
        except UnreadableLine:
            return  # mid-write, or never completed: nothing to report yet
        self.line_no += 1
        if len(pending) > self._keep_now():
            record = elide_result(record, len(pending))
        elif len(pending) > SMALL_LINE_BYTES:
            self.kept += len(pending)
        batch.records.append((self.line_no, record))
        batch.open_tail = self._open = True
        self.offset = size
        self._pending = b""

    def _finish_big_line(self, batch: Batch, end: int) -> None:
        prefix = self._big_prefix or b""
        size = end - self.offset - 1
        self.offset = end
        self._big_prefix = None
        self._big_scanned = 0
        self._take_big_line(prefix, size, batch)

    def _take_big_line(self, prefix: bytes, size: int, batch: Batch) -> None:
        """Count a line longer than the limit; keep only the fields that open it."""
        self.line_no += 1
        record = recover_leading_fields(prefix)
        if record is None:
            reason = f"line of {size} bytes is too long to read (and not compact JSON)"
            batch.problems.append(Problem(self.path, self.line_no, reason))
            return
        record[ELIDED_BYTES] = size
        batch.records.append((self.line_no, record))

    def _take(self, lines: list[bytes], batch: Batch) -> None:
        """`_take_lines`, its records handed to the `sink` a slice at a time when there is one
        (with any the batch held: a long line's before them)."""
        sink = self.sink
        if sink is None:
            self._take_lines(lines, batch)
            return
        for start in range(0, len(lines), SLICE_LINES):
            self._take_lines(lines[start : start + SLICE_LINES], batch)
            records, batch.records = batch.records, []
            self._sunk += sink(records)

    def _take_lines(self, lines: list[bytes], batch: Batch) -> None:
        """Parse complete lines (the hot loop of a cold scan: locals only)."""
        records, problems, path = batch.records, batch.problems, self.path
        limit, keep = self.max_line_bytes, self._keep_now()
        total, kept = self.keep_total, self.kept
        loads, decode_error = orjson.loads, orjson.JSONDecodeError
        line_no = self.line_no
        for raw in lines:
            line_no += 1
            size = len(raw)
            if size > limit:
                self.line_no = line_no - 1
                self._take_big_line(raw[:PREFIX_BYTES], size, batch)
                continue
            if not raw:
                continue
            try:
                value = loads(raw)
            except decode_error:
                try:
                    value = parse_lenient(raw)
                except UnreadableLine as error:
                    reason = error.reason if raw.strip(JSON_SPACE) else "a line of only whitespace"
                    problems.append(Problem(path, line_no, reason))
                    continue
            else:
                if size > SHALLOW_BYTES:  # it may nest deeper than a value is held
                    value = held(raw, value)
            if type(value) is dict:
                if size > keep:
                    value = elide_result(value, size)
                elif size > SMALL_LINE_BYTES and total is not None:
                    kept += size
                    if kept > total:
                        keep = SMALL_LINE_BYTES
                records.append((line_no, value))
            else:
                kind = type(value).__name__
                problems.append(Problem(path, line_no, f"expected a JSON object, got {kind}"))
        self.line_no = line_no
        self.kept = kept

    def _keep_now(self) -> int:
        """The longest line kept whole now: `keep_bytes`, or `SMALL_LINE_BYTES` once the
        lines kept whole have used up `keep_total`."""
        if self.keep_total is not None and self.kept > self.keep_total:
            return min(self.keep_bytes, SMALL_LINE_BYTES)
        return self.keep_bytes


SPLIT_BYTES = 64 * 1024
"""Up to this size a buffer is cut into lines by ``bytes.split``; a larger one too when its
first so many bytes hold `SHORT_LINES`, else (a long line) by searching for each newline,
which skips over a long line much faster."""


SHORT_LINES = 16
"""At least this many newlines in a buffer's first `SPLIT_BYTES`: its lines are short, and
``bytes.split`` cuts it (in half the time of a search for each newline)."""


def _split_lines(buffer: bytes) -> list[bytes]:
    """``buffer.split(b"\\n")``, fast for a buffer holding a long line too."""
    if len(buffer) <= SPLIT_BYTES or buffer.count(b"\n", 0, SPLIT_BYTES) >= SHORT_LINES:
        return buffer.split(b"\n")
    lines: list[bytes] = []
    find, start = buffer.find, 0
    while (newline := find(b"\n", start)) >= 0:
        lines.append(buffer[start:newline])
        start = newline + 1
    lines.append(buffer[start:])
    return lines


_OS_REASONS: Final = {
    errno.ELOOP: "symbolic link loop",
    errno.EACCES: "permission denied",
    errno.ENOENT: "file vanished",
    errno.EISDIR: "a directory, expected a JSONL file",
}


def _describe_os_error(error: OSError | ValueError) -> str:
    if not isinstance(error, OSError):  # a NUL in a path read from disk: no such file
        return "not readable: the path holds a NUL"
    return _OS_REASONS.get(error.errno or 0) or error.strerror or str(error)


def read_all(
    path: str | os.PathLike[str],
    *,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    keep_bytes: int | None = None,
) -> Batch:
    """Read a whole file once, as it stands (a last line that parses included)."""
    return JsonlTail(path, max_line_bytes=max_line_bytes, keep_bytes=keep_bytes).read()
