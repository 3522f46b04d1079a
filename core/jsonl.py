"""Tailing reader for JSON Lines files that another process is still writing.

The reader never consumes a last line that has no ``\\n`` yet, notices when the file
was truncated or replaced (and starts over), and never holds more than
``max_line_bytes`` of one line in memory: an oversized line is reduced to the fields
that open it (``type``, ``key``, ``agentId``, ...), which is all a journal fold needs.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass, field
from typing import Any

import orjson

DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024
"""Lines longer than this are not parsed whole (see `ELIDED`)."""

CHUNK_BYTES = 1024 * 1024
PREFIX_BYTES = 64 * 1024
"""How much of an oversized line is kept to recover its leading fields."""

ELIDED = "<elided>"
"""Value put in place of the fields of an oversized line that were not read."""

_LEADING_FIELD = re.compile(rb'"(type|key|agentId|label|phase)":"((?:[^"\\]|\\.){0,512})"')


@dataclass(frozen=True)
class Problem:
    """One line (or file) that could not be read, with where and why."""

    path: str
    line: int
    """1-based line number; 0 when the problem is about the whole file."""
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}"


@dataclass
class Batch:
    """What one `JsonlTail.read` produced."""

    records: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    """(line number, parsed object) for every complete, readable line."""
    problems: list[Problem] = field(default_factory=list)
    reset: bool = False
    """True when the file was truncated or replaced: earlier records no longer hold."""


class JsonlTail:
    """Incremental reader of one JSONL file, remembering its byte offset."""

    def __init__(
        self, path: str | os.PathLike[str], *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    ):
        self.path = os.fspath(path)
        self.max_line_bytes = max_line_bytes
        self.offset = 0
        """Byte offset of the first byte not yet consumed (start of any partial line)."""
        self.line_no = 0
        """Number of complete lines consumed so far."""
        self._identity: tuple[int, int] | None = None
        self._big_prefix: bytes | None = None
        """Prefix of an oversized line whose end has not been seen yet."""
        self._big_scanned = 0
        """Offset up to which the oversized line has been scanned."""
        self.stat: os.stat_result | None = None
        """The file's status as of the last `read` (None when it could not be opened)."""

    def _restart(self) -> None:
        self.offset = 0
        self.line_no = 0
        self._big_prefix = None
        self._big_scanned = 0

    def read(self) -> Batch:
        """Read every complete line appended since the last call."""
        batch = Batch()
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError as error:
            self.stat = None
            reason = _describe_os_error(error)
            batch.problems.append(Problem(self.path, 0, reason))
            return batch
        try:
            info = self.stat = os.fstat(fd)
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
            self._read_lines(fd, info.st_size, batch)
        except OSError as error:
            batch.problems.append(Problem(self.path, self.line_no + 1, _describe_os_error(error)))
        finally:
            os.close(fd)
        return batch

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
            pending += chunk
            end = pending.rfind(b"\n")
            if end >= 0:
                self._take_lines(pending[:end].split(b"\n"), batch)
                self.offset += end + 1
                pending = pending[end + 1 :]
            if len(pending) > self.max_line_bytes:
                self._big_prefix = pending[:PREFIX_BYTES]
                self._big_scanned = position
                pending = b""

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
            batch.problems.append(
                Problem(self.path, self.line_no, f"line of {size} bytes is too long to read")
            )
            return
        record["_elided_bytes"] = size
        batch.records.append((self.line_no, record))

    def _take_lines(self, lines: list[bytes], batch: Batch) -> None:
        """Parse complete lines (the hot loop of a cold scan: locals only)."""
        records, problems, path = batch.records, batch.problems, self.path
        limit, loads, decode_error = self.max_line_bytes, orjson.loads, orjson.JSONDecodeError
        line_no = self.line_no
        for raw in lines:
            line_no += 1
            if len(raw) > limit:
                self.line_no = line_no - 1
                self._take_big_line(raw[:PREFIX_BYTES], len(raw), batch)
                continue
            if not raw or raw.isspace():
                continue
            try:
                value = loads(raw)
            except decode_error as error:
                reason = "invalid UTF-8" if "utf-8" in str(error).lower() else "not valid JSON"
                problems.append(Problem(path, line_no, reason))
                continue
            if type(value) is dict:
                records.append((line_no, value))
            else:
                kind = type(value).__name__
                problems.append(Problem(path, line_no, f"expected a JSON object, got {kind}"))
        self.line_no = line_no


def recover_leading_fields(prefix: bytes) -> dict[str, Any] | None:
    """Rebuild the small string fields that open a compact JSON object line.

    Journal lines are written with ``type`` first and the (possibly huge) ``result``
    after ``key`` and ``agentId``, so those survive when the rest is not read.
    """
    if not prefix.startswith(b"{"):
        return None
    record: dict[str, Any] = {}
    for match in _LEADING_FIELD.finditer(prefix[:PREFIX_BYTES]):
        name = match.group(1).decode()
        if name in record:
            continue
        try:
            record[name] = orjson.loads(b'"' + match.group(2) + b'"')
        except orjson.JSONDecodeError:
            continue
    if "type" not in record:
        return None
    if record["type"] == "result":
        record["result"] = ELIDED
    return record


def _describe_os_error(error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return "symbolic link loop"
    if error.errno == errno.EACCES:
        return "permission denied"
    if error.errno == errno.ENOENT:
        return "file vanished"
    if error.errno == errno.EISDIR:
        return "a directory, expected a JSONL file"
    return error.strerror or str(error)


def read_all(
    path: str | os.PathLike[str], *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> Batch:
    """Read a whole file once (complete lines only)."""
    return JsonlTail(path, max_line_bytes=max_line_bytes).read()
