"""Whether the scripts kept rows' snapshots name are files, as a cached listing checks them
(`wftop.core.index.rowcache.RowCache`): a ``stat`` a script at most, and none for a script
under a folder found missing in the same listing."""

from __future__ import annotations

import os
import stat
from typing import NamedTuple

from wftop.core.index.cachefile import Stat


class NamedScript(NamedTuple):
    """The script path a run's snapshot names, and whether it existed when the run was read."""

    path: str | None
    exists: bool

    @classmethod
    def of(cls, path: str | None) -> NamedScript:
        return cls(path, bool(path and os.path.isfile(path)))


class ScriptLooks:
    """The folders above the scripts looked at in one listing, and whether each is there."""

    def __init__(self, stat: Stat) -> None:
        self.stat = stat
        self._folders: dict[str, bool] = {}

    def is_file(self, path: str) -> bool:
        """Whether ``path`` is a file; one under a folder found missing in this listing is
        not, and costs no ``stat`` (a tree copied from another machine names scripts where
        that machine kept them: thousands, under one folder missing here)."""
        if self._under_missing(path):
            return False
        try:
            return stat.S_ISREG(self.stat(path).st_mode)
        except FileNotFoundError:
            self._note_missing(path)
            return False
        except (OSError, ValueError):
            return False

    def _under_missing(self, path: str) -> bool:
        """Whether the nearest folder above ``path`` known in this listing is missing (a
        folder under a missing one is noted missing too: the next script named in it is
        answered at once)."""
        parent = at = path.rfind(os.sep)
        while at > 0:
            known = self._folders.get(path[:at])
            if known is not None:
                if not known and at != parent:
                    self._folders[path[:parent]] = False
                return not known
            at = path.rfind(os.sep, 0, at)
        return False

    def _note_missing(self, path: str) -> None:
        """Note the folders above a missing ``path`` that are missing too, up to one that is
        there (or known)."""
        at = path.rfind(os.sep)
        while at > 0 and path[:at] not in self._folders:
            try:
                self.stat(path[:at])
            except FileNotFoundError:
                self._folders[path[:at]] = False
                at = path.rfind(os.sep, 0, at)
                continue
            except (OSError, ValueError):
                pass
            self._folders[path[:at]] = True
            return
