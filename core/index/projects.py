"""The names a listing gives its projects: the shortest tail of each working directory that no
other project of the same listing ends with.

Five projects in ``…/api-errors/proj``, ``…/kill-resume/proj`` and so on all read ``proj`` by
their last folder alone; here they read ``api-errors/proj`` and ``kill-resume/proj``, and a
project whose last folder is its own keeps it (``web``). A name depends on every run listed,
so it is made per listing (`project_names`), never kept with a run's row: a row keeps the last
folder alone (`wftop.core.read.runfolder.short_project`), and a listing renames it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from wftop.core.read.runfolder import short_project


def project_key(cwd: str | None, slug: str) -> str:
    """What tells one project from another: its working directory, else (not known) the
    project folder's slug. Grouping by project groups by this."""
    return (cwd.rstrip("/") or cwd) if cwd else f"slug:{slug}"


def unique_tails(paths: Iterable[str]) -> dict[str, str]:
    """Each path → its shortest tail of whole folders that is the tail of no other path
    (the whole path when every tail of it is another's: ``/a/b`` beside ``/x/a/b``)."""
    parts = {path: [part for part in path.split("/") if part] or [path] for path in set(paths)}
    by_last: defaultdict[str, list[str]] = defaultdict(list)
    for path, folders in parts.items():
        by_last[folders[-1]].append(path)
    names = {}
    for last, same in by_last.items():
        if len(same) == 1:
            names[same[0]] = last
            continue
        for path in same:
            folders = parts[path]
            others = [parts[other] for other in same if other != path]
            for depth in range(2, len(folders) + 1):
                tail = folders[-depth:]
                if all(other[-depth:] != tail for other in others):
                    names[path] = "/".join(tail)
                    break
            else:
                names[path] = path
    return names


def project_names(projects: Iterable[tuple[str | None, str]]) -> dict[str, str]:
    """`project_key` → the name a listing shows, for the (cwd, slug) of each run listed."""
    keys = {project_key(cwd, slug): (cwd, slug) for cwd, slug in projects}
    tails = unique_tails(key for key, (cwd, _slug) in keys.items() if cwd)
    names = {}
    for key, (cwd, slug) in keys.items():
        names[key] = tails[key] if cwd else short_project(None, slug)
    taken: defaultdict[str, list[str]] = defaultdict(list)
    for key, name in names.items():
        taken[name].append(key)
    for same in taken.values():
        if len(same) > 1:  # a slug's end that reads as another's name: the whole slug
            for key in same:
                if key.startswith("slug:"):
                    names[key] = key[len("slug:") :]
    return names


def name_rows(rows: Iterable[dict[str, Any]], mask: Callable[[str], str]) -> list[int]:
    """Give each listed row (an ``ls --json`` or ``stats --json`` run: ``cwd``, ``project``,
    ``project_name``) the name its listing gives its project, masked with ``mask``; the
    positions of the rows whose name changed."""
    listed = list(rows)
    names = project_names((row.get("cwd"), str(row.get("project", ""))) for row in listed)
    changed = []
    for at, row in enumerate(listed):
        name = mask(names[project_key(row.get("cwd"), str(row.get("project", "")))])
        if row.get("project_name") != name:
            row["project_name"] = name
            changed.append(at)
    return changed
