"""Rows of ``wftop ls --json`` kept between runs, for runs that cannot change on their own.

The policy is `wftop.core.index.cachefile`'s: a row is kept only for a `settled` run (ended, or
no owner may be alive), under its `run_key` (its journal, its owner and supersession, its
session's transcript, snapshots folder and scripts folder: the run's script, and its name
when the snapshot has none), and reused while the key holds; and while the script path the
snapshot names exists as it did when the row was kept (checked on every use, unless it lies
in the session's scripts folder, which the key stamps). The run folder's stamp joins the key:
a transcript deleted in it changes what the run spent.

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

from wftop.core.index.cachefile import (
    Key,
    cache_dir,
    load_cache,
    run_key,
    save_cache,
    session_stamp,
    stamp,
)
from wftop.core.read.discovery import RunFolder
from wftop.core.read.sessions import Owner

CACHE_VERSION = 12
"""Bump whenever the shape or the meaning of an ``ls --json`` row changes (4: ``host``;
5: ``call_states``; 6: what the run spent, ``cost_usd``, ``tokens``, ``unpriced_models``;
7: the paths kept real, other strings masked with more shapes; 8: ``failures``,
``failed_lines``, and ``failed`` counts failed calls; 9: C1 and bidirectional controls
escaped; 10: the key, one stamp a run and the session's, `wftop.core.index.cachefile`;
11: ``missing_transcripts``, ``cost_is_lower_bound``, and the run folder's stamp; 12:
``status: unreadable`` and ``unreadable_reason``)."""


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
    _sessions: dict[tuple[str, str, str], Key | None] = field(default_factory=dict)
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

    def _session_stamp(self, folder: RunFolder) -> Key | None:
        """The session's part of a key (`session_stamp`), made once per session."""
        place = (folder.root, folder.project, folder.session_id)
        if place not in self._sessions:
            self._sessions[place] = session_stamp(folder)
        return self._sessions[place]

    def key(self, folder: RunFolder, owner: Owner, superseded_by: str | None) -> Key | None:
        """The run's key now, or None when its row must not be kept whatever it says."""
        if self.path is None or not _utf8(folder.journal):
            return None
        session = self._session_stamp(folder)
        if session is None:
            return None
        # The run folder's inode and time besides: a transcript deleted or made in it changes
        # what the run spent, and whether that is a lower bound.
        return [*run_key(folder, owner, superseded_by, session), stamp(folder.path, size=False)]

    def get(self, folder: RunFolder, key: Key | None) -> Kept | None:
        """The row kept for the run of ``folder`` under ``key`` (None: read the run)."""
        if key is None:
            return None
        journal = folder.journal
        entry = self._old.get(journal)
        if entry is None or entry[0] != key:
            return None
        named, named_exists = entry[3], entry[4]
        stamped = named is not None and named.startswith(folder.scripts_dir + os.sep)
        if named is not None and not stamped and os.path.isfile(named) != named_exists:
            return None
        self._new[journal] = entry
        self.hits += 1
        return Kept(entry[1], entry[2].encode())

    def put(self, journal: str, key: Key | None, kept: Kept, named: NamedScript) -> None:
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
        and isinstance(entry[0], list)
        and (entry[1] is None or isinstance(entry[1], float | int))
        and isinstance(entry[2], str)
        and (entry[3] is None or isinstance(entry[3], str))
        and isinstance(entry[4], bool)
    )
