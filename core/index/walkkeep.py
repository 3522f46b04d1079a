"""What the rows cache keeps of a first start's walk, so the next walk lists no folder that
did not change: the names in a session's snapshots folder and in its run folders' folder,
each kept under that folder's stamp (`WalkKeep.snapshot_names`, `WalkKeep.run_names`), and
the ``stat`` of a ``workflows`` folder taken once for both the walk and a run's key
(`WalkKeep._stat_once`). A forked walker (`wftop.core.index.walkers`) sends what it kept back
to the process that forked it (`WalkKeep.walk_apart`, `WalkKeep.walk_joined`).

Its state lives in `wftop.core.index.rowcache.RowCache`, which holds these as its fields.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from wftop.core.index.cachefile import Stat
from wftop.core.index.rowfile import kept_names
from wftop.core.read.discovery import run_names, snapshot_names
from wftop.core.read.problem import Problem

WORKFLOWS = os.sep + "workflows"
"""How a session's snapshots folder's path ends (`WalkKeep._stat_once`)."""
WalkKept = tuple[dict[str, str], dict[str, Any], list[str]]
"""What was kept of a slice of the walk (`WalkKeep.walk_apart`, `WalkKeep.walk_aside`):
listings, stamps of ``workflows`` folders (flat where a forked walker sends them), stamps
taken for keys that it used."""


class WalkKeep:
    """The rows cache's listings and shared stamps of the walk (a plain class: the fields
    are `wftop.core.index.rowcache.RowCache`'s)."""

    path: Path | None
    stat: Stat
    lstat: Stat
    settled_before: int
    _listed: dict[str, str]
    _listings: dict[str, str]
    _dir_stats: dict[str, os.stat_result | None]
    _keyed: dict[str, os.stat_result | None]

    def snapshot_names(self, folder: str) -> list[str] | None:
        """`wftop.core.read.discovery.snapshot_names` of a session's ``workflows`` folder,
        kept with its stamp (inode, time: a snapshot made, removed or renamed moves it) and
        answered from there while it holds: a ``stat`` instead of a listing, and the very
        ``stat`` the session's key takes (`session_stamp`)."""
        if self.path is None:
            return snapshot_names(folder)
        info: os.stat_result | None
        if folder in self._keyed:
            info = self._keyed.pop(folder)
        else:
            try:
                info = self.stat(folder)
            except (OSError, ValueError):
                info = None
            self._dir_stats[folder] = info
        if info is None:
            return None
        here = f"{info.st_ino}/{info.st_mtime_ns}/"
        listed = self._listed.get(folder)
        names = kept_names(listed, here)
        if names is not None and listed is not None:
            self._listings[folder] = listed  # kept as it was
            return names
        names = snapshot_names(folder)
        if names is not None:
            self._listings[folder] = here + "/".join(names)
        return names

    def run_names(
        self, session_path: str, session_real: str, problems: list[Problem]
    ) -> tuple[list[tuple[str, bool]], str]:
        """`wftop.core.read.discovery.run_names` of a session, kept with the stamp of its
        ``subagents/workflows`` folder (inode, modification and change times: a folder
        made, removed or renamed in it moves them) and answered from there while it holds:
        the two ``lstat`` the walk takes anyway to look for links (and takes once: a listing
        made looks for none again), instead of a listing.
        Kept only when neither folder is a link, every run folder is a folder of its own
        (a link's target may go without its folder's stamp moving), it was listed without
        trouble and it was last modified before `settled_before`."""
        if self.path is None:
            return run_names(session_path, session_real, problems)
        subagents = session_path + os.sep + "subagents"
        workflows = subagents + os.sep + "workflows"
        try:
            info = self.lstat(workflows)
            linked = stat.S_ISLNK(self.lstat(subagents).st_mode) or stat.S_ISLNK(info.st_mode)
        except (OSError, ValueError):
            return run_names(session_path, session_real, problems)
        if linked or not stat.S_ISDIR(info.st_mode):
            return run_names(session_path, session_real, problems)
        here = f"{info.st_ino}/{info.st_mtime_ns}/{info.st_ctime_ns}/"
        real = session_real + os.sep + "subagents" + os.sep + "workflows"
        listed = self._listed.get(workflows)
        kept = kept_names(listed, here)
        if kept and listed is not None:
            self._listings[workflows] = listed  # kept as it was
            return [(name, False) for name in kept], real
        trouble = len(problems)
        found, real = run_names(session_path, session_real, problems, workflows_real=real)
        plain = found and not any(link for _, link in found) and len(problems) == trouble
        if plain and info.st_mtime_ns < self.settled_before:
            self._listings[workflows] = here + "/".join(name for name, _ in found)
        return found, real

    def walk_apart(self) -> Callable[[], WalkKept]:
        """In a forked walker (`wftop.core.index.walkers`), before each slice it walks:
        what it will have kept of that slice (listings, stamps of ``workflows`` folders,
        those taken for keys before it that it used), to send back to `walk_joined`."""
        self._listings, self._dir_stats = {}, {}
        keyed = list(self._keyed)

        def kept() -> WalkKept:
            stats = {path: flat_stat(info) for path, info in self._dir_stats.items()}
            return self._listings, stats, [path for path in keyed if path not in self._keyed]

        return kept

    def walk_aside(self) -> Callable[[], WalkKept]:
        """In the walk's own process, before a slice it walks: what it will have kept of
        that slice, set aside for `walk_joined` to take in the slices' order (its keeping
        from before the slice is its own again meanwhile)."""
        listings, stats = self._listings, self._dir_stats
        self._listings, self._dir_stats = {}, {}

        def kept() -> WalkKept:
            mine = self._listings, self._dir_stats
            self._listings, self._dir_stats = listings, stats
            return (*mine, [])  # the stamps taken for keys it used are gone here already

        return kept

    def walk_joined(self, kept: WalkKept) -> None:
        """Take what was kept of a slice (`walk_apart` in a forked walker, `walk_aside`
        here), as if walked here."""
        listings, stats, used = kept
        self._listings.update(listings)
        made = os.stat_result
        self._dir_stats.update(
            (path, flat if flat is None or isinstance(flat, made) else made(flat))
            for path, flat in stats.items()
        )
        for path in used:
            del self._keyed[path]

    def _stat_once(self, path: str) -> os.stat_result:
        """`stat`, answered by the one `snapshot_names` took of the same folder; one of a
        ``workflows`` folder taken here first is `snapshot_names`'s when the walk comes."""
        if path in self._dir_stats:
            info = self._dir_stats.pop(path)
            if info is None:
                raise FileNotFoundError(path)
            return info
        kept = path.endswith(WORKFLOWS)
        try:
            info = self.stat(path)
        except (OSError, ValueError):
            if kept:
                self._keyed[path] = None
            raise
        if kept:
            self._keyed[path] = info
        return info


def flat_stat(info: os.stat_result | None) -> tuple[Any, ...] | None:
    """A ``stat``'s every field in one tuple, as `os.stat_result` takes them back: two
    fifths less to pickle than the ``stat`` itself (a dict of its named fields each)."""
    if info is None:
        return None
    _, (fields, named) = cast(Reduced, info.__reduce__())
    return (*fields, *named.values())


Reduced = tuple[Any, tuple[tuple[Any, ...], dict[str, Any]]]
"""What a ``stat``'s ``__reduce__`` gives: its type, its fields and its named fields."""
