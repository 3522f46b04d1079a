"""The file of the ``ls --json`` rows cache (`wftop.core.index.rowcache`) and what its
entries hold: each root's file is one JSON line, ``{"version", "runs", "listed"}``, then the
rows' bytes one after the other, each entry naming its row's length (a kept row is printed
as it was read: no string of JSON to decode), then the length of the same row as the
engine's stream sends it (an array of its values: `wftop.core.row.array_line`), whose bytes
follow the row's; an entry is ``[key text, last activity, length, named script, whether it
existed, cwd, project, project name, array's length]``; ``listed`` keeps
each folder the walk need not list again as one string, its stamp then its names
(``inode/time/name/…``, `wftop.core.index.rowcache.RowCache.snapshot_names`, read back by
`kept_names`), and which root's file holds a path is `by_root`'s to say.
"""

from __future__ import annotations

import contextlib
import mmap
import os
from binascii import crc32
from dataclasses import dataclass
from itertools import product
from mmap import ACCESS_READ
from pathlib import Path
from types import NoneType
from typing import Any

import orjson

from wftop.core.compared import compared
from wftop.core.index.cachefile import Key
from wftop.core.system.atomic import atomic_write

CACHE_VERSION = 16
"""Bump whenever the shape or the meaning of an ``ls --json`` row changes (4: ``host``;
5: ``call_states``; 6: what the run spent, ``cost_usd``, ``tokens``, ``unpriced_models``;
7: the paths kept real, other strings masked with more shapes; 8: ``failures``,
``failed_lines``, and ``failed`` counts failed calls; 9: C1 and bidirectional controls
escaped; 10: the key, one stamp a run and the session's, `wftop.core.index.cachefile`;
11: ``missing_transcripts``, ``cost_is_lower_bound``, and the run folder's stamp; 12:
``status: unreadable`` and ``unreadable_reason``; 13: rows kept as bytes after the
entries, with their `Naming`, and an ended run kept without its journal's stamp; 14:
the sessions' snapshot listings kept with their folders' stamps; 15: each listing one
string, ``inode/time/name/…``, and the sessions' run folders listed beside; 16: each row
as an array of its values besides, as the engine sends it)."""


Naming = tuple[str | None, str, str]
"""What `wftop.core.index.projects.name_rows` reads of a row: its ``cwd``, ``project`` and
``project_name`` (as printed, masked)."""


ENDED = "[null,"
"""How the key of an `ended` run's row begins: no journal stamp."""


@compared
@dataclass(eq=False, repr=False)
class Kept:
    """What a cached row says about its run, besides the row itself."""

    last_activity: float | None
    row: bytes
    ended: bool = False
    """The run has `wftop.core.index.cachefile.ended`: kept without its journal's stamp."""
    naming: Naming | None = None
    """Read from ``row`` when it is kept, if not given."""
    wire: bytes | None = None
    """The row as the engine's stream sends it (`wftop.core.row.array_line`); made from
    ``row`` when it is saved, if not given."""


def key_text(key: Key) -> str:
    """A key as an entry holds it: its JSON text, one string to compare (a file of
    thousands of entries is read in a few milliseconds: no list of lists for each)."""
    return orjson.dumps(key).decode()


def kept_superseded(entry: list[Any]) -> str | None:
    """The session said to continue the run when its row was kept (in its key)."""
    key = orjson.loads(entry[0])
    said = key[3] if isinstance(key, list) and len(key) > 3 else None
    return said if isinstance(said, str) else None


def row_naming(row: bytes) -> Naming | None:
    """The `Naming` of a printed row (None: not a row that can be kept)."""
    try:
        data = orjson.loads(row)
    except orjson.JSONDecodeError:
        return None
    return naming_of(data) if isinstance(data, dict) else None


def row_array(row: bytes) -> bytes:
    """A printed row as the engine's stream sends it (`wftop.core.row.array_line`; empty:
    not a row, which the engine then reads from ``row`` itself)."""
    from wftop.core.row import array_line  # a row kept without its array: the model with it

    try:
        data = orjson.loads(row)
        return array_line(data) if type(data) is dict else b""
    except (orjson.JSONDecodeError, TypeError):
        return b""


def naming_of(data: dict[str, Any]) -> Naming | None:
    """The `Naming` of a row's JSON fields (None: not a row that can be kept)."""
    cwd, project, name = data.get("cwd"), data.get("project"), data.get("project_name")
    if not isinstance(project, str) or not isinstance(name, str):
        return None
    return (cwd, project, name) if cwd is None or isinstance(cwd, str) else None


def load_rows(path: Path) -> tuple[dict[str, Any], dict[str, str]]:
    """The entries of a rows file written by `save_rows` (each with its row's bytes in
    place of its length), and its sessions' listings; a file of another version or shape
    is an empty cache. The file is mapped, not read: each row is copied once, from the
    page cache (a read copies all of it first: 44 MB at 20,000 runs)."""
    try:
        with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=ACCESS_READ) as data:
            return _rows_of(data)
    except (OSError, ValueError):  # an empty file cannot be mapped; orjson's errors
        return {}, {}


def root_file(folder: Path, root: str) -> Path:
    """The file in ``folder`` that holds the rows of ``root``, named by two CRC-32 of its
    path (`hashlib` loads OpenSSL, 2.5 ms of every listing). Two roots whose names met would
    share a file and each keep only its own rows in it (`by_root`; a listing takes the rows
    under its root alone): time lost, never a wrong row."""
    data = root.encode("utf-8", "surrogateescape")
    return folder / f"{crc32(data):08x}{crc32(data, 0x9E3779B9):08x}.json"


def former_root_file(folder: Path, root: str) -> Path:
    """The file an earlier wftop kept the rows of ``root`` in (named by SHA-256)."""
    from hashlib import sha256

    return folder / f"{sha256(root.encode('utf-8', 'surrogateescape')).hexdigest()[:24]}.json"


def load_root(folder: Path, root: str) -> tuple[dict[str, Any], dict[str, str], Path | None]:
    """`load_rows` of the file of ``root`` in ``folder``; while it is not there, of the file
    an earlier wftop kept them in, named third (its rows are then saved under the new name
    and it is removed: `RowCache.save`)."""
    path = root_file(folder, root)
    if path.exists():
        return (*load_rows(path), None)
    former = former_root_file(folder, root)
    if not former.exists():
        return {}, {}, None
    return (*load_rows(former), former)


def _rows_of(data: mmap.mmap) -> tuple[dict[str, Any], dict[str, str]]:
    end = data.find(b"\n")
    head = orjson.loads(data[:end]) if end >= 0 else None
    if not isinstance(head, dict) or head.get("version") != CACHE_VERSION:
        return {}, {}
    entries, listed = head.get("runs"), head.get("listed")
    if not isinstance(entries, dict) or not isinstance(listed, dict):
        return {}, {}
    at = end + 1
    arrays = []
    for entry in entries.values():  # each length replaced by its row, in place
        if not _valid(entry):
            return {}, {}
        length = entry[2]
        entry[2] = data[at : at + length]
        arrays.append(at + length)
        at += length + entry[8]
    if at != len(data):
        return {}, {}
    # The arrays copied after every row: a warm engine holds them, and lets go of the rows
    # (copied one after the other, their memory is one free stretch then, not a hole each).
    for entry, at in zip(entries.values(), arrays, strict=True):
        entry[8] = data[at : at + entry[8]]
    return entries, {folder: item for folder, item in listed.items() if type(item) is str}


def save_rows(path: Path, entries: dict[str, Any], listed: dict[str, str]) -> None:
    """Replace a rows file; one that cannot be written is left as it was."""
    heads = {
        journal: [*entry[:2], len(entry[2]), *entry[3:8], len(entry[8])]
        for journal, entry in entries.items()
    }
    with contextlib.suppress(OSError, TypeError):  # TypeError: an entry JSON cannot hold
        head = orjson.dumps({"version": CACHE_VERSION, "runs": heads, "listed": listed})
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        rows = (part for entry in entries.values() for part in (entry[2], entry[8]))
        body = [head, b"\n", *rows]
        atomic_write(path, b"".join(body), sync=False)  # a cache: one a crash loses is made again


_ENTRY_TYPES = frozenset(
    product(
        [str],
        [NoneType, float, int],
        [int],
        [NoneType, str],
        [bool],
        [NoneType, str],
        [str],
        [str],
        [int],
    )
)
"""The types an entry's items may have, in order (as orjson reads them: no subclass)."""


def _valid(entry: Any) -> bool:
    return (
        type(entry) is list
        and tuple(map(type, entry)) in _ENTRY_TYPES
        and entry[2] >= 0
        and entry[8] >= 0
    )


def kept_names(kept: str | None, stamp: str) -> list[str] | None:
    """The names a kept listing holds when it was kept under ``stamp`` (``inode/time/``:
    a listing is its folder's stamp and names, each ended by ``/``, which no name holds)."""
    if kept is None or not kept.startswith(stamp):
        return None
    names = kept[len(stamp) :]
    return names.split("/") if names else []


def by_root(roots: list[str], items: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``items`` keyed by path, by the longest of ``roots`` each lies under (a root nested
    in another keeps its own)."""
    if len(roots) == 1:  # every path a listing of one root kept was found under it
        return {roots[0]: items}
    longest_first = sorted(roots, key=len, reverse=True)
    by_root: dict[str, dict[str, Any]] = {root: {} for root in roots}
    for path, item in items.items():
        for root in longest_first:
            if path.startswith(root_prefix(root)):
                by_root[root][path] = item
                break
    return by_root


def root_prefix(root: str) -> str:
    return root.rstrip(os.sep) + os.sep
