"""Run counts per shown status for ``wftop status``, fast enough for a status bar.

A run that completed with failed calls counts as ``partial``, not as ``completed``
(`wftop.core.model.status_word`).

The status of a run is kept in the user cache dir by the policy of `wftop.core.index.cachefile`:
under its `run_key` (journal, owner, supersession, session), and only for a `settled` run
(ended, or no owner may be alive), so a cached status is always the one a fresh read would
give. Two kinds of run are decided without reading anything: superseded runs (found from the
folder layout every time) and runs without a snapshot whose session has no live owner
(dead, whatever their files say: that is all `wftop.core.model.classify` looks at). Every
other run is read as ``wftop ls`` reads it.

`read_statuses` gives each run's shown status with its identity and last activity (what
``wftop status`` holds against the attention window and the runs marked seen); a dead run
decided without reading was last active when its journal was written, as a read says: a
dead run's agent transcripts are not looked at.
"""

from __future__ import annotations

import os
import stat
from collections import Counter
from pathlib import Path
from typing import Any, TypeGuard

from wftop.core.attention import RunState
from wftop.core.index.cachefile import (
    Key,
    cache_dir,
    load_cache,
    run_key,
    save_cache,
    session_stamp,
    settled,
)
from wftop.core.index.coldpass import ColdPass
from wftop.core.index.reader import RunReader
from wftop.core.read.discovery import run_folders_of

CACHE_VERSION = 5
"""Bump whenever the key or the meaning of a cached status changes."""


def cache_path() -> Path:
    return cache_dir() / "status.json"


def count_statuses(
    roots: list[str],
    *,
    now: float,
    stall_window: float,
    cache: Path | None,
) -> Counter[str]:
    """Runs per shown status under ``roots``; ``cache`` None reads every run in full."""
    runs = read_statuses(roots, now=now, stall_window=stall_window, cache=cache)
    return Counter(run.shown for run in runs)


def read_statuses(
    roots: list[str],
    *,
    now: float,
    stall_window: float,
    cache: Path | None,
) -> list[RunState]:
    """Every run under ``roots`` with its shown status; ``cache`` None reads every run."""
    folders, _problems = run_folders_of(roots)
    cold = ColdPass.of(roots, folders, now=lambda: now, stall_window=stall_window)
    context = cold.context()
    cached = load_cache(cache, CACHE_VERSION) if cache is not None else {}
    fresh: dict[str, list[Any]] = {}
    sessions: dict[tuple[str, str, str], Key | None] = {}
    runs: list[RunState] = []
    for folder in folders:
        ident, run_id = folder.ident, folder.run_id
        if ident in cold.superseded:
            runs.append(RunState(ident, run_id, "superseded", None))
            continue
        owner = context.owner(folder)
        settled_dead = not owner.may_be_alive and not os.path.lexists(folder.snapshot)
        if settled_dead and readable(folder.journal):
            # no snapshot, no live owner: dead, whatever the files say
            runs.append(RunState(ident, run_id, "dead", _mtime(folder.journal)))
            continue
        place = (folder.root, folder.project, folder.session_id)
        if place not in sessions:
            sessions[place] = session_stamp(folder)
        session = sessions[place]
        key = run_key(folder, owner, None, session) if session is not None else None
        hit = cached.get(folder.real_path)
        if key is not None and _valid(hit) and hit[0] == key:
            runs.append(RunState(ident, run_id, hit[1], hit[2]))
            fresh[folder.real_path] = hit
            continue
        reader = RunReader(folder)
        reader.refresh(owner_alive=owner.may_be_alive)
        run = reader.run(context)
        runs.append(RunState(ident, run_id, run.shown_status, run.last_activity))
        if settled(run) and key is not None:
            fresh[folder.real_path] = [key, run.shown_status, run.last_activity]
    if cache is not None and fresh != cached:
        save_cache(cache, CACHE_VERSION, fresh)
    return runs


def _mtime(path: str) -> float | None:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


def readable(journal: str) -> bool:
    """The journal opens as a file, or is not there: a run without a snapshot whose journal
    cannot be read is unreadable, not dead (`wftop.core.model.classify`)."""
    try:
        fd = os.open(journal, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return True
    except (OSError, ValueError):
        return False
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode)
    finally:
        os.close(fd)


def _valid(entry: object) -> TypeGuard[list[Any]]:
    """A cache entry as `read_statuses` writes it: ``[key, status, last activity]``."""
    return (
        isinstance(entry, list)
        and len(entry) == 3
        and isinstance(entry[0], list)
        and isinstance(entry[1], str)
        and (
            entry[2] is None
            or (isinstance(entry[2], float | int) and not isinstance(entry[2], bool))
        )
    )
