"""Run folders that came or went: what the live index lists again when a root, a project or
a session folder changed (file events name folders, not the runs in them)."""

from __future__ import annotations

import os
from collections.abc import Callable

from wftop.core.index.changeset import Batch
from wftop.core.index.reader import RunReader
from wftop.core.index.runtable import RunTable
from wftop.core.index.touch import Kind, Touch
from wftop.core.read.discovery import session_run_folders
from wftop.core.read.runfolder import RunFolder


def rescan(
    table: RunTable,
    kinds: dict[Kind, list[Touch]],
    batch: Batch,
    alive: Callable[[RunFolder], bool],
    back: Callable[[RunFolder], RunReader | None] = lambda folder: None,
) -> None:
    """List again the sessions the touches name (every session of a project or root that
    changed): runs gone are untracked, runs new are tracked and read (``alive``: whether a
    folder's owner may be alive), but those that come back unread (``back``:
    `wftop.core.index.revive.Ghosts.take`)."""
    sessions: set[tuple[str, str, str]] = set()
    for touch in root_projects(table, kinds.get(Kind.ROOT, [])) + kinds.get(Kind.PROJECT, []):
        project_dir = os.path.join(touch.root, "projects", touch.project)
        try:
            with os.scandir(project_dir) as entries:
                names = {entry.name for entry in entries if entry.is_dir()}
        except OSError:
            names = set()
        place = (touch.root, touch.project)
        known = {key[2] for key in table.by_session if key[:2] == place}
        sessions.update((touch.root, touch.project, name) for name in names | known)
    for kind in (Kind.SESSION, Kind.RUN_FOLDER):
        sessions.update((t.root, t.project, t.session) for t in kinds.get(kind, []))
    for root, project, session in sorted(sessions):
        found = session_run_folders(root, project, session, [])
        present = {folder.ident for folder in found}
        for ident in table.session_idents(root, project, session) - present:
            table.untrack(ident, batch)
        for folder in found:
            reader = table.admit(folder, batch, back)
            if reader is not None and folder.ident not in batch.revived:
                reader.refresh(owner_alive=alive(folder))


def root_projects(table: RunTable, touches: list[Touch]) -> list[Touch]:
    """A root (or its ``projects/``) that came or went: every project of it, on disk or
    known, to list again; and the watch to set up anew."""
    found: list[Touch] = []
    for root in sorted({touch.root for touch in touches}):
        try:
            with os.scandir(os.path.join(root, "projects")) as entries:
                names = {entry.name for entry in entries if entry.is_dir()}
        except OSError:
            names = set()
        names |= {key[1] for key in table.by_session if key[0] == root}
        found += [Touch(Kind.PROJECT, root=root, project=name) for name in sorted(names)]
        table.rewatch = True
    return found
