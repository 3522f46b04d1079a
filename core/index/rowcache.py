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
holds nothing the output does not, and a kept row is printed as it was read: each root's
file is one JSON line of the entries, then the rows' bytes one after the other, each
entry naming its row's length. With each row, what naming its project needs (`Naming`),
so a listing names its projects without decoding a kept row.

Each root has a file of its own (named by a digest of the root's path), so a listing of one
root loads, and writes, only the rows of that root.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from wftop.core.index.cachefile import (
    Key,
    Stat,
    cache_dir,
    session_stamp,
    stamp,
    unstamped_key,
)
from wftop.core.read.discovery import RunFolder
from wftop.core.read.sessions import Owner
from wftop.core.system.atomic import atomic_write

CACHE_VERSION = 13
"""Bump whenever the shape or the meaning of an ``ls --json`` row changes (4: ``host``;
5: ``call_states``; 6: what the run spent, ``cost_usd``, ``tokens``, ``unpriced_models``;
7: the paths kept real, other strings masked with more shapes; 8: ``failures``,
``failed_lines``, and ``failed`` counts failed calls; 9: C1 and bidirectional controls
escaped; 10: the key, one stamp a run and the session's, `wftop.core.index.cachefile`;
11: ``missing_transcripts``, ``cost_is_lower_bound``, and the run folder's stamp; 12:
``status: unreadable`` and ``unreadable_reason``; 13: rows kept as bytes after the
entries, with their `Naming`, and an ended run kept without its journal's stamp)."""


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


Naming = tuple[str | None, str, str]
"""What `wftop.core.index.projects.name_rows` reads of a row: its ``cwd``, ``project`` and
``project_name`` (as printed, masked)."""


@dataclass
class Kept:
    """What a cached row says about its run, besides the row itself."""

    last_activity: float | None
    row: bytes
    ended: bool = False
    """The run has `wftop.core.index.cachefile.ended`: kept without its journal's stamp."""
    naming: Naming | None = None
    """Read from ``row`` when it is kept, if not given."""


@dataclass
class RowCache:
    """Cached rows by journal path, loaded from and saved to one private file per root."""

    path: Path | None
    """The folder of the per-root files; None: nothing is loaded or saved (every row is read)."""
    roots: list[str]
    stat: Stat = os.stat
    """How every path is stamped or looked for (a test counts the calls)."""
    _old: dict[str, Any] = field(default_factory=dict)
    _loaded: dict[str, dict[str, Any]] = field(default_factory=dict)
    _new: dict[str, Any] = field(default_factory=dict)
    _sessions: dict[tuple[str, str, str], Key | None] = field(default_factory=dict)
    hits: int = 0

    @classmethod
    def open(cls, roots: list[str], path: Path | None, stat: Stat = os.stat) -> RowCache:
        cache = cls(path, roots, stat)
        if path is not None:
            for root in roots:
                prefix = _prefix(root)
                entries = load_rows(root_file(path, root))
                mine = {j: e for j, e in entries.items() if j.startswith(prefix)}
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
            self._sessions[place] = session_stamp(folder, self.stat)
        return self._sessions[place]

    def key(self, folder: RunFolder, owner: Owner, superseded_by: str | None) -> Key | None:
        """The run's key now, or None when its row must not be kept whatever it says."""
        return self.find(folder, owner, superseded_by, look=False)[1]

    def find(
        self, folder: RunFolder, owner: Owner, superseded_by: str | None, *, look: bool = True
    ) -> tuple[Kept | None, Key | None]:
        """The row kept for the run of ``folder`` if it holds (`get`), else None and the
        run's key now (None: its row must not be kept). An `ended` run's row is checked by
        one ``stat``, its folder's: its journal is stamped only when the row is not used."""
        if self.path is None or not _utf8(folder.journal):
            return None, None
        session = self._session_stamp(folder)
        if session is None:
            return None, None
        # The run folder's inode and time besides: a transcript deleted or made in it changes
        # what the run spent, and whether that is a lower bound.
        rest = [
            *unstamped_key(owner, superseded_by, session),
            stamp(folder.path, size=False, stat=self.stat),
        ]
        entry = self._old.get(folder.journal) if look else None
        if entry is not None and entry[0].startswith(ENDED):
            kept = self._use(folder, entry, [None, *rest])
            if kept is not None:
                return kept, None
        key = [stamp(folder.journal, stat=self.stat), *rest]
        kept = self._use(folder, entry, key) if entry is not None else None
        return kept, (None if kept is not None else key)

    def get(self, folder: RunFolder, key: Key | None) -> Kept | None:
        """The row kept for the run of ``folder`` under ``key`` (None: read the run)."""
        if key is None:
            return None
        entry = self._old.get(folder.journal)
        if entry is None:
            return None
        if entry[0].startswith(ENDED):  # kept whatever its journal's stamp
            key = [None, *key[1:]]
        return self._use(folder, entry, key)

    def _use(self, folder: RunFolder, entry: list[Any], key: Key) -> Kept | None:
        if entry[0] != key_text(key):
            return None
        named, named_exists = entry[3], entry[4]
        stamped = named is not None and named.startswith(folder.scripts_dir + os.sep)
        if named is not None and not stamped and self._is_file(named) != named_exists:
            return None
        self._new[folder.journal] = entry
        self.hits += 1
        return Kept(entry[1], entry[2], entry[0].startswith(ENDED), (entry[5], entry[6], entry[7]))

    def _is_file(self, path: str) -> bool:
        try:
            return stat.S_ISREG(self.stat(path).st_mode)
        except (OSError, ValueError):
            return False

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
        self._new[journal] = entry

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
                save_rows(root_file(self.path, root), entries)


ENDED = "[null,"
"""How the key of an `ended` run's row begins: no journal stamp."""


def key_text(key: Key) -> str:
    """A key as an entry holds it: its JSON text, one string to compare (a file of
    thousands of entries is read in a few milliseconds: no list of lists for each)."""
    return orjson.dumps(key).decode()


def row_naming(row: bytes) -> Naming | None:
    """The `Naming` of a printed row (None: not a row that can be kept)."""
    try:
        data = orjson.loads(row)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    cwd, project, name = data.get("cwd"), data.get("project"), data.get("project_name")
    if not isinstance(project, str) or not isinstance(name, str):
        return None
    return (cwd, project, name) if cwd is None or isinstance(cwd, str) else None


def load_rows(path: Path) -> dict[str, Any]:
    """The entries of a rows file written by `save_rows` (each with its row's bytes in
    place of its length); a file of another version or shape is an empty cache."""
    try:
        data = path.read_bytes()
        end = data.index(b"\n")
        head = orjson.loads(data[:end])
    except (OSError, ValueError):  # orjson.JSONDecodeError is a ValueError
        return {}
    if not isinstance(head, dict) or head.get("version") != CACHE_VERSION:
        return {}
    entries = head.get("runs")
    if not isinstance(entries, dict):
        return {}
    kept: dict[str, Any] = {}
    at = end + 1
    for journal, entry in entries.items():
        if not _valid(entry):
            return {}
        length = entry[2]
        entry[2] = data[at : at + length]
        at += length
        kept[journal] = entry
    return kept if at == len(data) else {}


def save_rows(path: Path, entries: dict[str, Any]) -> None:
    """Replace a rows file; one that cannot be written is left as it was."""
    heads = {journal: [*entry[:2], len(entry[2]), *entry[3:]] for journal, entry in entries.items()}
    with contextlib.suppress(OSError, TypeError):  # TypeError: an entry JSON cannot hold
        head = orjson.dumps({"version": CACHE_VERSION, "runs": heads})
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        body = [head, b"\n", *(entry[2] for entry in entries.values())]
        atomic_write(path, b"".join(body), sync=False)  # a cache: one a crash loses is made again


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
        and len(entry) == 8
        and isinstance(entry[0], str)
        and (entry[1] is None or isinstance(entry[1], float | int))
        and type(entry[2]) is int
        and entry[2] >= 0
        and (entry[3] is None or isinstance(entry[3], str))
        and isinstance(entry[4], bool)
        and (entry[5] is None or isinstance(entry[5], str))
        and isinstance(entry[6], str)
        and isinstance(entry[7], str)
    )
