"""Which runs were continued in another session, decided at the cost of what was appended.

A run is superseded when the same run id exists in another session of its root whose journal
begins with this one's lines and is longer (a resume that copied the run into a new session
and went on there). ``failed`` lines are left out of the comparison, so a healed copy
(failed lines dropped) still counts.

Each journal of such a group is read once into a `Chain`: a digest of its first k lines for
every k (eight bytes a line), extended as lines are appended. Whether one journal begins
with another's lines is then one comparison of two digests, so a run that goes on growing
in its new session does not have both journals read again at every line.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Iterable, Mapping
from functools import cache
from typing import TYPE_CHECKING

from wftop.core.read.runfolder import RunFolder

if TYPE_CHECKING:
    from hashlib import blake2b

FAILED_MARK = b'"type":"failed"'
"""A line holding this is a ``failed`` line, left out of the comparison."""


def _link(previous: int, line: bytes) -> int:
    digest = _blake2b()(previous.to_bytes(8, "little") + line, digest_size=8).digest()
    return int.from_bytes(digest, "little")


@cache
def _blake2b() -> type[blake2b]:
    """`hashlib.blake2b`, imported when a run id is first found twice (`hashlib` loads
    OpenSSL: 2.5 ms of every listing, which nearly never has such a run)."""
    from hashlib import blake2b

    return blake2b


class Chain:
    """The digests of a journal's lines (``failed`` lines and empty lines left out), kept as
    the file grows; a last line without its newline counts while it is there."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.readable = False
        """The journal could be read at the last `update`."""
        self._digests = array("Q")
        self._offset = 0
        self._identity: tuple[int, int] | None = None
        self._tail = b""
        """Bytes after the last newline: a line still being written."""

    def update(self) -> None:
        """Take in what was appended (or everything again, when the file was replaced or
        cut short)."""
        try:
            with open(self.path, "rb") as handle:
                info = os.fstat(handle.fileno())
                identity = (info.st_dev, info.st_ino)
                if identity != self._identity or info.st_size < self._offset:
                    self._digests, self._offset, self._tail = array("Q"), 0, b""
                    self._identity = identity
                handle.seek(self._offset)
                appended = handle.read()
        except OSError:
            self.readable = False
            self._digests, self._offset, self._tail, self._identity = array("Q"), 0, b"", None
            return
        self.readable = True
        self._offset += len(appended)
        lines = (self._tail + appended).split(b"\n")
        self._tail = lines.pop()
        digests = self._digests
        last = digests[-1] if digests else 0
        for line in lines:
            if line and FAILED_MARK not in line:
                last = _link(last, line)
                digests.append(last)

    def _counted_tail(self) -> bool:
        return bool(self._tail) and FAILED_MARK not in self._tail

    def __len__(self) -> int:
        return len(self._digests) + self._counted_tail()

    def digest(self, lines: int) -> int:
        """The digest of the first ``lines`` lines (1 ≤ ``lines`` ≤ ``len(self)``)."""
        if lines <= len(self._digests):
            return self._digests[lines - 1]
        return _link(self._digests[-1] if self._digests else 0, self._tail)


def decide(group: Iterable[RunFolder], chains: Mapping[str, Chain]) -> dict[str, str]:
    """Ident → the session that continued it, for the runs of one run id (``chains``: each
    folder's `Chain` by ident, up to date); only a session of the same root continues a run."""
    members = list(group)
    superseded: dict[str, str] = {}
    for older in members:
        mine = chains[older.ident]
        if not mine.readable or not len(mine):
            continue
        count = len(mine)
        for newer in members:
            theirs = chains[newer.ident]
            if newer is older or newer.root != older.root:
                continue
            if not theirs.readable or len(theirs) <= count:
                continue
            if theirs.digest(count) == mine.digest(count):
                superseded[older.ident] = newer.session_id
                break
    return superseded


def find_superseded(folders: Iterable[RunFolder]) -> dict[str, str]:
    """Runs continued in another session: ident → the session that continued it."""
    first: dict[tuple[str, str], RunFolder] = {}
    by_run: dict[tuple[str, str], list[RunFolder]] = {}  # run ids found twice or more
    for folder in folders:
        place = (folder.root, folder.run_id)
        seen = first.setdefault(place, folder)
        if seen is not folder:
            by_run.setdefault(place, [seen]).append(folder)
    superseded: dict[str, str] = {}
    for group in by_run.values():
        chains = {folder.ident: Chain(folder.journal) for folder in group}
        for chain in chains.values():
            chain.update()
        superseded.update(decide(group, chains))
    return superseded
