"""What one transcript spent: its assistant messages' usage, each message once, priced.

Transcripts can be tens of megabytes, and ``wftop ls`` reads every run's: the file is
mapped, not read, and only the lines around each ``"usage"`` are looked at; only those
that are assistant records are parsed. Everything else (prompts, tool results, attachments,
most of a transcript's bytes) is skipped at the speed of a byte search.

The CLI writes one line per content block of a message and repeats the message's usage on
each, so a message is counted once, by its id and its request id; its counts are the
largest any of its lines holds (a streamed line may carry partial counts). The CLI's own
messages (an API error: ``isApiErrorMessage``, model ``<synthetic>``) cost nothing.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterator
from dataclasses import dataclass, field

import orjson

from wftop.core.cost.prices import SYNTHETIC, Bill
from wftop.core.cost.tokens import Spend, Tokens
from wftop.core.read.snapshot import parse_iso_time

USAGE = b'"usage"'


def usage_lines(data: bytes | mmap.mmap) -> Iterator[bytes]:
    """The lines of ``data`` that hold ``"usage"`` and ``"assistant"`` (candidates: the
    caller parses them and checks what they are)."""
    find, size = data.find, len(data)
    at = find(USAGE)
    while at != -1:
        start = data.rfind(b"\n", 0, at) + 1
        end = find(b"\n", at)
        if end == -1:
            end = size
        line = data[start:end]
        if b'"assistant"' in line:
            yield line
        at = find(USAGE, end)


@dataclass
class _Message:
    model: str | None
    tokens: Tokens
    when: float | None


def _messages(data: bytes | mmap.mmap) -> dict[object, _Message]:
    found: dict[object, _Message] = {}
    for line in usage_lines(data):
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue  # a line being written, or not a record: never a message counted
        if not isinstance(record, dict) or record.get("type") != "assistant":
            continue
        message = record.get("message")
        if not isinstance(message, dict):
            continue
        usage = message.get("usage")
        if not isinstance(usage, dict):
            continue
        model = message.get("model")
        model = model if isinstance(model, str) else None
        if record.get("isApiErrorMessage") is True:
            model = SYNTHETIC
        ident = message.get("id"), record.get("requestId")
        key: object = ident if ident != (None, None) else ("line", record.get("uuid"), len(found))
        tokens = Tokens.of_usage(usage)
        kept = found.get(key)
        if kept is None:
            found[key] = _Message(model, tokens, parse_iso_time(record.get("timestamp")))
        else:
            kept.tokens = kept.tokens.most(tokens)
    return found


def spend_of_bytes(data: bytes | mmap.mmap) -> Spend:
    bill = Bill()
    for message in _messages(data).values():
        bill.add(message.model, message.tokens, message.when)
    return bill.spend()


def transcript_spend(path: str) -> Spend | None:
    """What the requests of transcript ``path`` spent; None when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return spend_of_bytes(b"")
        with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as data:
            return spend_of_bytes(data)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)


Stamp = tuple[int, int, int]


@dataclass
class Spends:
    """Transcripts' spends by path, each read again only when its size, time or inode
    changed (a process reading the same session transcript for each of its runs, or a
    live view reading a growing run again, reads each file once per change)."""

    _seen: dict[str, tuple[Stamp, Spend | None]] = field(default_factory=dict)

    def of(self, path: str) -> Spend | None:
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            return None
        stamp = (info.st_size, info.st_mtime_ns, info.st_ino)
        kept = self._seen.get(path)
        if kept is None or kept[0] != stamp:
            kept = (stamp, transcript_spend(path))
            self._seen[path] = kept
        return kept[1]
