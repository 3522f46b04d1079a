"""A run's snapshot, as a `wftop.core.index.reader.RunReader` keeps it: `SnapshotKeeping`.

The snapshot (``<session>/workflows/<runId>.json``) is written once, when a run ends; a reader
opens it at its first look and reads it again only when its size, time or inode changed. Whether
it describes the journal's latest run (`snapshot_current`) is what tells an ended run from one
that was resumed after it.
"""

from __future__ import annotations

import os

from wftop.core.index.runspend import SpendKeeping
from wftop.core.read.journal import JournalFold
from wftop.core.read.jsonl import Problem
from wftop.core.read.snapshot import Snapshot, read_snapshot_with_stat, snapshot_is_current


class SnapshotKeeping(SpendKeeping):
    """The snapshot part of a run reader. It stands on `SpendKeeping` rather than beside it:
    slotted classes can be bases of one class only when they stand in one line."""

    __slots__ = (
        "_snapshot_checked",
        "_snapshot_stamp",
        "snapshot",
        "snapshot_mtime",
        "snapshot_problem",
    )

    snapshot: Snapshot | None
    snapshot_problem: Problem | None
    snapshot_mtime: float | None
    _snapshot_checked: bool
    _snapshot_stamp: tuple[int, float, int] | None
    for_rows: bool
    fold: JournalFold
    journal_mtime: float | None

    def refresh_snapshot(self) -> bool:
        """Re-read the snapshot when its size, time or inode changed; True when it did."""
        path = self.folder.snapshot
        if not self._snapshot_checked:
            # First look: open it straight away (one system call less than stat first).
            self._snapshot_checked = True
            snapshot, problem, info = read_snapshot_with_stat(path, packed=not self.for_rows)
            self._take_snapshot(snapshot, problem, info, stamp_of(info) if info else None)
            return snapshot is not None or problem is not None
        try:
            stamp: tuple[int, float, int] | None = stamp_of(os.stat(path))
        except OSError:
            stamp = None
        if stamp == self._snapshot_stamp:
            return False
        snapshot, problem, info = read_snapshot_with_stat(path, packed=not self.for_rows)
        self._take_snapshot(snapshot, problem, info, stamp_of(info) if info else stamp)
        return True

    @property
    def snapshot_stamp(self) -> tuple[int, float, int] | None:
        """(size, mtime, inode) of the snapshot as last read; None when there was none."""
        return self._snapshot_stamp

    def _take_snapshot(
        self,
        snapshot: Snapshot | None,
        problem: Problem | None,
        info: os.stat_result | None,
        stamp: tuple[int, float, int] | None,
    ) -> None:
        self.snapshot, self.snapshot_problem = snapshot, problem
        self._snapshot_stamp = stamp
        self.snapshot_mtime = info.st_mtime if info is not None else None

    @property
    def snapshot_current(self) -> bool:
        """The snapshot describes the journal's latest run (the run has ended)."""
        return self.snapshot is not None and snapshot_is_current(
            self.snapshot, self.journal_mtime, self.fold.last_agent_id
        )


def stamp_of(info: os.stat_result) -> tuple[int, float, int]:
    """(size, mtime, inode): what tells a file changed or was replaced."""
    return (info.st_size, info.st_mtime, info.st_ino)
