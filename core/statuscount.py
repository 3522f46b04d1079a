"""Run counts per status for ``wftop status``, fast enough for a status bar.

A run that has ended (its snapshot is current: completed, failed, killed) keeps its status
until its journal or snapshot changes, so its status is cached by the size and mtime of both
files in the user cache dir. A run without a snapshot whose session has no
live owner is dead without reading anything (that is all `wftop.core.model.classify` looks at).
Every other run (running or stalled: the ones that depend on the clock) is read in full each
time, as ``wftop ls`` reads it. Superseded runs are found from the folder layout every time.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from wftop.core.cachefile import cache_dir, load_cache, save_cache
from wftop.core.coldpass import find_superseded
from wftop.core.discovery import RunFolder, find_run_folders
from wftop.core.reader import RunReader
from wftop.core.sessions import Liveness, Owner, local_pid_domain, owners_by_session

ENDED = ("completed", "failed", "killed")
CACHE_VERSION = 1


def cache_path() -> Path:
    return cache_dir() / "status.json"


def signature(folder: RunFolder) -> str | None:
    """Size and mtime of the journal and the snapshot; None when either is missing."""
    try:
        journal = os.stat(folder.journal)
        snapshot = os.stat(folder.snapshot)
    except OSError:
        return None
    return f"{journal.st_size}:{journal.st_mtime_ns}:{snapshot.st_size}:{snapshot.st_mtime_ns}"


def count_statuses(
    roots: list[str],
    *,
    now: float,
    stall_window: float,
    cache: Path | None,
) -> Counter[str]:
    """Runs per status value under ``roots``; ``cache`` None reads every run in full."""
    from wftop.core.procs import ProcFs

    folders: list[RunFolder] = []
    seen: set[str] = set()
    for root in roots:
        found, _problems = find_run_folders(root)
        for folder in found:
            if folder.real_path not in seen:
                seen.add(folder.real_path)
                folders.append(folder)
    superseded = find_superseded(folders)
    owners = owners_by_session(roots, ProcFs(), local_pid_domain())
    cached = load_cache(cache, CACHE_VERSION) if cache is not None else {}
    fresh: dict[str, list[str]] = {}
    counts: Counter[str] = Counter()
    for folder in folders:
        if folder.ident in superseded:
            counts["superseded"] += 1
            continue
        owner = owners.get(folder.session_id, Owner(Liveness.ABSENT))
        if not owner.may_be_alive and not os.path.lexists(folder.snapshot):
            counts["dead"] += 1  # no snapshot, no live owner: dead, whatever the files say
            continue
        sig = signature(folder)
        hit = cached.get(folder.real_path)
        if sig is not None and hit is not None and hit[0] == sig:
            counts[hit[1]] += 1
            fresh[folder.real_path] = hit
            continue
        reader = RunReader(folder)
        reader.refresh()
        run = reader.build(
            owner=owner,
            cwd=None,
            now=now,
            stall_window=stall_window,
        )
        status = run.status.value
        counts[status] += 1
        if sig is not None and status in ENDED:
            fresh[folder.real_path] = [sig, status]
    if cache is not None and fresh != cached:
        save_cache(cache, CACHE_VERSION, fresh)
    return counts
