"""Folder listings kept between stat sweeps, by the folder's own stamp.

A folder's mtime changes whenever an entry is made, removed or renamed in it, so a folder
whose (mtime, inode) is what it was when it was listed holds the same entries: the sweep
stats each project folder instead of listing it again (at 20,000 runs, 161 folders of 100
sessions each, 60% of a sweep's listing time). The run folders of a session are listed at
every sweep that looks at them (a small folder each: keeping them cost 4 MB at 20,000 runs
to save 3-6 ms a sweep). A listing is trusted only when the folder's mtime is older than
`GRACE` seconds before the moment it was taken: on a file system whose mtimes are coarse
(HFS+ keeps whole seconds) an entry made just after the listing, in the same tick, leaves
the mtime as it was, so such a folder is listed again at the next sweep. A folder that
cannot be stat'ed or listed is never kept. The moment comes from the index's clock
(injected in tests). Nothing here imports UI code.
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
        names = dir_names(path)
        if names is None:
            self.kept.pop(path, None)
            return ()
        if info.st_mtime < moment - GRACE:
            self.kept[path] = (stamp, names)
        else:
            self.kept.pop(path, None)
        return names


def dir_names(path: str) -> tuple[str, ...] | None:
    """The names of ``path``'s sub-folders, listed now; None when it cannot be listed."""
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
