"""The file of the ``ls --json`` rows cache (`wftop.core.index.rowcache`) and what its
entries hold: each root's file is one JSON line, ``{"version", "runs", "listed"}``, then the
rows' bytes one after the other, each entry naming its row's length (a kept row is printed
as it was read: no string of JSON to decode); an entry is ``[key text, last activity,
length, named script, whether it existed, cwd, project, project name]``.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import orjson

from wftop.core.index.cachefile import Key
from wftop.core.system.atomic import atomic_write

CACHE_VERSION = 14
"""Bump whenever the shape or the meaning of an ``ls --json`` row changes (4: ``host``;
5: ``call_states``; 6: what the run spent, ``cost_usd``, ``tokens``, ``unpriced_models``;
7: the paths kept real, other strings masked with more shapes; 8: ``failures``,
``failed_lines``, and ``failed`` counts failed calls; 9: C1 and bidirectional controls
escaped; 10: the key, one stamp a run and the session's, `wftop.core.index.cachefile`;
11: ``missing_transcripts``, ``cost_is_lower_bound``, and the run folder's stamp; 12:
``status: unreadable`` and ``unreadable_reason``; 13: rows kept as bytes after the
entries, with their `Naming`, and an ended run kept without its journal's stamp; 14:
the sessions' snapshot listings kept with their folders' stamps)."""


Naming = tuple[str | None, str, str]
"""What `wftop.core.index.projects.name_rows` reads of a row: its ``cwd``, ``project`` and
``project_name`` (as printed, masked)."""


ENDED = "[null,"
"""How the key of an `ended` run's row begins: no journal stamp."""


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
    if not isinstance(data, dict):
        return None
    cwd, project, name = data.get("cwd"), data.get("project"), data.get("project_name")
    if not isinstance(project, str) or not isinstance(name, str):
        return None
    return (cwd, project, name) if cwd is None or isinstance(cwd, str) else None


def load_rows(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The entries of a rows file written by `save_rows` (each with its row's bytes in
    place of its length), and its sessions' snapshot listings; a file of another version
    or shape is an empty cache."""
    try:
        data = path.read_bytes()
        end = data.index(b"\n")
        head = orjson.loads(data[:end])
    except (OSError, ValueError):  # orjson.JSONDecodeError is a ValueError
        return {}, {}
    if not isinstance(head, dict) or head.get("version") != CACHE_VERSION:
        return {}, {}
    entries, listed = head.get("runs"), head.get("listed")
    if not isinstance(entries, dict) or not isinstance(listed, dict):
        return {}, {}
    kept: dict[str, Any] = {}
    at = end + 1
    for journal, entry in entries.items():
        if not _valid(entry):
            return {}, {}
        length = entry[2]
        entry[2] = data[at : at + length]
        at += length
        kept[journal] = entry
    if at != len(data):
        return {}, {}
    return kept, {folder: item for folder, item in listed.items() if _valid_listing(item)}


def save_rows(path: Path, entries: dict[str, Any], listed: dict[str, Any]) -> None:
    """Replace a rows file; one that cannot be written is left as it was."""
    heads = {journal: [*entry[:2], len(entry[2]), *entry[3:]] for journal, entry in entries.items()}
    with contextlib.suppress(OSError, TypeError):  # TypeError: an entry JSON cannot hold
        head = orjson.dumps({"version": CACHE_VERSION, "runs": heads, "listed": listed})
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        body = [head, b"\n", *(entry[2] for entry in entries.values())]
        atomic_write(path, b"".join(body), sync=False)  # a cache: one a crash loses is made again


def _valid_listing(item: Any) -> bool:
    return (
        isinstance(item, list)
        and len(item) == 2
        and isinstance(item[0], list)
        and all(type(part) is int for part in item[0])
        and isinstance(item[1], list)
        and all(isinstance(name, str) for name in item[1])
    )


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
