"""Answers about runs kept between commands: when one still holds, and the files they live in.

One policy serves every such cache (the ``ls --json`` rows of `wftop.core.index.rowcache`, the
status counts of `wftop.core.index.statuscount`):

* An answer is keyed by `run_key`, taken before the run's files are read: the stamp (inode,
  size, modification time) of its journal, its owner's liveness and pid, the session that
  superseded it, and its session's stamp (`session_stamp`): the session transcript's (every
  process that works in the session writes it, a resume first of all, and the working
  directory is read from its first lines), the snapshots folder's and the scripts folder's
  (inode and time: a snapshot or a script written, removed or replaced). One ``stat`` a run
  and three a session: a snapshot is written again in place only by a resume, which writes
  the session transcript before it. A run that has `ended` needs not even its journal's:
  the rows cache keeps its row under its folder's stamp alone.
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
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from wftop.core.read.runfolder import RunFolder
from wftop.core.read.sessions import Owner
from wftop.core.system.atomic import atomic_write

if TYPE_CHECKING:
    from wftop.core.model import Run

Key = list[Any]
"""What a cached answer is kept under (a JSON list: compared as it was read)."""

Stat = Callable[[str], os.stat_result]
"""How a cache stats a path (``os.stat``; a test counts the calls)."""


def stamp(path: str, *, size: bool = True, stat: Stat = os.stat) -> list[int]:
    """``[inode, size, mtime_ns]`` of a file (``[inode, mtime_ns]`` without ``size``, for a
    folder, whose size says nothing); ``[]`` when it is absent."""
    try:
        info = stat(path)
    except (OSError, ValueError):
        return []
    if size:
        return [info.st_ino, info.st_size, info.st_mtime_ns]
    return [info.st_ino, info.st_mtime_ns]


def session_stamp(folder: RunFolder, stat: Stat = os.stat) -> Key | None:
    """The session's part of a run's key (see the module); None when its transcript is gone
    (its runs' answers are never kept)."""
    return session_folder_stamp(folder.session_dir, stat)


def session_folder_stamp(session: str, stat: Stat = os.stat) -> Key | None:
    """`session_stamp` of the session whose folder is ``session`` (`RunFolder.session_dir`):
    the paths it stamps are made from it, its transcript beside it (`RunFolder.transcript`),
    where each joined the root and the names under it again."""
    transcript = stamp(session + ".jsonl", stat=stat)
    if not transcript:
        return None
    snapshots = session + os.sep + "workflows"  # the folder of `RunFolder.snapshot`
    return [
        transcript,
        stamp(snapshots, size=False, stat=stat),
        stamp(snapshots + os.sep + "scripts", size=False, stat=stat),  # `RunFolder.scripts_dir`
    ]


def run_key(
    folder: RunFolder, owner: Owner, superseded_by: str | None, session: Key, stat: Stat = os.stat
) -> Key:
    """The key of a cached answer about a run, now: its journal's stamp, its owner, the
    session that superseded it, its session's stamp."""
    return [stamp(folder.journal, stat=stat), *unstamped_key(owner, superseded_by, session)]


def unstamped_key(owner: Owner, superseded_by: str | None, session: Key) -> Key:
    """`run_key` after its journal's stamp: what needs no ``stat`` of the run's own."""
    pid = owner.entry.pid if owner.entry is not None else None
    return [owner.liveness.value, pid, superseded_by, session]


def ended(run: Run) -> bool:
    """Whether the run has ended and its snapshot says so: nothing appends to its journal
    but a resume, and a resume writes the session transcript (which `session_stamp`
    stamps) before it runs a call. Its journal need not be stamped. A settled run that has
    not ended (killed with no snapshot, its owner gone) may have a writer no registry
    shows, or be resumed from another machine sharing the folder: its journal is stamped."""
    return run.ended and run.snapshot is not None and run.snapshot_current


def settled(run: Run) -> bool:
    """Whether the run can change only when what `run_key` stamps changes: it has ended, or
    no owner may be alive. Any other run (running or stalled) changes with the clock, and
    when its owner dies, so nothing about it is kept. Nor about an unreadable run: what
    makes it readable again (a mode) changes no stamp."""
    if run.unreadable_reason is not None:
        return False
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
    with contextlib.suppress(OSError, TypeError):  # TypeError: an entry JSON cannot hold
        data = orjson.dumps({"version": version, "runs": entries})
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        atomic_write(path, data, sync=False)  # a cache: one a crash loses is made again
