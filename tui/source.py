"""Where the app gets its runs: the live index, and a read-ahead of the newest runs.

`open_index` builds ``wftop.core.index.live.LiveIndex`` over the roots; the app talks to
that alone (``cold_start``, then ``changes``). Its cold start hands out nothing until
it has read every run, so `preview_runs` reads about a hundred of the newest runs
ahead of it, for the first screen to paint while it works.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable

from wftop.core.index.changeset import ChangeSet
from wftop.core.index.live import LiveIndex
from wftop.core.model import DEFAULT_STALL_WINDOW
from wftop.core.read.discovery import RunFolder, session_run_folders
from wftop.core.system.procs import ProcessTable

PREVIEW_RUNS = 100


def newest_folders(roots: list[str], count: int) -> list[RunFolder]:
    """Run folders of the most recently active sessions, about ``count`` of them.

    Sessions are ordered by their transcript's modification time (a listing and a
    stat per session, no walk of every run folder), newest first, and their run
    folders taken until ``count`` are found.
    """
    sessions: list[tuple[float, str, str, str]] = []
    for root in roots:
        try:
            projects = [entry for entry in os.scandir(os.path.join(root, "projects"))]
        except OSError:
            continue
        for project in projects:
            try:
                if not project.is_dir():
                    continue
                entries = list(os.scandir(project.path))
            except OSError:
                continue
            times: dict[str, float] = {}
            for entry in entries:
                if entry.name.endswith(".jsonl"):
                    with contextlib.suppress(OSError):
                        times[entry.name[:-6]] = entry.stat().st_mtime
            for entry in entries:
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    continue
                if is_dir:
                    stamp = times.get(entry.name, 0.0)
                    sessions.append((stamp, root, project.name, entry.name))
    sessions.sort(reverse=True)
    folders: list[RunFolder] = []
    seen: set[str] = set()
    for _stamp, root, project_name, session in sessions:
        for folder in session_run_folders(root, project_name, session, []):
            if folder.real_path not in seen:
                seen.add(folder.real_path)
                folders.append(folder)
        if len(folders) >= count:
            break
    return folders


def preview_runs(index: LiveIndex, count: int = PREVIEW_RUNS) -> ChangeSet:
    """About ``count`` of the newest runs of the index's roots, read ahead of its cold start.

    The cold start hands out nothing until it has read every run: the screen can
    paint these while it works. The index reads them as its cold start will
    (``LiveIndex.read_ahead``), so they agree with what the cold start then hands out.
    Costs one listing per project and ``count`` runs read twice.
    """
    runs = index.read_ahead(newest_folders(list(index.roots), count))
    return ChangeSet(0, tuple(runs), (), ())


def open_index(
    roots: list[str],
    *,
    processes: ProcessTable | None = None,
    now: Callable[[], float] = time.time,
    stall_window: float = DEFAULT_STALL_WINDOW,
) -> LiveIndex:
    """The live index over ``roots``."""
    return LiveIndex(roots, processes=processes, now=now, stall_window=stall_window)
