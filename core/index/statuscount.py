"""Run counts per shown status for ``wftop status``, fast enough for a status bar.

A run that completed with failed calls counts as ``partial``, not as ``completed``
(`wftop.core.model.status_word`).

The status of a run is kept in the user cache dir by the policy of `wftop.core.index.cachefile`:
under its `run_key` (journal, snapshot, owner, supersession), and only for a `settled` run
(ended, or no owner may be alive), so a cached status is always the one a fresh read would
give. Two kinds of run are decided without reading anything: superseded runs (found from the
folder layout every time) and runs without a snapshot whose session has no live owner
(dead, whatever their files say: that is all `wftop.core.model.classify` looks at). Every
other run is read as ``wftop ls`` reads it.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import TypeGuard

from wftop.core.index.cachefile import cache_dir, load_cache, run_key, save_cache, settled
from wftop.core.index.coldpass import ColdPass
from wftop.core.index.reader import RunReader
from wftop.core.read.discovery import run_folders_of

CACHE_VERSION = 3
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
    folders, _problems = run_folders_of(roots)
    cold = ColdPass.of(roots, folders, now=lambda: now, stall_window=stall_window)
    context = cold.context()
    cached = load_cache(cache, CACHE_VERSION) if cache is not None else {}
    fresh: dict[str, list[str]] = {}
    counts: Counter[str] = Counter()
    for folder in folders:
        if folder.ident in cold.superseded:
            counts["superseded"] += 1
            continue
        owner = context.owner(folder)
        if not owner.may_be_alive and not os.path.lexists(folder.snapshot):
            counts["dead"] += 1  # no snapshot, no live owner: dead, whatever the files say
            continue
        key = run_key(folder, owner, None)
        hit = cached.get(folder.real_path)
        if _valid(hit) and hit[0] == key:
            counts[hit[1]] += 1
            fresh[folder.real_path] = hit
            continue
        reader = RunReader(folder)
        reader.refresh(owner_alive=owner.may_be_alive)
        run = reader.run(context)
        counts[run.shown_status] += 1
        if settled(run):
            fresh[folder.real_path] = [key, run.shown_status]
    if cache is not None and fresh != cached:
        save_cache(cache, CACHE_VERSION, fresh)
    return counts


def _valid(entry: object) -> TypeGuard[list[str]]:
    """A cache entry as `count_statuses` writes it: ``[key, status]``."""
    return (
        isinstance(entry, list)
        and len(entry) == 2
        and isinstance(entry[0], str)
        and isinstance(entry[1], str)
    )
