"""One run folder read into a `wftop.core.model.Run`, and kept up to date as its files change.

`RunReader.run` is the one way a `Run` is made: the cold pass (`wftop.core.index.coldpass`),
the live index (`wftop.core.index.live`) and the status counts (`wftop.core.index.statuscount`) all
read a folder with a `RunReader` and hand it a `RunContext` (what the run's status depends
on besides its own files, `wftop.core.index.context`), so every surface classifies a run the
same way. What it knows of the agent transcripts without reading them (their sizes and
times) is `wftop.core.index.agentstats`', what its attempts spent `wftop.core.index.runspend`'s,
its snapshot `wftop.core.index.snapshotkeep`'s.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection

from wftop.core.cost.spendbook import SpendBook
from wftop.core.cost.tally import SpendTally
from wftop.core.cost.tokens import Spend
from wftop.core.index.agentstats import NO_TRANSCRIPTS, AgentStamps, agent_stamps, restat, stats_of
from wftop.core.index.context import RunContext
from wftop.core.index.listkeep import LIST_KEEP_BYTES, LIST_KEEP_TOTAL, Dozing
from wftop.core.index.naming import RunNames, sorted_listing
from wftop.core.index.runmade import made_run
from wftop.core.index.runspend import replies_told
from wftop.core.index.snapshotkeep import SnapshotKeeping, stamp_of
from wftop.core.model import Run
from wftop.core.read.countfold import CountingFold
from wftop.core.read.failures import LastReplies, notice_failures
from wftop.core.read.journal import JournalFold, unknown_lines
from wftop.core.read.jsonl import FileStamp, JsonlTail, Problem
from wftop.core.read.runfolder import RunFolder
from wftop.core.read.snapshot import Snapshot
from wftop.core.read.standin import name_calls, sidecar_fold, snapshot_fold
from wftop.core.read.usage import RerunTokens


class RunReader(SnapshotKeeping):
    """Everything read from one run folder, kept up to date incrementally.

    Agent transcripts are only stat'ed while the run has not ended (no current
    snapshot) and its owner may be alive: only then can they change its status, so
    a run list does not pay for the others (`transcript_stats` gives them on demand).
    """

    __slots__ = (
        "_agents",
        "_agents_read",
        "_dozed_stat",
        "_notices",
        "_reruns",
        "_stand_in",
        "count_spend",
        "dozing",
        "fold",
        "folder",
        "for_rows",
        "journal_missing",
        "journal_mtime",
        "journal_size",
        "keep_bytes",
        "keep_total",
        "names",
        "problems",
        "replies",
        "rerun_tokens",
        "_tail",
        "spend_book",
        "transcripts",
    )
    """Slotted: an engine holds a reader per run (20,000 of them), each 1.6 KB as a dict."""

    def __init__(
        self,
        folder: RunFolder,
        *,
        keep_bytes: int = LIST_KEEP_BYTES,
        keep_total: int | None = LIST_KEEP_TOTAL,
        for_rows: bool = False,
        spend_book: SpendBook | None = None,
        dozing: bool = False,
        once: bool = False,
    ):
        """``for_rows``: the run is read for its row alone (`wftop.core.row.RunRow.of`), with
        a `CountingFold` and what it spent kept as it is read: a list's first read. Its run
        holds no whole calls; a view that shows calls reads it in full. ``spend_book``: what
        its transcripts spent, kept between processes (`wftop.core.cost.spendbook`).
        ``once``: it is let go after one read (a cold pass's), so what its transcripts
        spent is never compared again (`wftop.core.cost.tally.SpendTally`'s ``once``)."""
        self.folder = folder
        self.once = once
        self.spend_book = spend_book
        self.keep_bytes, self.keep_total = keep_bytes, keep_total
        self.for_rows = for_rows
        self.count_spend = for_rows
        """Keep what the run spent as its lines and transcripts change (`spend`), for a
        reader whose runs become rows (`wftop.core.row.RunRow.of` reads it, not every
        transcript). ``dozing``: it starts dozing, making nothing a read needs (a run the
        live index seeds: `seed`; `wake` reads it)."""
        self._begin(dozing)

    def _begin(self, dozing: bool = False) -> None:
        """Nothing read yet."""
        self._tail: JsonlTail | None = None if dozing else self._new_tail()
        self._dozed_stat: FileStamp | None = None
        self.fold = Dozing.fold if dozing else self._new_fold()
        self.problems: list[Problem] = []
        self.journal_size = 0
        self.journal_mtime: float | None = None
        self.snapshot: Snapshot | None = None
        self.snapshot_problem: Problem | None = None
        self.snapshot_mtime: float | None = None
        self._snapshot_stamp: tuple[int, float, int] | None = None
        self._snapshot_checked = False
        self.transcripts = NO_TRANSCRIPTS
        self._agents: AgentStamps = {}
        self._agents_read = False
        self.names = RunNames(self.folder)
        self.journal_missing = False
        """The run folder holds no ``journal.jsonl`` (or there is no run folder): its calls
        are read from its snapshot, else from its agents' sidecars (`wftop.core.read.standin`)."""
        self._stand_in: tuple[object, ...] | None = None
        self._reruns = Dozing.reruns if dozing else RerunTokens()
        self.replies = Dozing.replies if dozing else LastReplies()
        self._notices: tuple[tuple[int, float, int] | None, list[tuple[str, str]]] | None = None
        self._spent: SpendTally | None = None
        """What its attempts spent, for a reader that counts it (`count_spend`); made at the
        first line read."""
        self.rerun_tokens: int | None = 0
        """Tokens spent on re-runs of calls that had returned (`wftop.core.read.usage`)."""
        self.dozing = dozing
        """What was read is let go (`doze`): `wake` reads the folder again before use."""

    def doze(self) -> None:
        """Let go of what was read of the run (its fold, snapshot, spend tally, replies),
        keeping the stamps a sweep compares (the journal's, the snapshot's, the agents'):
        a settled run held by its row alone. `wake` reads it in full again."""
        self.dozing = True
        self._dozed_stat, self._tail = self.journal_stat, None
        self.fold = Dozing.fold
        self.snapshot = None
        self._spent = None
        self._reruns = Dozing.reruns
        self.replies = Dozing.replies
        self._notices = None
        self._stand_in = None

    def seed(self, journal: FileStamp, snapshot: os.stat_result | None) -> None:
        """Doze without reading, with the stamps of its journal and snapshot taken now (a
        seeded run: `wftop.core.index.held.seed_reader`), as a read would have kept them."""
        self._dozed_stat, self._tail = journal, None
        self.journal_size, self.journal_mtime = journal.st_size, journal.st_mtime
        self._snapshot_checked = True
        self._take_snapshot(None, None, snapshot, stamp_of(snapshot) if snapshot else None)
        self.doze()

    def wake(
        self, *, owner_alive: bool = True, listing: Callable[[str], list[str]] = sorted_listing
    ) -> None:
        """A dozing reader reads its folder again, as a new one would (nothing when awake)."""
        if not self.dozing:
            return
        self._begin()
        self.refresh(owner_alive=owner_alive, listing=listing)

    def _new_fold(self) -> JournalFold:
        return CountingFold() if self.for_rows else JournalFold()

    def _new_tail(self) -> JsonlTail:
        return JsonlTail(
            self.folder.journal, keep_bytes=self.keep_bytes, keep_total=self.keep_total
        )

    @property
    def tail(self) -> JsonlTail:
        """The journal's reader: a dozing reader holds its stamp alone (the journal's path
        and a reader's state for each of 20,000 runs were 8 MB), one is made when asked."""
        if self._tail is None:
            self._tail = self._new_tail()
            self._tail.stat = self._dozed_stat
        return self._tail

    @tail.setter
    def tail(self, tail: JsonlTail) -> None:
        self._tail = tail

    @property
    def journal_stat(self) -> FileStamp | None:
        """The journal's stamp as last read (a sweep compares it), with no reader made."""
        return self._tail.stat if self._tail is not None else self._dozed_stat

    def refresh_journal(self) -> bool:
        """Read appended journal lines; True when anything changed. A journal that is not
        there is no problem (`journal_missing`); a line of a type the CLI does not write is."""
        batch = self.tail.read()
        missing_before = self.journal_missing
        self.journal_missing = batch.missing
        if batch.missing:
            batch.problems = [problem for problem in batch.problems if problem.line != 0]
        elif missing_before:
            batch.reset = True  # the stand-in calls go: the journal's own come
            self._stand_in = None
        if batch.reset or (self.tail.stat is None and self.tail.line_no):
            # Truncated, replaced, or gone (a vanished journal holds no lines): start over.
            if not batch.reset:
                self.tail = self._new_tail()
                self.tail.stat = None
            self.fold = self._new_fold()
            self._reruns = RerunTokens()
            self._spent = None
            self.problems = []
            batch.reset = True
        known = self.fold.known_lines
        self.fold.feed_all(batch.records)
        if self.fold.known_lines - known != len(batch.records):  # else all of known types
            batch.problems += unknown_lines(self.folder.journal, batch.records)
        if self.count_spend:  # a plan or a view of calls reads no tally: 100,000 agents
            tally, fold = self._tally(), self.fold
            if type(fold) is CountingFold:  # the attempts it gathered as it folded them
                begun, ended = fold.take_attempts()
                tally.started(begun)
                tally.returned(ended)
            else:
                tally.lines(batch.records)
        # A problem with the whole file (line 0) is restated by every read while it lasts,
        # so each read replaces the last one's: gone when the file opens, never piled up.
        self.problems = [problem for problem in self.problems if problem.line != 0]
        self.problems.extend(batch.problems)
        del self.problems[:-1000]
        info = self.tail.stat
        before = (self.journal_size, self.journal_mtime)
        if info is not None:
            self.journal_size, self.journal_mtime = info.st_size, info.st_mtime
        else:
            self.journal_size, self.journal_mtime = 0, None
        moved = before != (self.journal_size, self.journal_mtime)
        return bool(batch.records or batch.problems or batch.reset or moved)

    def refresh_transcripts(
        self, owner_alive: bool = True, agents: Collection[str] | None = None
    ) -> bool:
        """Stat the agent transcripts (never read them); True when anything changed.

        Only a run that has not ended and whose owner may be alive needs them: they
        tell running from stalled; and a run without its journal, whose last activity they
        are. Other runs keep none (`transcript_stats` on demand).
        ``agents``: only these transcripts changed (file names, ``agent-<id>.jsonl``), so
        only they are stat'ed, not every one of a run that may have made thousands; the
        first look at a run that needs them stats them all.
        """
        if not ((owner_alive or self.journal_missing) and not self.snapshot_current):
            changed = bool(self._agents) or self.transcripts != NO_TRANSCRIPTS
            self._agents, self._agents_read, self.transcripts = {}, False, NO_TRANSCRIPTS
            return changed
        if agents is None or not self._agents_read:
            stamps = agent_stamps(self.folder.path)
            changed = stamps != self._agents or not self._agents_read
            self._agents, self._agents_read = stamps, True
            self.transcripts = stats_of(stamps)
            return changed
        stats = restat(self.folder.path, self._agents, self.transcripts, agents)
        changed = stats != self.transcripts
        self.transcripts = stats
        return changed

    @property
    def agent_stamps(self) -> AgentStamps:
        """(size, mtime) of each agent transcript as last stat'ed (none while not needed)."""
        return self._agents

    def find_script(self, listing: Callable[[str], list[str]] = sorted_listing) -> None:
        """The run's script and its name (`wftop.core.index.naming.RunNames.find`)."""
        self.names.find(self.snapshot, listing)

    @property
    def script_path(self) -> str | None:
        return self.names.script_path

    @property
    def run_name(self) -> str | None:
        """The run's one name, every surface's (`wftop.core.index.naming.RunNames.name`)."""
        return self.names.name(self.snapshot)

    def refresh(
        self, *, owner_alive: bool = True, listing: Callable[[str], list[str]] = sorted_listing
    ) -> bool:
        changed = self.refresh_journal()
        changed = self.refresh_snapshot() or changed
        changed = self.refresh_transcripts(owner_alive) or changed
        changed = self.stand_in() or changed
        self.find_script(listing)
        return self.refresh_reruns() or changed

    def stand_in(self) -> bool:
        """Where the journal is missing, the calls its snapshot's rows (else its agents'
        sidecars) tell of; where no line labelled a call, the label its snapshot row gives.
        True when the calls changed."""
        snapshot = self.snapshot
        if not self.journal_missing:
            return name_calls(self.fold, snapshot)
        stamp = (self._snapshot_stamp, self.transcripts, self.snapshot is None)
        if stamp == self._stand_in:
            return False
        self._stand_in = stamp
        if snapshot is not None:
            self.fold = snapshot_fold(snapshot)
        else:
            self.fold = sidecar_fold(self.folder.path)
        return True

    @property
    def unreadable_reason(self) -> str | None:
        """Why the journal, on disk, cannot be read (``<journal>: permission denied``); None
        when it can, or when it is not there (`journal_missing`)."""
        if not self.problems:
            return None
        journal = self.folder.journal
        for problem in self.problems:
            if problem.line == 0 and problem.path == journal:
                return f"{journal}: {problem.reason}"
        return None

    def spend(self) -> Spend:
        """What every attempt spent (`SpendKeeping.spend`); a reader for rows tells its
        replies what the transcripts of the calls that may have failed end on, as it reads
        them (`wftop.core.index.runspend.replies_told`)."""
        tally = self._tally()
        tally.seen = (
            replies_told(self.fold, self.folder.path, self.replies) if self.for_rows else None
        )
        return tally.total(self.folder.path)

    def refresh_reruns(self) -> bool:
        """Read what the re-run agents used (only runs with re-runs read anything)."""
        before, fold = self.rerun_tokens, self.fold
        if fold.rerun_agent_ids or before:
            running = {fold.calls[key].agent_ids[-1] for key in fold.open_keys}
            self.rerun_tokens = self._reruns.tokens(self.folder.path, fold.rerun_agent_ids, running)
        return self.rerun_tokens != before

    def run(self, context: RunContext, *, frozen: bool = False) -> Run:
        """The run as last read, classified in ``context``: the one way a `Run` is made
        (`wftop.core.index.runmade.made_run`). ``frozen``: the run holds a
        `JournalFold.snapshot` that later reads leave as it is, not the reader's live fold
        (for a run another thread reads while this one reads on)."""
        return made_run(self, context, frozen=frozen)

    def notices(self) -> list[tuple[str, str]]:
        """`notice_failures` of the session transcript, read again only when it changed: it
        is asked at every change of a run whose failures it may explain, and it grows with
        the session."""
        transcript = self.folder.transcript
        try:
            stamp: tuple[int, float, int] | None = stamp_of(os.stat(transcript))
        except OSError:
            stamp = None
        if self._notices is None or self._notices[0] != stamp:
            self._notices = (stamp, notice_failures(transcript, self.folder.run_id))
        return self._notices[1]
