"""What one transcript spent: its assistant messages' usage, each message once, priced.

Transcripts can be tens of megabytes, and ``wftop ls`` reads every run's: only the lines
around each ``"usage":{`` are looked at, and only those that are assistant records are
parsed. Everything else (prompts, tool results, attachments, most of a transcript's bytes)
is skipped at the speed of a byte search (`bench/usage.py`: about 6× the time of reading
the bytes, 9× parsing every line costs).

The CLI writes one line per content block of a message and repeats the message's usage on
each, so a message is counted once, by its id and its request id; its counts are the
largest any of its lines holds (a streamed line may carry partial counts). The CLI's own
messages (an API error: ``isApiErrorMessage``, model ``<synthetic>``) cost nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

import orjson

from wftop.core.cost.prices import SYNTHETIC, Bill
from wftop.core.cost.shelf import Stamp
from wftop.core.cost.spendbook import FolderStamp, SpendBook
from wftop.core.cost.tokens import NOTHING, Spend, usage_counts
from wftop.core.read.snapshot import parse_iso_time

USAGE = b'"usage":{'
"""How a usage object begins in a line the CLI wrote (compact JSON). A search for a needle
that ends in a rarer byte skips further: 30% faster than ``"usage"`` alone."""


def usage_lines(data: bytes) -> Iterator[bytes]:
    """The lines of ``data`` that hold `USAGE` and ``"assistant"`` (candidates: the caller
    parses them and checks what they are)."""
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


class _Message:
    """One message: its model, its tokens' five counts (`usage_counts`, the largest of its
    lines'), when it was answered."""

    __slots__ = ("model", "counts", "when")

    def __init__(self, model: str | None, counts: list[int], when: float | None) -> None:
        self.model = model
        self.counts = counts
        self.when = when


def _messages(data: bytes) -> dict[object, _Message]:
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
        counts = usage_counts(usage)
        kept = found.get(key)
        if kept is None:
            found[key] = _Message(model, counts, parse_iso_time(record.get("timestamp")))
        else:
            kept.counts = [max(pair) for pair in zip(kept.counts, counts, strict=True)]
    return found


def spend_of_bytes(data: bytes) -> Spend:
    if data.find(USAGE) < 0:  # no response in it (a prompt alone: an agent killed early)
        return NOTHING
    bill = Bill()
    for message in _messages(data).values():
        bill.count(message.model, message.counts, message.when)
    return bill.spend()


def transcript_spend(path: str) -> Spend | None:
    """What the requests of transcript ``path`` spent; None when it cannot be read."""
    read = _read(path)
    return None if read is None else spend_of_bytes(read[1])


def stamped_spend(
    path: str, seen: Callable[[str, bytes], None] | None = None
) -> tuple[Stamp, Spend] | None:
    """The stamp (size, time, inode) of transcript ``path`` as it was read, and what it
    spent; None when it cannot be read. One ``fstat`` of the open file: no ``stat`` of the
    path before it. ``seen``: told the path and its bytes as read."""
    read = _read(path)
    if read is None:
        return None
    if seen is not None:
        seen(path, read[1])
    return read[0], spend_of_bytes(read[1])


def unstamped_spend(path: str, seen: Callable[[str, bytes], None] | None = None) -> Spend | None:
    """What transcript ``path`` spent, read without its stamp, for a reader that never
    compares it again (`wftop.core.cost.tally.SpendTally`'s ``once``); None when it cannot
    be read. ``seen``: told the path and its bytes as read."""
    data = _bytes(path)
    if data is None:
        return None
    if seen is not None:
        seen(path, data)
    return spend_of_bytes(data)


FIRST_READ = 1 << 18
"""What `_bytes` asks of a file first: most agent transcripts end within it."""


def _bytes(path: str) -> bytes | None:
    """The bytes of file ``path``, read with no ``fstat`` where it ends within `FIRST_READ`
    (a regular file reads short only at its end: 32,165 transcripts of a first listing of
    5,000 runs, about 3.5 µs of CPU each, a quarter of their read); None when it cannot be
    read."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except (OSError, ValueError):  # ValueError: a NUL in a path
        return None
    try:
        data = os.read(fd, FIRST_READ)
        if len(data) == FIRST_READ:  # a larger file: the rest at once, as `_read` reads it
            data = _whole(fd, data, os.fstat(fd).st_size)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data


def _read(path: str) -> tuple[Stamp, bytes] | None:
    """The stamp (size, time, inode) and the bytes of file ``path``, read with the file
    descriptor calls alone (a plan reads 100,000 transcripts: a buffered file object and a
    ``stat`` of the path besides cost a third more); None when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except (OSError, ValueError):  # ValueError: a NUL in a path
        return None
    try:
        info = os.fstat(fd)
        data = _whole(fd, b"", info.st_size)
    except OSError:
        return None
    finally:
        os.close(fd)
    return (info.st_size, info.st_mtime_ns, info.st_ino), data


def _whole(fd: int, head: bytes, size: int) -> bytes:
    """``head``, what was read of the file behind ``fd``, and the rest of it: read at once
    by its ``size`` (as stat'ed), then to its end if it grew since."""
    rest = os.read(fd, max(size - len(head), 0) + 1)
    if len(head) + len(rest) <= size:
        return head + rest  # no copy when nothing was read before
    chunks = [head, rest]
    while chunks[-1]:
        chunks.append(os.read(fd, 1 << 20))
    return b"".join(chunks)


@dataclass
class Spends:
    """Transcripts' spends by path, each read again only when its size, time or inode
    changed (a process reading the same session transcript for each of its runs, or a
    live view reading a growing run again, reads each file once per change). With a
    ``book`` (`wftop.core.cost.spendbook`), what other processes read is not read again
    either; `keep` writes what this one read into it."""

    book: SpendBook | None = None
    _seen: dict[str, tuple[Stamp, Spend | None]] = field(default_factory=dict)
    _vouch: dict[str, FolderStamp] = field(default_factory=dict)

    def settle(self, directory: str) -> Mapping[str, Spend] | None:
        """What the agents' transcripts of a settled run's folder ``directory`` spent, by
        agent id (of ``agent-<id>.jsonl``), from the book without a ``stat`` of each, when
        the folder's own stamp is the one vouched for; else those of its files whose stamp
        is the one kept (a ``stat`` each: `SpendBook.checked`, where a listing left them),
        and `keep` vouches for the stamp it has now (every transcript of it looked up
        meanwhile is checked against its own stamp). None without a book.

        Only for a run that has ended or whose owner cannot be alive: its agents' transcripts
        are written by its owner's process alone, appended while an agent runs, and never
        touched after. So a transcript of a settled run changes only when a process works in
        the run again, and that one writes its agents into new transcripts (a call run
        again is a new agent), which changes the folder's stamp; a transcript removed or
        replaced changes it too. What it does not see is a transcript rewritten in place by
        something else than the CLI."""
        if self.book is None:
            return None
        try:
            info = os.stat(directory)
        except (OSError, ValueError):
            return None
        stamp = (info.st_ino, info.st_mtime_ns)
        if self.book.vouched(directory, stamp):
            return self.book.kept(directory)
        self._vouch[directory] = stamp
        return self.book.checked(directory)

    def of(self, path: str) -> Spend | None:
        kept = self._seen.get(path)
        if kept is not None or self.book is not None:  # a stat tells whether it changed
            try:
                info = os.stat(path)
            except (OSError, ValueError):
                if self.book is not None:
                    self.book.drop(path)
                return None
            stamp = (info.st_size, info.st_mtime_ns, info.st_ino)
            if kept is not None and kept[0] == stamp:
                return kept[1]
            booked = self.book.get(path, stamp) if self.book is not None else None
            if booked is not None:
                self._seen[path] = (stamp, booked)
                return booked
        read = _read(path)
        if read is None:
            return None
        spent = spend_of_bytes(read[1])
        self._seen[path] = (read[0], spent)
        if self.book is not None:
            self.book.put(path, read[0], spent)
        return spent

    def keep(self) -> None:
        """What was read, written into the book (if any), and its entries let go."""
        if self.book is not None:
            vouch, self._vouch = self._vouch, {}
            for directory, stamp in vouch.items():
                self.book.vouch(directory, stamp)
            self.book.save()
