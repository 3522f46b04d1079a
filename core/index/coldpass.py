"""From config roots to runs: find every run folder, read each one, classify it.

`scan_roots` gives `wftop.core.model.Run` objects (the views need them). `scan_rows` gives
one caller-made row per run instead, and deals the folders out to forked workers on a
machine with several CPUs (`wftop.core.index.fanout`): a cold ``wftop ls`` of thousands of runs is
per-run work that needs nothing from the other runs.
"""

from __future__ import annotations

import glob
import os
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar, cast

from wftop.core.cost.spendbook import SpendBook
from wftop.core.index.cachefile import ended, settled
from wftop.core.index.context import RunContext, no_cwd
from wftop.core.index.gcpause import paused_gc as paused_gc
from wftop.core.index.keptrows import (
    KeptRows,
    Placed,
    Recency,
    RowScan,
    kept_rows,
    session_owners,
)
from wftop.core.index.listkeep import LIST_KEEP_BYTES
from wftop.core.index.naming import sorted_listing
from wftop.core.index.reader import RunReader
from wftop.core.index.rowcache import RowCache
from wftop.core.index.rowfile import Kept, Naming, row_naming
from wftop.core.index.scriptlook import NamedScript
from wftop.core.index.supersede import find_superseded
from wftop.core.model import DEFAULT_STALL_WINDOW, Run
from wftop.core.read.discovery import run_folders_of
from wftop.core.read.journal import JournalFold, folding
from wftop.core.read.jsonl import Problem
from wftop.core.read.runfolder import RunFolder
from wftop.core.read.sessions import Owner, transcript_cwd
from wftop.core.system.procs import ProcessTable

if TYPE_CHECKING:  # what reads transcripts is needed only where a row is made of a run
    from wftop.core.cost.usage import Spends
    from wftop.core.index.countrow import Counted

Row = TypeVar("Row")


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
        self._cwd: dict[tuple[str, str, str], str | None] = {}
        """By session (`_session`): its transcript's path is made only when it is read."""
        self._scripts: dict[str, list[str]] = {}

    def scripts(self, folder: str) -> list[str]:
        """`wftop.core.index.naming.sorted_listing` of a session's scripts folder, listed once."""
        names = self._scripts.get(folder)
        if names is None:
            names = self._scripts[folder] = sorted_listing(folder)
        return names

    def cwd(self, folder: RunFolder) -> str | None:
        """From the session transcript; if it is gone, from an agent transcript's records."""
        key = _session(folder)
        if key not in self._cwd:
            found = transcript_cwd(folder.transcript)
            if found is None:
                agents = sorted(glob.glob(os.path.join(glob.escape(folder.path), "agent-*.jsonl")))
                found = transcript_cwd(agents[0]) if agents else None
            self._cwd[key] = found
        return self._cwd[key]

    def known(self, folder: RunFolder) -> bool:
        """The session's working directory has been looked for and found."""
        return self._cwd.get(_session(folder)) is not None

    def forget(self, folder: RunFolder) -> None:
        """Look for the session's working directory again next time it is asked."""
        self._cwd.pop(_session(folder), None)


def _session(folder: RunFolder) -> tuple[str, str, str]:
    """The session of a run folder, as `SessionFacts` keeps what it read of it: its root,
    project and id, which name its transcript (`RunFolder.transcript`, a path made again at
    each ask: a list asks for every run)."""
    return folder.root, folder.project, folder.session_id


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
        owners = session_owners(roots, processes)
        superseded = find_superseded(folders)
        return cls(owners, superseded, now(), stall_window, keep_bytes, spend_book)

    def context(self, facts: SessionFacts | None = None) -> RunContext:
        """The `RunContext` of every run of this pass; working directories come from
        ``facts``, and are not looked up without them."""
        cwd = facts.cwd if facts is not None else no_cwd
        return RunContext(self.owners, self.superseded, self.moment, self.stall_window, cwd)

    def read(
        self,
        folders: Iterable[RunFolder],
        *,
        for_rows: bool = False,
        spend: bool = True,
        packed: bool = True,
    ) -> Iterator[Run]:
        """Each folder read once and classified, in the order given (``for_rows``: for their
        rows alone, `RunReader`'s counting read; ``spend`` False: no transcript read for
        what they spent, the rows say it is to come; ``packed`` False: their calls' results
        kept as parsed, `JournalFold.packs`, for a process that reads them once and ends)."""
        for reader, context in self._readers(
            folders, for_rows=for_rows, spend=spend, packed=packed
        ):
            run = reader.run(context)
            if self.spend_book is not None and settled(run):
                reader.vouch_spends()  # its first plan takes the transcripts' spends as read
            yield run

    def counted(
        self, folders: Iterable[RunFolder], spends: Spends, *, pending: bool
    ) -> Iterator[Counted]:
        """`read` ``for_rows``, each run's row made straight from its reader
        (`wftop.core.index.countrow.counted_row`: the same fields as ``RunRow.of(run,
        spends, pending=pending)``'s), no `Run` made but where that row needs one.
        ``pending``: what they spent is not read, the rows say it is to come."""
        # not at the top: a plan reads one run, and makes no row
        from wftop.core.index.countrow import Counted, counted_row
        from wftop.core.row import RunRow

        for reader, context in self._readers(folders, for_rows=True, spend=not pending):
            counted = counted_row(reader, context, pending=pending)
            if counted is None:
                run = reader.run(context)
                fields = RunRow.of(run, spends, pending=pending).json_fields()
                counted = Counted(
                    fields,
                    run.problems,
                    run.last_activity,
                    run.folder.journal,
                    reader.names.named,
                    settled(run),
                    ended(run),
                )
            if self.spend_book is not None and counted.settled:
                reader.vouch_spends()
            yield counted

    def _readers(
        self, folders: Iterable[RunFolder], *, for_rows: bool, spend: bool, packed: bool = True
    ) -> Iterator[tuple[RunReader, RunContext]]:
        """Each folder's reader, as `read` reads it, with the pass's context."""
        facts = SessionFacts()
        context = self.context(facts)
        with paused_gc():
            for folder in folders:
                reader = RunReader(
                    folder,
                    keep_bytes=self.keep_bytes,
                    for_rows=for_rows,
                    spend_book=self.spend_book,
                    once=True,
                )
                reader.count_spend = reader.count_spend and spend
                if not packed and not for_rows:
                    reader.fold = JournalFold(packs=False)
                    reader.tail.sink = folding(reader.fold, folder.journal)  # as it is read
                alive = context.owner(folder).may_be_alive
                reader.refresh(owner_alive=alive, listing=facts.scripts)
                yield reader, context

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
    packed: bool = True,
) -> ScanResult:
    """A cold index of every run under the roots, newest activity first (``run_id``: only
    the runs of that id, wherever they are, ``run_ids``: of those ids; the others are not
    read; ``packed`` False: their results kept as parsed, `ColdPass.read`)."""
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
    for run in cold.read(folders, packed=packed):
        result.runs.append(run)
        result.problems.extend(run.problems)
    result.runs = newest_first(result.runs)
    return result


class FromFields(NamedTuple, Generic[Row]):
    """A row made of a run's JSON fields (`RunRow.json_fields`'s) where `scan_rows` is
    given one: each run's fields made straight from its reader
    (`wftop.core.index.countrow.counted_row`), no `Run` nor `RunRow` made but where its row
    needs them (a run without its journal), what it spent read as every row's."""

    row: Callable[[dict[str, Any]], tuple[Row, Naming | None]]
    """The row of a run's fields, and its `Naming` (`row_naming`'s of a printed row)."""
    spends: Spends


def scan_rows(
    roots: list[str],
    make_row: Callable[[Run], Row] | FromFields[Row],
    *,
    processes: ProcessTable | None = None,
    now: Callable[[], float] = time.time,
    stall_window: float = DEFAULT_STALL_WINDOW,
    workers: int | None = None,
    cache: RowCache | None = None,
    spend_book: SpendBook | None = None,
    kept: KeptRows | None = None,
) -> RowScan[Row]:
    """`scan_roots`, but one ``make_row(run)`` per run, possibly made in forked workers
    (a `FromFields`: ``make_row.row(fields)`` of each run's row fields, the same row made
    with less work, with its naming).

    ``make_row`` runs in whichever process read the run, so its result must pickle
    (keep it to bytes, strings, tuples); ``workers`` None picks by CPUs and tree size.
    With a ``cache`` (rows must then be bytes), runs it holds are not read at all;
    ``kept``: what `kept_rows` answered of it already (the roots are not walked again).
    """
    if kept is None:
        kept = kept_rows(roots, cache or RowCache(None, roots), processes=processes)
    cold = ColdPass(kept.owners, kept.superseded, now(), stall_window, LIST_KEEP_BYTES, spend_book)
    placed: list[Placed[Row]] = [cast(Placed[Row], entry) for entry in kept.kept]

    keep = cache is not None and cache.path is not None  # the arrays a cache keeps, made too

    def hand(part: Sequence[RunFolder]) -> list[Made[Row]]:
        if isinstance(make_row, FromFields):
            made = [
                _made(one, *make_row.row(one.fields), keep=keep)
                for one in cold.counted(part, make_row.spends, pending=False)
            ]
            cold.save_spends()
            return made
        made = []
        for run in cold.read(part, for_rows=True):
            row = make_row(run)
            made.append(
                Made(
                    _recency(run),
                    row,
                    run.problems,
                    run.last_activity,
                    run.folder.journal,
                    NamedScript.of(run.snapshot.script_path if run.snapshot is not None else None),
                    settled(run),
                    ended(run),
                    row_naming(row) if isinstance(row, bytes) else None,
                )
            )
        cold.save_spends()  # in each worker: a project's spends merged into its file
        return made

    from wftop.core.index.fanout import fan_out  # not at the top: a plan reads one run

    with paused_gc():
        for fresh in fan_out(kept.unread, hand, workers=workers):
            placed.append((fresh.recency, fresh.row, fresh.problems, fresh.naming))
            if cache is None or not fresh.settled or fresh.problems:
                continue  # only rows of settled runs read without trouble are kept
            if isinstance(fresh.row, bytes):
                row = Kept(fresh.last_activity, fresh.row, fresh.ended, fresh.naming, fresh.wire)
                cache.put(fresh.journal, kept.keys.get(fresh.journal), row, fresh.named)
    scan = RowScan.of(placed)
    scan.problems[:0] = kept.problems
    if cache is not None:
        cache.save()
    return scan


def _made(counted: Counted, row: Row, naming: Naming | None, *, keep: bool) -> Made[Row]:
    """The `Made` of a row made of a run's counted fields (`ColdPass.counted`), with its
    naming (`FromFields.row`), and (``keep``: for the rows cache) the row as the engine's
    stream sends it, made in the worker (`wftop.core.index.countrow.printed_array`)."""
    fields = counted.fields
    wire = None
    if keep and isinstance(row, bytes) and counted.settled and not counted.problems:
        from wftop.core.index.countrow import printed_array

        wire = printed_array(fields, row)
    return Made(
        (-(counted.last_activity or 0.0), fields["run_id"], fields["session_id"], fields["root"]),
        row,
        counted.problems,
        counted.last_activity,
        counted.journal,
        counted.named,
        counted.settled,
        counted.ended,
        naming,
        wire,
    )


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
    naming: Naming | None
    """A printed row's `Naming`, read from it in the worker that printed it: the parent
    names the listing's projects (``ls``'s ``rename``) and keeps the row without parsing it
    again (5,000 rows: about 0.05 s of the parent's, after its workers are done)."""
    wire: bytes | None = None
    """The row as the engine's stream sends it, for the rows cache (None: made of ``row``
    when the cache is saved), made in the worker too."""
