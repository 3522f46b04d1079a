"""A run made of what a reader read: the one way a `wftop.core.model.Run` is made.

`wftop.core.index.reader.RunReader` reads a run folder and keeps it current; `made_run`
classifies what it read in a `RunContext` (its owner, supersession, the clock) and finds its
failed calls, so every surface that reads a folder makes the same run of it.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from wftop.core.cost.tokens import Spend
from wftop.core.index.context import RunContext
from wftop.core.model import Run, Status, TranscriptStats, classify
from wftop.core.read.failures import Failure, LastReplies, RunEnd, find_failures, fold_candidates
from wftop.core.read.journal import JournalFold
from wftop.core.read.jsonl import Problem
from wftop.core.read.runfolder import RunFolder
from wftop.core.read.sessions import Owner
from wftop.core.read.snapshot import Snapshot


class Read(Protocol):
    """What a run is made of: what `wftop.core.index.reader.RunReader` read."""

    folder: RunFolder
    fold: JournalFold
    snapshot: Snapshot | None
    snapshot_problem: Problem | None
    snapshot_mtime: float | None
    journal_missing: bool
    journal_size: int
    journal_mtime: float | None
    transcripts: TranscriptStats
    problems: list[Problem]
    rerun_tokens: int | None
    count_spend: bool
    replies: LastReplies

    @property
    def snapshot_current(self) -> bool: ...

    @property
    def unreadable_reason(self) -> str | None: ...

    @property
    def run_name(self) -> str | None: ...

    @property
    def script_path(self) -> str | None: ...

    def spend(self) -> Spend: ...

    def notices(self) -> list[tuple[str, str]]: ...


class Classified(NamedTuple):
    """How a run read stands in its context (`classified`)."""

    owner: Owner
    superseded_by: str | None
    current: bool
    """Its snapshot is current: the run ended when it was written."""
    last_activity: float | None
    unreadable: str | None
    """`wftop.core.index.reader.RunReader.unreadable_reason`."""
    status: Status
    problems: tuple[Problem, ...]
    """The journal's and the snapshot's."""
    failures: tuple[Failure, ...]


def classified(read: Read, context: RunContext) -> Classified:
    """How the run ``read`` stands in ``context``: what `made_run` makes a `Run` of, and a
    list's cold pass a row of (`wftop.core.index.countrow`)."""
    owner = context.owner(read.folder)
    superseded = context.superseded
    superseded_by = superseded.get(read.folder.ident) if superseded else None
    snapshot = read.snapshot
    current = read.snapshot_current
    if current:
        # The run ended when its snapshot was written; its transcripts are not read.
        times = [read.journal_mtime, read.snapshot_mtime]
    else:
        times = [read.journal_mtime, read.transcripts.newest_mtime]
    known = [t for t in times if t is not None]
    last_growth = max(known) if known else None
    unreadable = read.unreadable_reason
    status = classify(
        superseded=superseded_by is not None,
        unreadable=unreadable is not None,
        snapshot_status=(snapshot.status or "completed") if current and snapshot else None,
        owner_may_be_alive=owner.may_be_alive,
        last_growth=last_growth,
        now=context.now,
        stall_window=context.stall_window,
    )
    problems = list(read.problems)
    if read.snapshot_problem is not None:
        problems.append(read.snapshot_problem)
    over = current or superseded_by is not None or not owner.may_be_alive
    found = failures(read, snapshot if current else None, over=over)
    return Classified(
        owner, superseded_by, current, last_growth, unreadable, status, tuple(problems), found
    )


def made_run(read: Read, context: RunContext, *, frozen: bool = False) -> Run:
    """The run ``read``, classified in ``context`` (``frozen``: see `RunReader.run`)."""
    how = classified(read, context)
    return Run(
        folder=read.folder,
        fold=read.fold.snapshot() if frozen else read.fold,
        snapshot=read.snapshot,
        snapshot_current=how.current,
        owner=how.owner,
        status=how.status,
        cwd=context.cwd(read.folder),
        name=read.run_name,
        journal_missing=read.journal_missing,
        unreadable_reason=how.unreadable,
        script_path=read.script_path,
        journal_size=read.journal_size,
        journal_mtime=read.journal_mtime,
        transcripts=read.transcripts,
        last_activity=how.last_activity,
        problems=how.problems,
        superseded_by=how.superseded_by,
        failures=how.failures,
        rerun_tokens=read.rerun_tokens,
        spend=read.spend() if read.count_spend and not read.journal_missing else None,
    )


def failures(read: Read, snapshot: Snapshot | None, *, over: bool) -> tuple[Failure, ...]:
    """The failed calls (`wftop.core.read.failures`): ``snapshot`` when it is current;
    ``over`` when nothing will continue the run."""
    fold = read.fold
    if not fold.failed_keys and not fold.open_keys:
        return ()
    folder = read.folder
    return find_failures(
        fold_candidates(fold),
        folder=folder.path,
        journal=folder.journal,
        end=RunEnd(snapshot, over),
        replies=read.replies,
        notice=read.notices,
    )
