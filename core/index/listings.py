"""Folder listings kept between stat sweeps, by the folder's own stamp.

A folder's mtime changes whenever an entry is made, removed or renamed in it, so a folder
whose (mtime, inode) is what it was when it was listed holds the same entries: the sweep
stats it instead of listing it again (at 20,000 runs, 161 project folders and the run
folders of a tenth of 16,000 sessions a sweep). A listing is trusted only when the folder's
mtime is older than `GRACE` seconds before the moment it was taken: on a file system whose
mtimes are coarse (HFS+ keeps whole seconds) an entry made just after the listing, in the
same tick, leaves the mtime as it was, so such a folder is listed again at the next sweep.
A folder that cannot be stat'ed or listed is never kept. The moment comes from the index's
clock (injected in tests). Nothing here imports UI code.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

GRACE = 2.0
"""Seconds a folder's mtime must be older than its listing for the listing to be kept."""


@dataclass
class Listings:
    """The sub-folder names of folders the sweeps listed, kept by each folder's stamp.

    One sweep runs at a time (in a worker thread), so nothing here is shared between
    threads at once.
    """

    kept: dict[str, tuple[tuple[int, int], tuple[str, ...]]] = field(default_factory=dict)
    """folder → ((mtime in ns, inode) when listed, its sub-folders' names)."""
    listed: int = 0
    """Folders listed so far (what a test counts: a kept listing is not listed again)."""

    def dir_names(self, path: str, moment: float) -> tuple[str, ...]:
        """The names of ``path``'s sub-folders; the kept listing when the folder's stamp
        is the one it was listed at, and that stamp was old enough then (see `GRACE`)."""
        try:
            info = os.stat(path)
        except OSError:
            self.kept.pop(path, None)
            return ()
        stamp = (info.st_mtime_ns, info.st_ino)
        kept = self.kept.get(path)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        names = self._list(path)
        if names is None:
            self.kept.pop(path, None)
            return ()
        if info.st_mtime < moment - GRACE:
            self.kept[path] = (stamp, names)
        else:
            self.kept.pop(path, None)
        return names

    def _list(self, path: str) -> tuple[str, ...] | None:
        self.listed += 1
        try:
            with os.scandir(path) as entries:
                return tuple(entry.name for entry in entries if _is_dir(entry))
        except OSError:
            return None


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False
