"""The rows the first rows sent without what they spent, filled in where reading leaves no
garbage in the engine: forked workers read those runs again, with what they spent, and send
back their rows; the settled ones become the seeds of the live index
(`wftop.core.index.held.Seed`), which then holds them without reading them a third time.

Reading a run builds its fold and drops it; an engine that read 20,000 runs itself kept
what its allocator was left with (hundreds of megabytes) while it held a fraction of it.
Each row is sent back with the run's key taken before it was read
(`wftop.core.index.held.RunKeys`): the live index seeds a run only while that key holds.
Where workers cannot be forked (not Linux, or a thread already runs) the engine reads
them itself, a share at a time between turns of its loop.

The seeds are the rows the views were sent of the runs the rows cache used or kept in
this start (`cached_seeds`), filled in or read by the first rows or kept by an earlier
start, under the key the cache kept each with. A start with a warm cache seeds its live
index with every settled run, and reads none of them again.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from wftop.core.cost.spendbook import SpendBook
from wftop.core.cost.usage import Spends
from wftop.core.engine.coldstart import kept_folder
from wftop.core.engine.heldrow import Held, Naming, held_read
from wftop.core.engine.holding import ProjectNames
from wftop.core.engine.printing import printed_fields
from wftop.core.index.cachefile import Key, ended, settled
from wftop.core.index.coldpass import ColdPass, paused_gc
from wftop.core.index.fanout import streamed
from wftop.core.index.held import RunKeys, Seed
from wftop.core.index.keptrows import session_owners
from wftop.core.index.live import LiveIndex
from wftop.core.index.rowcache import RowCache
from wftop.core.index.rowfile import Kept
from wftop.core.index.scriptlook import NamedScript
from wftop.core.model import DEFAULT_STALL_WINDOW, Run
from wftop.core.read.runfolder import RunFolder
from wftop.core.read.sessions import NO_OWNER, Owner
from wftop.core.system.procs import ProcessTable
from wftop.core.text.redact import Redactor

if TYPE_CHECKING:
    from wftop.core.engine.coldstart import FirstRows

CHUNK = 256
"""Runs read in one go: a worker sends back each such chunk's rows as it has them (where
the engine reads them itself, a turn of its loop between two)."""

CacheKey = Callable[[RunFolder, Owner, str | None], Key | None]
"""The rows cache's key of a run, from its folder, owner and the session that continued it
(`wftop.core.index.rowcache.RowCache.key`)."""
Late = tuple[str, Key | None, Kept, NamedScript]
"""A row the live index read, for the rows cache (`keep_late`): its
journal, the key taken before its first row was read, the row, the script it names."""


class Filled(NamedTuple):
    """A run read again in a worker, with what it spent: its printed row, and what the
    engine keeps of it."""

    item: bytes
    held: tuple[bytes, str, Naming]
    """The row on one line, its ident and naming (`wftop.core.engine.heldrow.Held`):
    the engine decodes nothing."""
    problems: int
    last_activity: float | None
    journal: str
    named: NamedScript
    settled: bool
    key: Key | None
    """The run's key taken before it was read (None: it is never seeded)."""
    ended: bool
    """The run has ended, its snapshot says so (kept without its journal's stamp)."""
    cache_key: Key | None = None
    """Its rows-cache key, taken before it was read (None: its row is not kept, or no
    rows cache was given)."""


async def filled_rows(
    roots: list[str],
    folders: list[RunFolder],
    superseded: dict[str, str],
    *,
    processes: ProcessTable | None = None,
    now: Callable[[], float] = time.time,
    stall_window: float = DEFAULT_STALL_WINDOW,
    workers: int | None = None,
    spend_book: SpendBook | None = None,
    cache_key: CacheKey | None = None,
) -> AsyncIterator[list[Filled]]:
    """The runs of ``folders`` under the roots read again, with what they spent, by forked
    workers (the engine itself where none can be forked), a chunk of them at a time as
    each comes: the caller keeps what it needs of a chunk before the next is unpickled,
    so what it lets go of (the printed rows, keys and names it does not keep: some 30 MB
    at 20,000 runs) is made again in the same place, not beside all the others.

    ``folders`` and ``superseded`` are the first rows' walk's (`FirstRows`): the roots are
    not walked again (0.3 s of the engine's CPU at 20,000 runs, before any worker was
    forked); the owners are looked up again. ``folders`` is emptied once the workers have
    it (the engine holds no second list of them while its live index is built).
    ``cache_key``: the rows cache's key of a run (`RowCache.key`), taken with its live
    index's key: the first rows' workers took none (`wftop.core.engine.coldstart`)."""
    cold = ColdPass(
        session_owners(roots, processes),
        superseded,
        now(),
        stall_window,
        spend_book=spend_book,
    )
    keys = RunKeys()
    wanted = list(folders)
    folders.clear()
    redactor = Redactor.for_json()
    spends = Spends()

    def work(part: Sequence[RunFolder]) -> tuple[list[bytes], list[Filled]]:
        # Each run's keys taken before any of the chunk is read, by the worker that reads
        # it: the engine took them all before it forked (0.5 s at 20,000 runs).
        key_of: dict[str, Key | None] = {}
        kept_key_of: dict[str, Key | None] = {}
        for folder in part:
            owner = cold.owners.get(folder.session_id, NO_OWNER)
            superseded = cold.superseded.get(folder.ident)
            key_of[folder.journal] = keys(folder, owner, superseded)
            if cache_key is not None:
                kept_key_of[folder.journal] = cache_key(folder, owner, superseded)
        reads = [
            Filled(
                *printed_fields(run.fields, redactor, keep=True),
                len(run.problems),
                run.last_activity,
                run.journal,
                run.named,
                run.settled,
                key_of[run.journal],
                run.ended,
                kept_key_of.get(run.journal),
            )
            for run in cold.counted(part, spends, pending=False)
        ]
        cold.save_spends()
        # the printed rows first: the rows cache lets go of them once saved, and made first
        # on this side they lie together, apart from the lines the engine holds
        return [read.item for read in reads], reads

    with paused_gc():
        async for _items, reads in streamed(wanted, work, workers=workers, chunk=CHUNK):
            yield reads


def cached_seeds(
    roots: list[str], used: Iterable[tuple[str, str]], held: Mapping[str, Held]
) -> dict[str, Seed]:
    """The live index's seeds by ident: the rows ``held`` (the rows the views were sent) of
    the runs whose rows the rows cache used or kept in this start, under the key it kept
    each with (`wftop.core.index.rowcache.RowCache.used`: journal, key text); each run's
    folder read from its journal's path under the longest root it lies under."""
    longest_first = [root.rstrip(os.sep) + os.sep for root in sorted(roots, key=len, reverse=True)]
    seeds: dict[str, Seed] = {}
    for journal, key in used:
        root = next((root for root in longest_first if journal.startswith(root)), None)
        folder = kept_folder((root[:-1], journal)) if root is not None else None
        entry = held.get(folder.ident) if folder is not None else None
        if entry is not None:
            seeds[entry.ident] = Seed(key, entry.line)
    return seeds


def keep_late(roots: list[str], path: Path | None, late: Iterable[Late]) -> None:
    """Rows the engine's live index read, kept in the rows cache at ``path`` (None: none):
    opened again from what the start saved (the engine let go of it before building its
    index), every row and listing it holds kept with them."""
    cache = RowCache.open(roots, path)
    cache.keep_loaded()
    for journal, key, kept, named in late:
        cache.put(journal, key, kept, named)
    cache.save()


async def kept_filled(
    chunks: AsyncIterator[list[Filled]],
    cache: RowCache,
    unpriced: dict[str, Key | None],
    names: ProjectNames,
) -> dict[str, Held]:
    """The rows filled in (`filled_rows`) that the engine holds again: the settled ones,
    kept in the rows cache (where the live index's seeds come from) under the key their
    worker took, each taken out of ``unpriced`` (its keys, 9 MB at 20,000 runs, are let go
    of before the live index is built). Runs with problems, and runs that may change, are
    left to the live index to read, under the key taken for the fill (`keep_late`)."""
    rows: dict[str, Held] = {}
    async for filled in chunks:
        for one in filled:
            if not one.settled or one.problems:
                unpriced[one.journal] = one.cache_key
                continue
            entry = held_read(one.held)  # its names as the printed row says them
            naming = (entry.cwd, entry.project, entry.project_name)
            kept = Kept(one.last_activity, one.item, one.ended, naming, one.held[0])
            del unpriced[one.journal]
            cache.put(one.journal, one.cache_key, kept, one.named)
            if one.key is not None:
                entry = names.named(entry)
                rows[entry.ident] = entry
        del filled
    cache.save()
    return rows


async def filled_in(
    roots: list[str],
    firsts: FirstRows,
    cache: RowCache,
    names: ProjectNames,
    *,
    processes: ProcessTable | None,
    now: Callable[[], float],
    stall_window: float,
    workers: int | None,
    spend_book: SpendBook | None,
) -> dict[str, Held]:
    """The rows the first rows (``firsts``) sent without what they spent, read again with it
    by forked workers (`filled_rows`) and kept in the rows cache (`kept_filled`); none where
    every first row had it."""
    if not firsts.unpriced:
        return {}
    chunks = filled_rows(
        roots,
        firsts.folders,
        firsts.superseded,
        processes=processes,
        now=now,
        stall_window=stall_window,
        workers=workers,
        spend_book=spend_book,
        cache_key=cache.key,
    )
    return await kept_filled(chunks, cache, firsts.unpriced, names)


def index_read(
    index: LiveIndex,
    unpriced: dict[str, Key | None],
    seeds: dict[str, Seed],
    printed_row: Callable[[Run], bytes],
    rows_of: Callable[[Run], dict[str, Held]],
) -> tuple[dict[str, Held], set[str], list[Late]]:
    """The live index's own cold start (in a worker thread): the rows of the runs it
    read (``rows_of``), each made as its run is read (the index lets go of a settled run's
    fold at once), the idents of every run it holds (the seeded ones, not read, too), and
    what the rows cache is to keep of the runs whose first rows went without what they
    spent, that the rows filled in did not keep (those left in ``unpriced``: `keep_late`)."""
    made: dict[str, Held] = {}
    late: list[Late] = []

    def take(run: Run) -> None:
        journal = run.folder.journal
        if journal in unpriced and settled(run) and not run.problems:
            named = run.snapshot.script_path if run.snapshot is not None else None
            kept = Kept(run.last_activity, printed_row(run), ended(run))
            late.append((journal, unpriced.pop(journal), kept, NamedScript.of(named)))
        made.update(rows_of(run))

    added = index.cold_start(take=take, seeds=seeds).added
    return made, {run.ident for run in added}, late
