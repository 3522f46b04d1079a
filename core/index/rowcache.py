"""Rows of ``wftop ls --json`` kept between runs, for runs that cannot change on their own.

The policy is `wftop.core.index.cachefile`'s: a row is kept only for a `settled` run (ended, or
no owner may be alive), under its `run_key` (its journal, its owner and supersession, its
session's transcript, snapshots folder and scripts folder: the run's script, and its name
when the snapshot has none), and reused while the key holds; and while the script path the
snapshot names exists as it did when the row was kept (checked on every use, unless it lies
in the session's scripts folder, which the key stamps). The run folder's stamp joins the key:
a transcript made or deleted in it changes what the run spent. A run that has `ended` (its
snapshot says so) is kept without its journal's stamp: one ``stat`` a run, its folder's,
and three a session.

Runs that are not settled, runs whose session transcript is gone, runs with unreadable
lines and runs whose paths are not valid UTF-8 are never kept: they are read in full each
time. Rows are stored as printed (secrets already masked, controls escaped), so the cache
holds nothing the output does not, and a kept row is printed as it was read (the file:
`wftop.core.index.rowfile`). With each row, what naming its project needs (`Naming`), so
a listing names its projects without decoding a kept row; with each session, the names
of its snapshots, kept under its snapshots folder's stamp (`RowCache.snapshot_names`), so
the walk lists no such folder that did not change.

Each root has a file of its own (named by a digest of the root's path), so a listing of one
root loads, and writes, only the rows of that root.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wftop.core.compared import compared
from wftop.core.index.cachefile import (
    Key,
    Stat,
    cache_dir,
    session_folder_stamp,
    stamp,
    unstamped_key,
)
from wftop.core.index.rowfile import (
    ENDED,
    Kept,
    by_root,
    key_text,
    load_root,
    root_file,
    root_prefix,
    row_array,
    row_naming,
    save_rows,
)
from wftop.core.index.scriptlook import NamedScript, ScriptLooks
from wftop.core.index.walkkeep import WalkKeep
from wftop.core.read.runfolder import RunFolder
from wftop.core.read.sessions import Owner

SETTLE_NS = 2_000_000_000
"""How long ago a folder must have been modified for its listing to be kept (`run_names`)."""


def rows_cache_path() -> Path:
    """The folder of the rows caches: one file per root in it."""
    return cache_dir() / "ls-rows"


class _Session:
    """What the keys of a session's runs share, made once per session (a plain class: a
    dataclass is made at import, 0.5 ms of every listing's start)."""

    __slots__ = ("stamp", "scripts", "_owner", "_superseded_by", "_middle")

    def __init__(self, stamp: Key | None, scripts: str) -> None:
        self.stamp = stamp
        """`wftop.core.index.cachefile.session_stamp` (None: the transcript is gone, no row is
        kept)."""
        self.scripts = scripts
        """The session's scripts folder, with a separator after it."""
        self._owner: Owner | None = None
        self._superseded_by: str | None = None
        self._middle = ""

    def middle(self, owner: Owner, superseded_by: str | None, stamp: Key) -> str:
        """The text of a run's key between its journal's stamp and its folder's
        (`unstamped_key` with the session's ``stamp``, as `key_text` prints it), made
        again only for another owner or superseding session than the last run's."""
        if owner is not self._owner or superseded_by != self._superseded_by:
            shared = unstamped_key(owner, superseded_by, stamp)
            self._owner, self._superseded_by = owner, superseded_by
            self._middle = key_text(shared)[1:-1]
        return self._middle


@compared
@dataclass(eq=False, repr=False)
class RowCache(WalkKeep):
    """Cached rows by journal path, loaded from and saved to one private file per root."""

    path: Path | None
    """The folder of the per-root files; None: nothing is loaded or saved (every row is read)."""
    roots: list[str]
    stat: Stat = os.stat
    """How every path is stamped or looked for (a test counts the calls)."""
    lstat: Stat = os.lstat
    """How a session's ``subagents`` and ``subagents/workflows`` folders are stamped
    (`run_names`: the walk takes both to look for links)."""
    settled_before: int = 0
    """A folder last modified after this (ns since the epoch) is listed, its names not kept:
    two changes within one tick of the file system's clock can leave its stamp as it was."""
    _old: dict[str, Any] = field(default_factory=dict)
    _loaded: dict[str, dict[str, Any]] = field(default_factory=dict)
    _new: dict[str, Any] = field(default_factory=dict)
    _sessions: dict[tuple[str, str, str], _Session] = field(default_factory=dict)
    _listed: dict[str, str] = field(default_factory=dict)
    """Sessions' ``workflows`` folders → their stamp and ``wf_…`` names kept (`snapshot_names`),
    and their ``subagents/workflows`` folders → their stamp and run folders' names
    (`run_names`), each as one string (`kept_names`)."""
    _listings: dict[str, str] = field(default_factory=dict)
    _dir_stats: dict[str, os.stat_result | None] = field(default_factory=dict)
    _keyed: dict[str, os.stat_result | None] = field(default_factory=dict)
    """Sessions' ``workflows`` folders stamped for a key before the walk came to them (the
    engine checks its kept rows, then walks): the walk's `snapshot_names` takes that
    ``stat`` (None: there was none), as a key takes the walk's when the walk comes first."""
    _former: dict[str, Path] = field(default_factory=dict)
    """Roots whose rows were loaded from where an earlier wftop kept them: saved anew."""
    hits: int = 0
    _scripts: ScriptLooks = field(init=False)

    def __post_init__(self) -> None:
        self._scripts = ScriptLooks(self.stat)

    @classmethod
    def open(
        cls, roots: list[str], path: Path | None, stat: Stat = os.stat, lstat: Stat = os.lstat
    ) -> RowCache:
        cache = cls(path, roots, stat, lstat, time.time_ns() - SETTLE_NS)
        if path is not None:
            for root in roots:
                prefix = root_prefix(root)
                entries, listed, former = load_root(path, root)
                if former is not None:
                    cache._former[root] = former
                mine = entries  # a file holds one root's rows, unless two roots' digests meet
                if not all(journal.startswith(prefix) for journal in entries):
                    mine = {j: e for j, e in entries.items() if j.startswith(prefix)}
                cache._loaded[root] = mine
                # One root's rows and listings as loaded, not copied: nothing changes them.
                cache._old = {**cache._old, **mine} if cache._old else mine
                cache._listed = {**cache._listed, **listed} if cache._listed else listed
        return cache

    @property
    def held(self) -> int:
        """Rows loaded from the files of the roots asked for."""
        return len(self._old)

    def journals(self) -> list[tuple[str, str]]:
        """(root, journal) of every row loaded, in the order they were kept."""
        return [(root, journal) for root, rows in self._loaded.items() for journal in rows]

    def entries(self) -> list[tuple[str, list[Any]]]:
        """(journal, entry) of every row loaded."""
        return list(self._old.items())

    def used(self) -> list[tuple[str, str]]:
        """(journal, key text) of every row used or kept in this listing (what `save`
        writes): the engine's live index is seeded with them (`wftop.core.index.held.Seed`)."""
        return [(journal, entry[0]) for journal, entry in self._new.items()]

    def keep_loaded(self) -> None:
        """Save again every row and listing loaded, with what is put after (a cache opened
        again to add rows to what was saved)."""
        self._new.update(self._old)
        self._listings.update(self._listed)

    def _session(self, folder: RunFolder) -> _Session:
        """The session's part of a key (`session_stamp`) and its scripts folder's path with
        a separator after it, made once per session."""
        place = (folder.root, folder.project, folder.session_id)
        made = self._sessions.get(place)
        if made is None:
            session = folder.session_dir  # made once: each path made of it joins no more
            scripts = session + os.sep + "workflows" + os.sep + "scripts" + os.sep
            shared = session_folder_stamp(session, self._stat_once)
            made = self._sessions[place] = _Session(shared, scripts)
        return made

    def key(self, folder: RunFolder, owner: Owner, superseded_by: str | None) -> Key | None:
        """The run's key now, or None when its row must not be kept whatever it says."""
        return self.find(folder, owner, superseded_by, look=False)[1]

    def find(
        self,
        folder: RunFolder,
        owner: Owner,
        superseded_by: str | None,
        *,
        look: bool = True,
        journal: str | None = None,
    ) -> tuple[Kept | None, Key | None]:
        """The row kept for the run of ``folder`` if it holds (`get`), else None and the
        run's key now (None: its row must not be kept). An `ended` run's row is checked by
        one ``stat``, its folder's: its journal is stamped only when the row is not used.
        A key is compared as the text an entry holds, made of the session's part made
        once (`_Session.middle`) and the stamps: no list is made or printed for a row
        that holds. ``journal``: the folder's `RunFolder.journal` where the caller has it
        (a kept row's, the path it is kept under: not made again, nor hashed again to find
        its entry)."""
        if self.path is None:
            return None, None
        session = self._session(folder)
        shared = session.stamp
        if shared is None:
            return None, None
        if journal is None:
            journal = folder.journal
        middle = session.middle(owner, superseded_by, shared)
        # The run folder's inode and time besides: a transcript deleted or made in it changes
        # what the run spent, and whether that is a lower bound. Its stamp as `key_text`
        # prints it, made here: two integers need no JSON encoder.
        try:
            info = self.stat(folder.path)
        except (OSError, ValueError):
            here: list[int] = []
            tail = f"{middle},[]]"
        else:
            here = [info.st_ino, info.st_mtime_ns]
            tail = f"{middle},[{info.st_ino},{info.st_mtime_ns}]]"
        entry = self._old.get(journal) if look else None
        if entry is not None and entry[0] == ENDED + tail:
            kept = self._use(journal, session.scripts, entry, ended=True)
            if kept is not None:
                return kept, None
        mine = stamp(journal, stat=self.stat)
        if entry is not None and entry[0] == f"[{key_text(mine)},{tail}":
            kept = self._use(journal, session.scripts, entry, ended=False)
            if kept is not None:
                return kept, None
        if not _utf8(journal):
            return None, None
        return None, [mine, *unstamped_key(owner, superseded_by, shared), here]

    def get(self, folder: RunFolder, key: Key | None) -> Kept | None:
        """The row kept for the run of ``folder`` under ``key`` (None: read the run)."""
        if key is None:
            return None
        entry = self._old.get(folder.journal)
        if entry is None:
            return None
        ended = entry[0].startswith(ENDED)
        if ended:  # kept whatever its journal's stamp
            key = [None, *key[1:]]
        if entry[0] != key_text(key):
            return None
        return self._use(folder.journal, self._session(folder).scripts, entry, ended=ended)

    def _use(self, journal: str, scripts: str, entry: list[Any], *, ended: bool) -> Kept | None:
        """The kept row of ``entry``, whose key holds (`ended`: kept without its journal's
        stamp), if the script its snapshot names (outside the session's ``scripts``
        folder) is as it was."""
        named = entry[3]
        outside = named is not None and not named.startswith(scripts)
        if outside and self._scripts.is_file(named) != entry[4]:
            return None
        self._new[journal] = entry
        self.hits += 1
        return Kept(entry[1], entry[2], ended, (entry[5], entry[6], entry[7]), entry[8])

    def put(self, journal: str, key: Key | None, kept: Kept, named: NamedScript) -> None:
        """Keep the row of a `settled` run read under ``key``."""
        if key is None or (named.path is not None and not _utf8(named.path)):
            return
        naming = kept.naming if kept.naming is not None else row_naming(kept.row)
        if naming is None:
            return
        if kept.ended:
            key = [None, *key[1:]]
        entry = [key_text(key), kept.last_activity, kept.row, named.path, named.exists, *naming]
        self._new[journal] = [*entry, kept.wire]  # None: made from the row when saved

    def save(self) -> None:
        """Write each root's file with the rows used or read this time under it (a root
        nested in another keeps its own rows); other roots' files are not touched."""
        if self.path is None:
            return
        for entry in self._new.values():
            if entry[8] is None:
                entry[8] = row_array(entry[2])
        rows, listings = by_root(self.roots, self._new), by_root(self.roots, self._listings)
        for root, entries in rows.items():
            listed = {name: self._listed.get(name) for name in listings[root]}
            former = self._former.get(root)
            if entries != self._loaded.get(root, {}) or listings[root] != listed or former:
                save_rows(root_file(self.path, root), entries, listings[root])
            if former is not None and root_file(self.path, root).exists():
                former.unlink(missing_ok=True)  # its rows are in the new file


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
