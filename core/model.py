"""The run model: what one Workflow run is, and its status (the status and the words a view
shows for it live in `wftop.core.status`, which a view imports without the run)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from wftop.core.read.runfolder import run_ident, short_project
from wftop.core.stall import DEFAULT_STALL_WINDOW as DEFAULT_STALL_WINDOW  # where it was
from wftop.core.status import ENDED as ENDED
from wftop.core.status import NEEDS_YOU as NEEDS_YOU
from wftop.core.status import PARTIAL as PARTIAL
from wftop.core.status import SNAPSHOT_STATUSES as SNAPSHOT_STATUSES
from wftop.core.status import Status as Status
from wftop.core.status import iso_utc as iso_utc
from wftop.core.status import json_safe as json_safe
from wftop.core.status import json_safe_dict as json_safe_dict
from wftop.core.status import printable as printable
from wftop.core.status import status_word as status_word

if TYPE_CHECKING:  # what a run holds, for types alone: a view's rows need none of it
    from wftop.core.cost.tokens import Spend
    from wftop.core.read.failures import Failure
    from wftop.core.read.journal import Call, JournalFold
    from wftop.core.read.jsonl import Problem
    from wftop.core.read.runfolder import RunFolder
    from wftop.core.read.sessions import Owner
    from wftop.core.read.snapshot import Snapshot


def classify(
    *,
    superseded: bool,
    snapshot_status: str | None,
    owner_may_be_alive: bool,
    last_growth: float | None,
    now: float,
    stall_window: float = DEFAULT_STALL_WINDOW,
    unreadable: bool = False,
) -> Status:
    """The status of a run from the facts that decide it.

    Args:
        superseded: the run folder was copied into another session and continued there.
        snapshot_status: the ``status`` of a *current* snapshot, else None.
        owner_may_be_alive: a live (or unverifiable) process owns the run's session.
        last_growth: newest modification time of the journal and agent transcripts.
        unreadable: the journal is on disk and cannot be read.
    """
    if superseded:
        return Status.SUPERSEDED
    if unreadable:
        return Status.UNREADABLE
    if snapshot_status is not None:
        return SNAPSHOT_STATUSES.get(snapshot_status, Status.COMPLETED)
    if owner_may_be_alive:
        quiet = last_growth is None or now - last_growth > stall_window
        return Status.STALLED if quiet else Status.RUNNING
    return Status.DEAD


@dataclass(frozen=True)
class TranscriptStats:
    """Size and time facts of a run's agent transcripts (their content is not read)."""

    count: int = 0
    total_bytes: int = 0
    newest_mtime: float | None = None


@dataclass(frozen=True, slots=True)
class Run:
    """An immutable view of one run, rebuilt whenever its files change.

    Slotted: an index holds every run it lists (20,000 of them), and an instance dict
    with the four values kept once made (`ident`, `project_short`, `shown_status`,
    `call_counts`) held 830 bytes a run where the slots hold about 200.
    """

    folder: RunFolder
    fold: JournalFold
    snapshot: Snapshot | None
    snapshot_current: bool
    owner: Owner
    status: Status
    cwd: str | None
    name: str | None
    script_path: str | None
    journal_size: int
    journal_mtime: float | None
    transcripts: TranscriptStats
    last_activity: float | None
    problems: tuple[Problem, ...] = ()
    superseded_by: str | None = None
    journal_missing: bool = False
    """No ``journal.jsonl`` is on disk: the calls are what the snapshot (else the agents'
    sidecars) tells of, and the CLI cannot resume the run."""
    unreadable_reason: str | None = None
    """Why its journal, on disk, cannot be read (``<journal>: permission denied``): the run
    is `Status.UNREADABLE`, its calls unknown."""
    failures: tuple[Failure, ...] = ()
    """The calls that failed, each with its kind and evidence (`wftop.core.read.failures`), in
    call order."""
    rerun_tokens: int | None = 0
    """Tokens the agents of re-run calls (calls started again after they had returned)
    used, from their transcripts: 0 without re-runs, None when none of theirs can be read
    (`wftop.core.read.usage`)."""
    host: str | None = None
    """The SSH host the run lives on (None: this machine); see `wftop.core.remote`."""
    stale: bool = False
    """A remote run whose host cannot be reached now: its last known state, not a live one."""
    spend: Spend | None = None
    """What its attempts spent, when the reader kept it as lines came
    (`wftop.core.cost.tally.SpendTally`); None: read it from the transcripts when asked."""
    _ident: str | None = field(default=None, init=False, repr=False, compare=False)
    _project_short: str | None = field(default=None, init=False, repr=False, compare=False)
    _shown_status: str | None = field(default=None, init=False, repr=False, compare=False)
    _call_counts: tuple[int, int, int, int, int] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __repr__(self) -> str:
        """Short: a worker's description is the repr of its arguments, and a run's journal
        fold may hold megabytes of results."""
        return f"Run({self.ident!r}, {self.status.value})"

    @property
    def run_id(self) -> str:
        return self.folder.run_id

    @property
    def session_id(self) -> str:
        return self.folder.session_id

    @property
    def ident(self) -> str:
        """The run's identity (`wftop.core.read.runfolder.run_ident`); a remote run's root is
        ``<host>:<root>``. Kept once made: sorting a long list asks for it per run and per
        comparison."""
        made = self._ident
        if made is None:
            folder = self.folder
            if self.host is None:
                made = folder.ident
            else:
                made = run_ident(f"{self.host}:{folder.root}", folder.session_id, folder.run_id)
            object.__setattr__(self, "_ident", made)
        return made

    @property
    def project_short(self) -> str:
        """The project as a person names it: the cwd's last folder, else the slug (kept once
        made, as `shown_status`: re-sorting and refiltering 20,000 runs asks every run)."""
        made = self._project_short
        if made is None:
            made = short_project(self.cwd, self.folder.project)
            object.__setattr__(self, "_project_short", made)
        return made

    @property
    def shown_status(self) -> str:
        """`status_word`: the status, or ``partial`` when it completed with failed calls."""
        made = self._shown_status
        if made is None:
            made = status_word(self.status.value, len(self.failed_labels))
            object.__setattr__(self, "_shown_status", made)
        return made

    @property
    def ended(self) -> bool:
        return self.status in ENDED

    @property
    def failed_labels(self) -> tuple[str, ...]:
        """The labels of the calls that failed, in call order."""
        return tuple(failure.label for failure in self.failures)

    @property
    def call_counts(self) -> tuple[int, int, int, int, int]:
        """How the calls' latest attempts stand (`count_calls`), kept once made: the run
        list draws it for every row it shows."""
        made = self._call_counts
        if made is None:
            made = count_calls(self)
            object.__setattr__(self, "_call_counts", made)
        return made

    @property
    def open_calls(self) -> list[Call]:
        """Calls whose latest attempt has neither result nor failure: ``running`` while the
        run may go on, ``dead`` once nothing will finish them (`wftop.core.calls`)."""
        from wftop.core.read.journal import CallState

        failed = {failure.key for failure in self.failures}
        return [call for call in self.fold.calls_in(CallState.IN_FLIGHT) if call.key not in failed]

    @property
    def in_flight_calls(self) -> list[Call]:
        """`open_calls` of a run that has not ended (a dead one's included)."""
        return [] if self.ended else self.open_calls

    @property
    def dead_workers(self) -> list[Call]:
        return self.in_flight_calls if self.status is Status.DEAD else []


def count_calls(run: Run) -> tuple[int, int, int, int, int]:
    """How many of a run's calls stand in each state of `wftop.core.calls.State`: (done,
    cached, failed, running, dead). Failed are its `Run.failures`; its other open calls are
    running while the run may go on, else dead; cached are the calls the current snapshot's
    rows mark so. A few lengths, not a walk of every call (50,000 took 26 ms)."""
    fold, failures = run.fold, run.failures
    failed = len(failures)
    open_keys = fold.open_keys
    still = len(open_keys) - (sum(1 for f in failures if f.key in open_keys) if failures else 0)
    returned = len(fold.calls) - failed - still
    snapshot = run.snapshot
    cached = len(snapshot.cached) if snapshot is not None and run.snapshot_current else 0
    cached = min(cached, returned)
    if run.status in (Status.RUNNING, Status.STALLED):
        return (returned - cached, cached, failed, still, 0)
    return (returned - cached, cached, failed, 0, still)
