"""From config roots to runs: find every run folder, read each one, classify it.

`scan_roots` gives `wftop.core.model.Run` objects (the views need them). `scan_rows` gives
one caller-made row per run instead, and deals the folders out to forked workers on a
machine with several CPUs (`wftop.core.index.fanout`): a cold ``wftop ls`` of thousands of runs is
per-run work that needs nothing from the other runs.
"""

from __future__ import annotations

import gc
import glob
import os
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Generic, NamedTuple, TypeVar, cast

from wftop.core.cost.spendbook import SpendBook
from wftop.core.index.cachefile import Key, ended, settled
from wftop.core.index.context import RunContext, no_cwd
from wftop.core.index.fanout import fan_out
from wftop.core.index.naming import sorted_listing
from wftop.core.index.reader import LIST_KEEP_BYTES, RunReader
from wftop.core.index.rowcache import Kept, NamedScript, Naming, RowCache
from wftop.core.index.supersede import find_superseded
from wftop.core.model import DEFAULT_STALL_WINDOW, Run
from wftop.core.read.discovery import RunFolder, run_folders_of
from wftop.core.read.jsonl import Problem
from wftop.core.read.sessions import (
    NO_OWNER,
    Owner,
    local_pid_domain,
    owners_by_session,
    transcript_cwd,
)
from wftop.core.system.procs import ProcessTable, default_table

Row = TypeVar("Row")

Recency = tuple[float, str, str, str]
"""Sort key of `newest_first`: newest activity first, then run id, session and root."""


@dataclass
class ScanResult:
    runs: list[Run] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def _recency(run: Run) -> Recency:
    return (-(run.last_activity or 0.0), run.run_id, run.session_id, run.folder.root)


def newest_first(runs: Iterable[Run]) -> list[Run]:
    return sorted(runs, key=_recency)


class SessionFacts:
    """Per-session facts shared by its runs (working directory), read once."""

    def __init__(self) -> None:
        self._cwd: dict[str, str | None] = {}
        self._scripts: dict[str, list[str]] = {}

    def scripts(self, folder: str) -> list[str]:
        """`wftop.core.index.naming.sorted_listing` of a session's scripts folder, listed once."""
        names = self._scripts.get(folder)
        if names is None:
            names = self._scripts[folder] = sorted_listing(folder)
        return names

    def cwd(self, folder: RunFolder) -> str | None:
        """From the session transcript; if it is gone, from an agent transcript's records."""
        key = folder.transcript
        if key not in self._cwd:
            found = transcript_cwd(key)
            if found is None:
                agents = sorted(glob.glob(os.path.join(glob.escape(folder.path), "agent-*.jsonl")))
                found = transcript_cwd(agents[0]) if agents else None
            self._cwd[key] = found
        return self._cwd[key]

    def known(self, folder: RunFolder) -> bool:
        """The session's working directory has been looked for and found."""
        return self._cwd.get(folder.transcript) is not None

    def forget(self, folder: RunFolder) -> None:
        """Look for the session's working directory again next time it is asked."""
        self._cwd.pop(folder.transcript, None)


@contextmanager
def paused_gc(*, freeze: bool = False) -> Iterator[None]:
    """No cyclic garbage collection while a cold scan builds many acyclic objects.

    The collector would otherwise walk the growing heap again and again for nothing.
    ``freeze``: what was built is kept for long (a live index), so it is moved out of the
    collector's sight before collection resumes (``gc.freeze``): otherwise the first
    collections after the pause walk every object built during it, holding the interpreter
    lock for a few hundred milliseconds (for 5,000 runs) while the app's loop waits.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if enabled:
            gc.enable()


@dataclass(frozen=True)
class ColdPass:
    """What every run of one cold pass shares: roots' owners, supersession, the clock."""

    owners: dict[str, Owner]
    superseded: dict[str, str]
    moment: float
    stall_window: float = DEFAULT_STALL_WINDOW
    keep_bytes: int = LIST_KEEP_BYTES
    spend_book: SpendBook | None = None
    """What transcripts spent, kept between processes; each process that reads runs
    writes what it read into it (`save_spends`)."""

    @classmethod
    def of(
        cls,
        roots: list[str],
        folders: list[RunFolder],
        *,
        processes: ProcessTable | None = None,
        now: Callable[[], float] = time.time,
        stall_window: float = DEFAULT_STALL_WINDOW,
        keep_bytes: int = LIST_KEEP_BYTES,
        spend_book: SpendBook | None = None,
    ) -> ColdPass:
        owners = owners_by_session(roots, processes or default_table(), local_pid_domain())
        superseded = find_superseded(folders)
        return cls(owners, superseded, now(), stall_window, keep_bytes, spend_book)

    def context(self, facts: SessionFacts | None = None) -> RunContext:
        """The `RunContext` of every run of this pass; working directories come from
        ``facts``, and are not looked up without them."""
        cwd = facts.cwd if facts is not None else no_cwd
        return RunContext(self.owners, self.superseded, self.moment, self.stall_window, cwd)

    def read(
        self, folders: Iterable[RunFolder], *, for_rows: bool = False, spend: bool = True
    ) -> Iterator[Run]:
        """Each folder read once and classified, in the order given (``for_rows``: for their
        rows alone, `RunReader`'s counting read; ``spend`` False: no transcript read for
        what they spent, the rows say it is to come)."""
        facts = SessionFacts()
        context = self.context(facts)
        with paused_gc():
            for folder in folders:
                reader = RunReader(
                    folder,
                    keep_bytes=self.keep_bytes,
                    for_rows=for_rows,
                    spend_book=self.spend_book,
                )
                reader.count_spend = reader.count_spend and spend
                alive = context.owner(folder).may_be_alive
                reader.refresh(owner_alive=alive, listing=facts.scripts)
                yield reader.run(context)

    def save_spends(self) -> None:
        """What this process read of transcripts, written into the spend book (if any)."""
        if self.spend_book is not None:
            self.spend_book.save()


def scan_roots(
    roots: list[str],
    *,
    processes: ProcessTable | None = None,
    now: Callable[[], float] = time.time,
    stall_window: float = DEFAULT_STALL_WINDOW,
    keep_bytes: int = LIST_KEEP_BYTES,
    run_id: str | None = None,
    run_ids: Collection[str] | None = None,
) -> ScanResult:
    """A cold index of every run under the roots, newest activity first (``run_id``: only
    the runs of that id, wherever they are, ``run_ids``: of those ids; the others are not
    read)."""
    result = ScanResult()
    folders, problems = run_folders_of(roots)
    if run_id is not None:
        folders = [folder for folder in folders if folder.run_id == run_id]
    if run_ids is not None:
        folders = [folder for folder in folders if folder.run_id in run_ids]
    result.problems.extend(problems)
    cold = ColdPass.of(
        roots,
        folders,
        processes=processes,
        now=now,
        stall_window=stall_window,
        keep_bytes=keep_bytes,
    )
    for run in cold.read(folders):
        result.runs.append(run)
        result.problems.extend(run.problems)
    result.runs = newest_first(result.runs)
    return result


@dataclass
class RowScan(Generic[Row]):
    rows: list[Row] = field(default_factory=list)
    """One per run, newest activity first (the order of `newest_first`)."""
    problems: list[Problem] = field(default_factory=list)
    namings: list[Naming | None] = field(default_factory=list)
    """Each row's `Naming` when it came from the cache (None: read it from the row)."""


def scan_rows(
    roots: list[str],
    make_row: Callable[[Run], Row],
    *,
    processes: ProcessTable | None = None,
    now: Callable[[], float] = time.time,
    stall_window: float = DEFAULT_STALL_WINDOW,
    workers: int | None = None,
    cache: RowCache | None = None,
    spend_book: SpendBook | None = None,
) -> RowScan[Row]:
    """`scan_roots`, but one ``make_row(run)`` per run, possibly made in forked workers.

    ``make_row`` runs in whichever process read the run, so its result must pickle
    (keep it to bytes, strings, tuples); ``workers`` None picks by CPUs and tree size.
    With a ``cache`` (rows must then be bytes), runs it holds are not read at all.
    """
    scan: RowScan[Row] = RowScan()
    folders, problems = run_folders_of(roots)
    scan.problems.extend(problems)
    cold = ColdPass.of(
        roots,
        folders,
        processes=processes,
        now=now,
        stall_window=stall_window,
        spend_book=spend_book,
    )
    made: list[tuple[Recency, Row, tuple[Problem, ...], Naming | None]] = []
    keys: dict[str, Key | None] = {}
    unread: list[RunFolder] = []
    for folder in folders:
        if cache is not None:
            owner = cold.owners.get(folder.session_id, NO_OWNER)
            kept, key = cache.find(folder, owner, cold.superseded.get(folder.ident))
            if kept is not None:
                recency = (
                    -(kept.last_activity or 0.0),
                    folder.run_id,
                    folder.session_id,
                    folder.root,
                )
                made.append((recency, cast(Row, kept.row), (), kept.naming))
                continue
            keys[folder.journal] = key
        unread.append(folder)

    def hand(part: Sequence[RunFolder]) -> list[Made[Row]]:
        made = [
            Made(
                _recency(run),
                make_row(run),
                run.problems,
                run.last_activity,
                run.folder.journal,
                NamedScript.of(run.snapshot.script_path if run.snapshot is not None else None),
                settled(run),
                ended(run),
            )
            for run in cold.read(part, for_rows=True)
        ]
        cold.save_spends()  # in each worker: each run folder's spends are one file
        return made

    with paused_gc():
        for fresh in fan_out(unread, hand, workers=workers):
            made.append((fresh.recency, fresh.row, fresh.problems, None))
            if cache is None or not fresh.settled or fresh.problems:
                continue  # only rows of settled runs read without trouble are kept
            if isinstance(fresh.row, bytes):
                kept = Kept(fresh.last_activity, fresh.row, fresh.ended)
                cache.put(fresh.journal, keys.get(fresh.journal), kept, fresh.named)
    made.sort(key=lambda entry: entry[0])
    for _, row, trouble, naming in made:
        scan.rows.append(row)
        scan.problems.extend(trouble)
        scan.namings.append(naming)
    if cache is not None:
        cache.save()
    return scan


class Made(NamedTuple, Generic[Row]):
    """A row made in a worker, with what the parent needs to sort and keep it."""

    recency: Recency
    row: Row
    problems: tuple[Problem, ...]
    last_activity: float | None
    journal: str
    named: NamedScript
    settled: bool
    """The run can change only when its files do (``wftop.core.index.cachefile.settled``)."""
    ended: bool
    """The run has ended, its snapshot says so (``wftop.core.index.cachefile.ended``)."""
