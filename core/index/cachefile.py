"""Answers about runs kept between commands: when one still holds, and the files they live in.

One policy serves every such cache (the ``ls --json`` rows of `wftop.core.index.rowcache`, the
status counts of `wftop.core.index.statuscount`):

* An answer is keyed by `run_key`, taken before the run's files are read: the stamps
  (inode, size, modification time) of its journal and snapshot, its owner's liveness and
  pid, the session that superseded it, and whatever else that answer is read from. A file
  that changes while it is read leaves a key that no longer matches.
* An answer is kept only when the run is `settled`: it can change only when those change.

The files are small and private, read whole and replaced whole. A cache only ever costs
time when it is missing, unreadable, of another version or cannot be written: every reader
treats those as an empty cache. Files are private (0700 dir, 0600 file, whatever the umask)
because they name the user's runs; they are written to a temporary name and renamed, so a
reader never sees half a file and two writers never mix.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import orjson

from wftop.core.model import Run
from wftop.core.read.discovery import RunFolder
from wftop.core.read.sessions import Owner


def file_stamp(path: str, *, size: bool = True) -> str:
    """``inode:size:mtime_ns`` of a file (``inode:mtime_ns`` without ``size``, for a folder,
    whose size says nothing); ``-`` when it is absent."""
    try:
        info = os.stat(path)
    except OSError:
        return "-"
    if size:
        return f"{info.st_ino}:{info.st_size}:{info.st_mtime_ns}"
    return f"{info.st_ino}:{info.st_mtime_ns}"


def run_key(folder: RunFolder, owner: Owner, superseded_by: str | None, *more: str) -> str:
    """The key of a cached answer about a run, now: what its status is read from (journal,
    snapshot, owner, supersession), then ``more``, whatever else the answer is read from."""
    pid = owner.entry.pid if owner.entry is not None else ""
    return "|".join(
        (
            file_stamp(folder.journal),
            file_stamp(folder.snapshot),
            f"{owner.liveness.value}:{pid}",
            superseded_by or "",
            *more,
        )
    )


def settled(run: Run) -> bool:
    """Whether the run can change only when what `run_key` stamps changes: it has ended, or
    no owner may be alive. Any other run (running or stalled) changes with the clock, and
    when its owner dies, so nothing about it is kept."""
    return run.ended or not run.owner.may_be_alive


def cache_dir() -> Path:
    """``$WFTOP_CACHE_DIR``, else the platform's user cache dir for wftop."""
    configured = os.environ.get("WFTOP_CACHE_DIR")
    if configured:
        return Path(configured)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("wftop"))


def load_cache(path: Path, version: int) -> dict[str, Any]:
    """The entries of a cache file written by `save_cache` with the same ``version``."""
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    if not isinstance(data, dict) or data.get("version") != version:
        return {}
    entries = data.get("runs")
    return entries if isinstance(entries, dict) else {}


def save_cache(path: Path, version: int, entries: dict[str, Any]) -> None:
    """Replace the cache file; a cache that cannot be written is left as it was."""
    temp = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(temp, flags, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(orjson.dumps({"version": version, "runs": entries}))
        os.replace(temp, path)
    except (OSError, TypeError):  # TypeError: an entry JSON cannot hold
        with contextlib.suppress(OSError):
            os.unlink(temp)
