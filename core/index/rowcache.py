"""Rows of ``wftop ls --json`` kept between runs, for runs that cannot change on their own.

The policy is `wftop.core.index.cachefile`'s: a row is kept only for a `settled` run (ended, or
no owner may be alive), under its `run_key`, and reused while the key holds. Besides
what the status is read from (journal, snapshot, owner, supersession), a row is read from

* the session transcript's inode (the working directory comes from its first lines)
  and the session's ``workflows/scripts`` folder's inode and modification time (the
  run's script, and its name when the snapshot has none), which join the key;
* whether the script path the snapshot names exists (checked on every use).

Runs that are not settled, runs whose session transcript is gone, runs with unreadable
lines and runs whose paths are not valid UTF-8 are never kept: they are read in full each
time. Rows are stored as printed (secrets already masked), so the cache holds nothing the
output does not.

Each root has a file of its own (named by a digest of the root's path), so a listing of one
root loads, and writes, only the rows of that root.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from wftop.core.index.cachefile import cache_dir, file_stamp, load_cache, run_key, save_cache
from wftop.core.read.discovery import RunFolder
from wftop.core.read.sessions import Owner

CACHE_VERSION = 9
"""Bump whenever the shape or the meaning of an ``ls --json`` row changes (4: ``host``;
5: ``call_states``; 6: what the run spent, ``cost_usd``, ``tokens``, ``unpriced_models``;
7: the paths kept real, other strings masked with more shapes; 8: ``failures``,
``failed_lines``, and ``failed`` counts failed calls; 9: C1 and bidirectional controls
escaped)."""


def rows_cache_path() -> Path:
    """The folder of the rows caches: one file per root in it."""
    return cache_dir() / "ls-rows"


def root_file(folder: Path, root: str) -> Path:
    """The file in ``folder`` that holds the rows of ``root``."""
    digest = hashlib.sha256(root.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return folder / f"{digest}.json"


class NamedScript(NamedTuple):
    """The script path a run's snapshot names, and whether it existed when the run was read."""

    path: str | None
    exists: bool

    @classmethod
    def of(cls, path: str | None) -> NamedScript:
        return cls(path, bool(path and os.path.isfile(path)))


@dataclass
class Kept:
    """What a cached row says about its run, besides the row itself."""

    last_activity: float | None
    row: bytes


@dataclass
class RowCache:
    """Cached rows by journal path, loaded from and saved to one private file per root."""

    path: Path | None
    """The folder of the per-root files; None: nothing is loaded or saved (every row is read)."""
    roots: list[str]
    _old: dict[str, Any] = field(default_factory=dict)
    _loaded: dict[str, dict[str, Any]] = field(default_factory=dict)
    _new: dict[str, Any] = field(default_factory=dict)
    _sessions: dict[str, str | None] = field(default_factory=dict)
    hits: int = 0

    @classmethod
    def open(cls, roots: list[str], path: Path | None) -> RowCache:
        cache = cls(path, roots)
        if path is not None:
            for root in roots:
                prefix = _prefix(root)
                entries = load_cache(root_file(path, root), CACHE_VERSION)
                mine = {j: e for j, e in entries.items() if j.startswith(prefix) and _valid(e)}
                cache._loaded[root] = mine
                cache._old.update(mine)
        return cache

    @property
    def held(self) -> int:
        """Rows loaded from the files of the roots asked for."""
        return len(self._old)

    def _session_stamp(self, folder: RunFolder) -> str | None:
        """The session's part of a key; None when its transcript is gone (never kept)."""
        if folder.session_dir not in self._sessions:
            try:
                transcript = os.stat(folder.transcript).st_ino
            except OSError:
                self._sessions[folder.session_dir] = None
            else:
                # A folder's size says nothing: its inode and time say what changed in it.
                scripts = file_stamp(folder.scripts_dir, size=False)
                self._sessions[folder.session_dir] = f"{transcript}|{scripts}"
        return self._sessions[folder.session_dir]

    def key(self, folder: RunFolder, owner: Owner, superseded_by: str | None) -> str | None:
        """The run's key now, or None when its row must not be kept whatever it says."""
        if self.path is None or not _utf8(folder.journal):
            return None
        session = self._session_stamp(folder)
        if session is None:
            return None
        return run_key(folder, owner, superseded_by, session)

    def get(self, journal: str, key: str | None) -> Kept | None:
        if key is None:
            return None
        entry = self._old.get(journal)
        if entry is None or not _valid(entry) or entry[0] != key:
            return None
        named, named_exists = entry[3], entry[4]
        if named is not None and os.path.isfile(named) != named_exists:
            return None
        self._new[journal] = entry
        self.hits += 1
        return Kept(entry[1], entry[2].encode())

    def put(self, journal: str, key: str | None, kept: Kept, named: NamedScript) -> None:
        """Keep the row of a `settled` run read under ``key``."""
        if key is None or (named.path is not None and not _utf8(named.path)):
            return
        self._new[journal] = [key, kept.last_activity, kept.row.decode(), named.path, named.exists]

    def save(self) -> None:
        """Write each root's file with the rows used or read this time under it (a root
        nested in another keeps its own rows); other roots' files are not touched."""
        if self.path is None:
            return
        longest_first = sorted(self.roots, key=len, reverse=True)
        by_root: dict[str, dict[str, Any]] = {root: {} for root in self.roots}
        for journal, entry in self._new.items():
            for root in longest_first:
                if journal.startswith(_prefix(root)):
                    by_root[root][journal] = entry
                    break
        for root, entries in by_root.items():
            if entries != self._loaded.get(root, {}):
                save_cache(root_file(self.path, root), CACHE_VERSION, entries)


def _prefix(root: str) -> str:
    return root.rstrip(os.sep) + os.sep


def cached_journals(roots: list[str], path: Path | None = None) -> list[tuple[str, float | None]]:
    """(journal path, last activity) of every run the cache holds a row of under ``roots``;
    nothing but the cache is read, and no row is decoded (shell completion asks this, and
    must never scan a tree)."""
    cache = RowCache.open(roots, rows_cache_path() if path is None else path)
    return [(journal, entry[1]) for journal, entry in cache._old.items()]


def _utf8(path: str) -> bool:
    """A path a JSON file can hold (one read from disk may carry undecodable bytes)."""
    try:
        path.encode()
    except UnicodeEncodeError:
        return False
    return True


def _valid(entry: Any) -> bool:
    return (
        isinstance(entry, list)
        and len(entry) == 5
        and isinstance(entry[0], str)
        and (entry[1] is None or isinstance(entry[1], float | int))
        and isinstance(entry[2], str)
        and (entry[3] is None or isinstance(entry[3], str))
        and isinstance(entry[4], bool)
    )
