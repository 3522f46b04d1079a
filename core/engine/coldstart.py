"""The engine's first look at the roots: every run's row, as early as it can be had.

`first_rows` hands out first the rows the rows cache holds that still hold
(`wftop.core.index.rowcache`: settled runs whose files did not change, no journal read), each
run's folder read from its journal's path, before the roots are walked: a view is sent them
while the engine walks (once they are all out a view may list them: ``kept``). Then it
walks the roots, in a forked child once kept rows are out (`wftop.core.engine.walkapart`:
its loop answers views meanwhile), and reads runs newest sessions first: a run whose kept
row went out is passed over (unless a session superseded it, which only the walk can tell),
a run the walk does not find is said gone once the first rows are out (`FirstRows.gone`),
and the others are read as ``wftop ls`` reads them, every one by forked workers
(`wftop.core.index.fanout.streamed`: the engine has started no thread yet), each sending
back a chunk's rows as it has them: the engine's heap keeps none of the garbage of reading
20,000 runs (it read half of them itself, and their folds' garbage stayed between the rows
it holds). Rows come out in batches as they are had, with a turn of the event loop between
batches so that views connecting meanwhile are answered and sent what there is.
The rows read are kept in the cache for the next start (and ``wftop ls``).

A row is printed once, as ``ls --json`` prints it (names masked), and travels as those
bytes: on one line in the stream, indented in the cache. A cached row goes out without
being decoded into a `RunRow` (`Held`: what naming its project needs is read from it, the
row itself when first asked for): decoding 20,000 of them was most of a warm start's time.

Lazy spend: when `LAZY_SPEND` runs or more are to be read, their rows go out before their
agents' transcripts are read (``cost_pending``: reading them was a third of a first read at
5,000 runs). The engine's live index reads what they spent and sends the rows again, filled
in, as its first change set; only then are they kept in the cache (`FirstRows.unpriced`),
each under the key the worker that filled it in took before reading it
(`wftop.core.engine.seeding.filled_rows`): the workers of the first rows take none (a
tenth of their time, with every view waiting for the list).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import field
from functools import lru_cache, wraps
from sys import intern
from typing import TYPE_CHECKING, Any, NamedTuple, ParamSpec, TypeVar

import orjson

from wftop.core.compared import record
from wftop.core.engine.heldrow import Held, Naming, exact, held, held_read
from wftop.core.index.cachefile import Key
from wftop.core.index.gcpause import paused_gc
from wftop.core.index.rowcache import RowCache
from wftop.core.index.rowfile import Kept
from wftop.core.read.discovery import newest_sessions_first
from wftop.core.read.runfolder import RunFolder
from wftop.core.read.sessions import NO_OWNER, Owner, local_pid_domain, owners_by_session
from wftop.core.stall import DEFAULT_STALL_WINDOW
from wftop.core.system.procs import ProcessTable, default_table

if TYPE_CHECKING:
    from wftop.core.cost.spendbook import SpendBook
    from wftop.core.index.scriptlook import NamedScript

CHUNK = 256
"""Runs read between two turns of the event loop (about 50 ms of reading)."""
KEPT_TURN = 32
"""Kept rows checked between two turns of the event loop (1-2 ms): a view that connects
while they are is answered in a few turns (its accept, its hello, its snapshot), where
turns a `CHUNK` apart kept it waiting 30-110 ms at 5,000 runs."""
TURN = 1024
"""Runs checked against the cache between two turns of the event loop when none is kept (a
first start: a view's hello waited for every run to be checked)."""
LAZY_SPEND = 500
"""Runs to read at or above which the first rows go out without what they spent: below,
reading the transcripts costs less than a second batch of rows to every view."""


class Read(NamedTuple):
    """A run read in a worker: its printed row and what the parent keeps of it."""

    item: bytes
    """The row as ``ls --json`` prints it (empty where it is not kept in the cache)."""
    held: tuple[bytes, str, Naming]
    """The row on one line, its ident and naming (`Held`): the parent decodes nothing."""
    problems: tuple[str, ...]
    last_activity: float | None
    journal: str
    named: NamedScript
    settled: bool
    ended: bool
    """The run has ended, its snapshot says so (kept without its journal's stamp)."""
    key: Key | None
    """Its rows-cache key, taken in the worker before the run was read, where the engine
    took none (a cache that keeps no row: `first_rows`) and the row is kept as it is (not
    one sent without what it spent: the fill takes its key)."""


Given = ParamSpec("Given")
Made = TypeVar("Made")
Emit = Callable[[list[Held], list[str], int, int], None]
"""Called with each batch: the runs had, the problems found, runs had so far, runs found."""


@record
class FirstRows:
    """What `first_rows` did: how many rows went out, and the runs whose rows went out
    without what they spent (journal → its rows-cache key, taken before the run was read):
    kept in the cache once read in full (`RowCache.put`)."""

    count: int
    unpriced: dict[str, Key | None]
    """(None where no key was taken: the fill takes each before it reads the run again.)"""
    gone: tuple[str, ...] = ()
    """Runs whose kept rows went out before the walk, and the walk did not find (removed
    or moved meanwhile): the views are told they went once the first rows are out."""
    folders: list[RunFolder] = field(default_factory=list)
    """The folders of the runs in ``unpriced``, in the order they were read, and"""
    superseded: dict[str, str] = field(default_factory=dict)
    """the walk's superseded runs: the spends fill reads those runs again with what they
    spent and does not walk the roots again (`wftop.core.engine.seeding.filled_rows`; it
    empties ``folders``)."""


def collector_paused(
    run: Callable[Given, Awaitable[Made]],
) -> Callable[Given, Coroutine[Any, Any, Made]]:
    """``run`` with the cyclic collector paused while it runs (`first_rows`: the cache's
    entries, the rows and the run folders are many objects and no cycle, and the
    collector's full passes over them were a tenth of a warm start's first rows at 20,000
    runs), and what it built aged into the oldest generation as collection resumes: the
    young generations' passes walked it all once the last rows were had (40 ms of CPU at
    20,000 runs, while every view waits for the rows' names)."""

    @wraps(run)
    async def paused(*args: Given.args, **kwargs: Given.kwargs) -> Made:
        with paused_gc(aged=True):
            return await run(*args, **kwargs)

    return paused


@collector_paused
async def first_rows(
    roots: list[str],
    emit: Emit,
    *,
    cache: RowCache,
    processes: ProcessTable | None = None,
    now: Callable[[], float] = time.time,
    stall_window: float = DEFAULT_STALL_WINDOW,
    workers: int | None = None,
    lazy_spend: int = LAZY_SPEND,
    spend_book: SpendBook | Callable[[], SpendBook | None] | None = None,
    all_kept: Callable[[], None] = lambda: None,
) -> FirstRows:
    """Every run under the roots, handed to ``emit`` in batches (with ``lazy_spend`` runs
    or more to read, without what they spent: see the module); ``all_kept`` is called once the
    rows the cache kept are all handed out, before the roots are walked (not when none was);
    ``spend_book``, given as how to open it, is opened after that.
    Once some were, the roots are walked by a forked child
    (`wftop.core.engine.walkapart`): the event loop answers a view that connects meanwhile."""
    owners = owners_by_session(roots, processes or default_table(), local_pid_domain())
    early = await _kept_first(cache, owners, emit)
    if early:
        all_kept()
    # What the walk alone reads runs with, imported once the kept rows are out (a view
    # lists them the sooner): the cold pass, its fork fan-out, what runs spent.
    from wftop.core.cost.usage import Spends
    from wftop.core.engine.printing import printed_fields
    from wftop.core.engine.walkapart import walked
    from wftop.core.index.coldpass import ColdPass
    from wftop.core.index.fanout import streamed
    from wftop.core.text.redact import Redactor

    done = len(early)
    walk = await walked(roots, cache, early)
    total = walk.total
    emit([], list(walk.trouble), done, total)
    book = spend_book() if callable(spend_book) else spend_book  # opened after the kept rows
    cold = ColdPass(owners, walk.superseded, now(), stall_window, spend_book=book)
    # The others are read newest sessions first (a session's transcript stamped for them
    # alone).
    left, early = walk.left, dict.fromkeys(walk.gone, "")
    keys: dict[str, Key | None] = {}
    unread: list[RunFolder] = []
    batch: list[Held] = []
    # A cache that keeps no row (a first start) has none to check: each run's key is taken
    # by the worker that reads it, before (the engine took 0.5 s of CPU at 20,000 runs to
    # take them, before any worker was forked); by the fill's, for a row sent without what
    # it spent (kept once filled in).
    looked = cache.held > 0
    for number, folder in enumerate(newest_sessions_first(left), 1):
        superseded = cold.superseded.get(folder.ident)
        owner = cold.owners.get(folder.session_id, NO_OWNER)
        kept, key = cache.find(folder, owner, superseded) if looked else (None, None)
        found = _from_cache(kept, folder) if kept is not None else None
        if found is None:
            keys[folder.journal] = key
            unread.append(folder)
        else:
            batch.append(found)
        if number % CHUNK == 0 and batch:
            done += len(batch)
            emit(batch, [], done, total)
            batch = []
            await asyncio.sleep(0)
        elif number % TURN == 0:
            await asyncio.sleep(0)  # none kept: a view connecting meanwhile is answered
    done += len(batch)
    emit(batch, [], done, total)
    redactor = Redactor.for_json()
    spends = Spends()
    lazy = len(unread) >= lazy_spend

    def keyed(part: Sequence[RunFolder]) -> dict[str, Key | None]:
        """The keys of a chunk's runs not looked up, taken before any of them is read (taken
        between two runs read they cost more, and so did the reading)."""
        return {
            folder.journal: cache.key(
                folder,
                cold.owners.get(folder.session_id, NO_OWNER),
                cold.superseded.get(folder.ident),
            )
            for folder in part
        }

    def work(part: Sequence[RunFolder]) -> list[Read]:
        taken = {} if looked or lazy else keyed(part)
        reads = [
            Read(
                *printed_fields(run.fields, redactor, keep=not lazy),
                tuple(str(problem) for problem in run.problems),
                run.last_activity,
                run.journal,
                run.named,
                run.settled,
                run.ended,
                taken.get(run.journal),
            )
            for run in cold.counted(part, spends, pending=lazy)
        ]
        cold.save_spends()  # in each forked worker too: a project's spends merged into its file
        return reads

    def take(reads: list[Read]) -> None:
        nonlocal done
        made: list[Held] = []
        problems: list[str] = []
        for read in reads:
            if not looked:
                keys[read.journal] = read.key
            made.append(held_read(read.held))
            problems.extend(read.problems)
            if read.settled and not read.problems and not lazy:
                kept = Kept(read.last_activity, read.item, read.ended, wire=read.held[0])
                cache.put(read.journal, keys.get(read.journal), kept, read.named)
        done += len(made)
        emit(made, problems, done, total)

    with paused_gc():
        async for reads in streamed(unread, work, workers=workers, chunk=CHUNK):
            take(reads)
    cache.save()
    if not lazy:
        return FirstRows(done, {}, tuple(early))
    return FirstRows(done, keys, tuple(early), unread, cold.superseded)


async def _kept_first(cache: RowCache, owners: dict[str, Owner], emit: Emit) -> dict[str, str]:
    """Hand out the rows the cache holds that still hold, before the roots are walked: each
    run's folder is read from its journal's path, and its row is checked as the walk would
    check it, were the run superseded by no session (one that is, or is no more, is checked
    again after the walk). Ident → the run folder's path, for each row handed out."""
    folders = [
        (kept[1], folder) for kept in cache.journals() if (folder := kept_folder(kept)) is not None
    ]
    sent: dict[str, str] = {}
    batch: list[Held] = []
    for number, (journal, folder) in enumerate(folders, 1):
        owner = owners.get(folder.session_id, NO_OWNER)
        kept, _key = cache.find(folder, owner, None, journal=journal)
        found = _from_cache(kept, folder) if kept is not None else None
        if found is not None:
            sent[found.ident] = folder.path
            batch.append(found)
        if (number % CHUNK == 0 and batch) or number == len(folders):
            emit(batch, [], len(sent), len(folders))
            batch = []
        if number % KEPT_TURN == 0:
            await asyncio.sleep(0)  # a view connecting meanwhile is answered
    return sent


def kept_folder(kept: tuple[str, str]) -> RunFolder | None:
    """The run folder of a journal the rows cache keeps a row of, under its root (root,
    journal), read from its path: ``<root>/projects/<project>/<session>/subagents/
    workflows/<runId>/journal.jsonl`` (None: not such a path)."""
    root, journal = kept
    head = _root_head(root)
    parts = journal[len(head) :].split(os.sep) if journal.startswith(head) else ()
    if len(parts) != 7:
        return None
    projects, project, session, subagents, workflows, run_id, name = parts
    if (projects, subagents, workflows, name) != _SHAPE or not (project and session and run_id):
        return None
    path = journal[:_NO_NAME]
    return RunFolder(root, project, session, run_id, path, path)


_SHAPE = ("projects", "subagents", "workflows", "journal.jsonl")
"""The fixed names of a kept journal's path under its root (`kept_folder`)."""
_NO_NAME = -len(os.sep + "journal.jsonl")


@lru_cache(maxsize=16)
def _root_head(root: str) -> str:
    """``root`` with one separator after it (the same for every run of a root)."""
    return root.rstrip(os.sep) + os.sep


def _from_cache(kept: Kept, folder: RunFolder) -> Held | None:
    """A cached row of the run of ``folder``, on one line as the stream sends it, not
    decoded into a `RunRow` yet: it must be a JSON object naming that run and what names its
    project (None: read the run instead). Its other fields are checked when the row is first
    asked for (`Held.row`), as the view checks every row it is sent.

    With the `Naming` and the array (`wftop.core.row.array_line`) the cache kept with it, a
    row printed as ``ls`` prints it is not parsed: its first lines must name the run and its
    project as given (`_kept_head`), and its line is the array kept with it."""
    item, naming = kept.row, kept.naming
    if (
        naming is not None
        and kept.wire
        and item.startswith(_kept_head(folder, naming))
        and item.rfind(_LOCAL) >= 0  # as `in`: the host's line is nearer the end
    ):
        return Held(None, kept.wire, ident=folder.ident, naming=_interned(naming))
    from wftop.core.row import RowError, array_line  # a row not printed as ``ls`` prints it

    try:
        data = orjson.loads(item)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    names = (data.get("root"), data.get("session_id"), data.get("run_id"))
    cwd, project, name = data.get("cwd"), data.get("project"), data.get("project_name", "")
    if (
        names != (folder.root, folder.session_id, folder.run_id)
        or data.get("host") is not None
        or not (cwd is None or type(cwd) is str)
        or type(project) is not str
        or type(name) is not str
    ):
        try:  # masked names, or not a row: read as any row from a file is
            return held(item)
        except RowError:
            return None
    naming = _interned((cwd, project, name))
    return Held(None, exact(array_line(data)), ident=folder.ident, naming=naming)


@lru_cache(maxsize=256)
def _interned(naming: Naming) -> Naming:
    """``naming`` with each of its names interned (one copy for a project's runs), made
    once for each project's naming (a start's rows name a few projects each)."""
    cwd, project, name = naming
    return (intern(cwd) if cwd is not None else None, intern(project), intern(name))


_LOCAL = b'\n    "host": null'  # this machine's row: no JSON string holds a raw newline


def _kept_head(folder: RunFolder, naming: Naming) -> bytes:
    """How a row of the run of ``folder`` begins as ``ls`` prints it, naming its project as
    ``naming`` does."""
    cwd, project, name = naming
    after = _after_run(folder.session_id, project, name, folder.root, cwd)
    return _RUN_HEAD + orjson.dumps(folder.run_id) + after


@lru_cache(maxsize=256)
def _after_run(session: str, project: str, name: str, root: str, cwd: str | None) -> bytes:
    """`_kept_head` after the run id: the same for every run of a session."""
    return _AFTER_RUN % tuple(map(orjson.dumps, (session, project, name, root, cwd)))


_RUN_HEAD = b'  {\n    "run_id": '
_AFTER_RUN = (
    b',\n    "session_id": %s,\n    "project": %s,\n    "project_name": %s,\n'
    b'    "root": %s,\n    "cwd": %s,\n'
)
