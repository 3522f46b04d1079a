"""Runs gone and back as they went: a tree made again by moving it back is not read again.

A root, or its ``projects/``, moved away and back (or any run folder gone and found again)
takes its runs from the live index and gives them back. A run held by its row
(`wftop.core.index.held`: settled, its reader dozing) is kept as it went, its reader and its
`light` run, for `GONE_SECONDS`: a `Ghost`. When its folder is found again at the same path
with its journal and snapshot as they were (size, modification time and inode: moved back,
not copied; a copy, even ``cp -a``'s, has new inodes), it is tracked again with that reader,
still dozing, and the index keeps the run it kept, unread (`ChangeSet.revived`), once its
owner and the session that superseded it are as they were too. Any other run found again
is read as a new one.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, NamedTuple

from wftop.core.read.runfolder import RunFolder

if TYPE_CHECKING:  # the engine's held rows name how long a run gone is kept, reading none
    from wftop.core.index.reader import RunReader
    from wftop.core.model import Run

GONE_SECONDS = 600.0
"""How long a run gone is kept to be revived (a tree moved away and back, restored)."""


class Ghost(NamedTuple):
    reader: RunReader
    """Dozing, with the stamps of its journal and snapshot as they were."""
    run: Run
    """The `light` run the index held."""
    went: float
    """When it went, by the index's clock."""


class Ghosts:
    """The runs gone that may come back unread, by ident (the oldest first)."""

    def __init__(self) -> None:
        self._gone: dict[str, Ghost] = {}
        self.back: dict[str, Run] = {}
        """The runs of the readers `take` gave back, until the batch is committed."""

    def keep(self, reader: RunReader | None, run: Run | None, now: float) -> None:
        """A run gone: kept when it was held by its row (its reader dozing)."""
        if reader is None or run is None or not reader.dozing:
            return
        self._gone.pop(run.ident, None)  # kept again: it goes to the end, the newest
        self._gone[run.ident] = Ghost(reader, run, now)

    def take(self, folder: RunFolder) -> RunReader | None:
        """The reader a run found again went with, when its files are as they were (its
        run is then in `back`); None: read it as a new one."""
        ghost = self._gone.pop(folder.ident, None)
        if ghost is None:
            return None
        kept = ghost.reader.folder
        if (kept.path, kept.real_path) != (folder.path, folder.real_path):
            return None
        if not unchanged(ghost.reader):
            return None
        self.back[folder.ident] = ghost.run
        return ghost.reader

    def expire(self, now: float) -> None:
        """Let go of the runs gone longer than `GONE_SECONDS` ago."""
        old = []
        for ident, ghost in self._gone.items():
            if now - ghost.went < GONE_SECONDS:
                break
            old.append(ident)
        for ident in old:
            del self._gone[ident]


def unchanged(reader: RunReader) -> bool:
    """Whether the run's journal and snapshot are the files its reader stamped last (size,
    modification time, inode; a snapshot absent then and now)."""
    held = reader.journal_stat
    now = _stamp(reader.folder.journal)
    if held is None or now is None or now != (held.st_size, held.st_mtime, held.st_ino):
        return False
    return _stamp(reader.folder.snapshot) == reader.snapshot_stamp


def _stamp(path: str) -> tuple[int, float, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_size, info.st_mtime, info.st_ino)
