"""What the rows cache answers of a listing before any run is read: every run found under
the roots, with its kept row where that still holds (`wftop.core.index.rowcache`), else the
run to read (`wftop.core.index.coldpass.scan_rows` reads it).

The fast path of ``wftop ls``: nothing here imports what reads a run (no fold, no reader,
no prices, no process table unless a registry names a session), so a listing whose runs
all hold costs the walk, a ``stat`` a run (an ended one's folder) and the rows' bytes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from operator import itemgetter
from typing import TYPE_CHECKING, Generic, TypeVar

from wftop.core.index.cachefile import Key
from wftop.core.index.rowcache import RowCache
from wftop.core.index.rowfile import Kept, Naming, kept_superseded
from wftop.core.index.supersede import find_superseded
from wftop.core.index.walkers import in_walkers
from wftop.core.read.discovery import run_folders_of
from wftop.core.read.problem import Problem
from wftop.core.read.runfolder import RunFolder
from wftop.core.read.sessions import (
    NO_OWNER,
    Owner,
    local_pid_domain,
    owners_from_entries,
    read_registry,
)

if TYPE_CHECKING:
    from wftop.core.system.procs import ProcessTable

Row = TypeVar("Row")

Recency = tuple[float, str, str, str]
"""Sort key of a listing: newest activity first, then run id, session and root."""

Placed = tuple[Recency, Row, tuple[Problem, ...], Naming | None]
"""A row with where it sorts, the problems its read found, and its `Naming` if kept."""


@dataclass
class RowScan(Generic[Row]):
    rows: list[Row] = field(default_factory=list)
    """One per run, newest activity first (the order of `newest_first`)."""
    problems: list[Problem] = field(default_factory=list)
    namings: list[Naming | None] = field(default_factory=list)
    """Each row's `Naming` when it came from the cache or was read from the row where it
    was printed (None: read it from the row)."""

    @classmethod
    def of(cls, placed: Iterable[Placed[Row]]) -> RowScan[Row]:
        """The rows in their listing's order."""
        ordered = sorted(placed, key=itemgetter(0))
        return cls(
            [entry[1] for entry in ordered],
            [problem for entry in ordered for problem in entry[2]],
            [entry[3] for entry in ordered],
        )


def session_owners(roots: list[str], processes: ProcessTable | None = None) -> dict[str, Owner]:
    """`wftop.core.read.sessions.owners_by_session`; the process table (``processes``, else
    the machine's) is asked only when a registry names a session."""
    entries = [entry for root in roots for entry in read_registry(root)]
    if not entries:
        return {}
    from wftop.core.system.procs import default_table

    return owners_from_entries(entries, processes or default_table(), local_pid_domain())


@dataclass
class KeptRows:
    """Every run under the roots, as far as the rows cache answers for it."""

    folders: list[RunFolder]
    problems: list[Problem]
    """What the walk found wrong (a folder it could not list, a name that is no run id)."""
    owners: dict[str, Owner]
    superseded: dict[str, str]
    kept: list[Placed[bytes]]
    """The rows the cache holds for runs whose files did not change."""
    unread: list[RunFolder]
    """The runs to read: not kept, or changed since."""
    keys: dict[str, Key | None]
    """Journal → the key to keep an unread run's row under once read (None: never kept)."""

    def scan(self) -> RowScan[bytes]:
        """The kept rows in their listing's order, with the walk's problems (the listing,
        when no run is unread)."""
        scan = RowScan.of(self.kept)
        scan.problems[:0] = self.problems
        return scan


def kept_rows(
    roots: list[str],
    cache: RowCache,
    *,
    processes: ProcessTable | None = None,
    meanwhile: Callable[[], object] | None = None,
) -> KeptRows:
    """Walk the roots and answer every run the cache holds a row of that still holds
    (``meanwhile``: done while forked walkers walk, `in_walkers`)."""
    folders, problems = run_folders_of(
        roots, cache.snapshot_names, cache.run_names, walk=in_walkers(cache, meanwhile=meanwhile)
    )
    owners = session_owners(roots, processes)
    superseded = find_superseded(folders)
    if cache.path is None:  # a cache that keeps nothing: every run read, no row kept
        return KeptRows(folders, problems, owners, superseded, [], list(folders), {})
    kept: list[Placed[bytes]] = []
    unread: list[RunFolder] = []
    keys: dict[str, Key | None] = {}
    for folder in folders:
        said = superseded.get(folder.ident) if superseded else None  # nearly always none
        row, key = cache.find(folder, owners.get(folder.session_id, NO_OWNER), said)
        if row is None:
            keys[folder.journal] = key
            unread.append(folder)
            continue
        recency = (-(row.last_activity or 0.0), folder.run_id, folder.session_id, folder.root)
        kept.append((recency, row.row, (), row.naming))
    return KeptRows(folders, problems, owners, superseded, kept, unread, keys)


def rows_before_walk(
    roots: list[str], cache: RowCache, *, processes: ProcessTable | None = None
) -> list[Kept]:
    """The kept rows of the roots whose runs' files did not change, newest first, found
    without walking the roots (no folder is listed): what a view can be shown at once.

    Each row is checked as `kept_rows` checks it, by the stamps of its run's own files and
    its session's, except that the session said to continue the run is the one kept with
    it: only a walk finds a new one (`kept_rows`, the answer to trust, asked next). A run
    whose folder is gone, or whose files changed, is not answered."""
    owners = session_owners(roots, processes)
    found: list[tuple[Recency, Kept]] = []
    for journal, entry in cache.entries():
        folder = folder_of(roots, journal)
        if folder is None:
            continue
        superseded_by = kept_superseded(entry)
        owner = owners.get(folder.session_id, NO_OWNER)
        row, _key = cache.find(folder, owner, superseded_by, journal=journal)
        if row is not None:
            recency = (-(row.last_activity or 0.0), folder.run_id, folder.session_id, folder.root)
            found.append((recency, row))
    found.sort(key=lambda pair: pair[0])
    return [row for _, row in found]


def folder_of(roots: list[str], journal: str) -> RunFolder | None:
    """The run folder a kept journal path names (``<root>/projects/<project>/<session>/
    subagents/workflows/<runId>/journal.jsonl``), under the longest root that holds it."""
    for root in sorted(roots, key=len, reverse=True):
        head = root.rstrip(os.sep) + os.sep
        if not journal.startswith(head):
            continue
        parts = journal[len(head) :].split(os.sep)
        shape = ["projects", "", "", "subagents", "workflows", "", "journal.jsonl"]
        if len(parts) != len(shape) or any(
            want and part != want for part, want in zip(parts, shape, strict=True)
        ):
            return None
        path = journal[: -len(os.sep + "journal.jsonl")]
        return RunFolder(root, parts[1], parts[2], parts[5], path, path)
    return None
