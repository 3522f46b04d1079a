"""The engine: every run under the roots, kept current, told to every view that listens.

Theory of operation. `Engine.run` first hands out every run's row as early as it can
(`wftop.core.engine.coldstart.first_rows`: the rows cache, then forked readers), each batch
sent at once to every subscriber as part of its snapshot; the last batch (``final``) ends
it. The rows the rows cache kept go first, then ``kept`` (a view may list them), then what
the walk of the roots finds. Then it builds the live index
(`wftop.core.index.live.LiveIndex`) in a worker thread, sends what differs from the first
rows as change set 1, and follows the disk with it: each change set of the index becomes
one ``changed`` message holding only the rows that differ from what was sent. A subscriber
that joins later gets the rows held then as its snapshot, then the change sets after it, so
every view holds the same runs as the engine.

A row's ``project_name`` is the name the listing gives its project
(`wftop.core.engine.holding.ProjectNames`). When the projects held change, the rows whose
name changes go out again in the change set, as any changed row.

The engine holds each run as `Held`: its row and that row printed on one line
(`wftop.core.engine.holding.held_of`). The views listening are
`wftop.core.engine.views.Views`.
"""

from __future__ import annotations

import asyncio
import os
import time
import traceback
from collections.abc import AsyncGenerator, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from wftop.core.engine import lines as wire
from wftop.core.engine.coldstart import LAZY_SPEND, FirstRows, first_rows
from wftop.core.engine.failing import failure_said, log_trace
from wftop.core.engine.heldrow import Held, needy_states, same, shown_counts
from wftop.core.engine.holding import Gone, ProjectNames, held_of
from wftop.core.engine.told import Told
from wftop.core.engine.views import Subscriber, Views
from wftop.core.index.gcpause import paused_gc
from wftop.core.index.rowcache import RowCache
from wftop.core.stall import DEFAULT_STALL_WINDOW
from wftop.core.system.memory import Trim, give_back_memory, trimmer
from wftop.core.system.procs import ProcessTable, default_table
from wftop.core.version import package_version

# The row and run models and the masking are imported once the kept rows are out (a view
# lists them the sooner): what the engine holds before is rows as the cache printed them.
if TYPE_CHECKING:
    from wftop.core.attention import RunState
    from wftop.core.cost.spendbook import SpendBook
    from wftop.core.cost.usage import Spends
    from wftop.core.engine.seeding import Late
    from wftop.core.index.held import Seed
    from wftop.core.index.live import LiveIndex
    from wftop.core.model import Run
    from wftop.core.text.redact import Redactor

FILL_BATCH = 1000
"""Rows per ``changed`` message of the change set that follows the first rows: after a large
first read it holds every row again, filled in with what it spent (20,000 rows, 26 MB, sent
at once on top of a snapshot a view was still reading passed what a view may leave unread,
and the view was dropped); each waits for the views to read (`Views.drained`)."""


class Engine:
    """Every run under ``roots``, and the views that listen to them."""

    def __init__(
        self,
        roots: list[str],
        *,
        stall_window: float = DEFAULT_STALL_WINDOW,
        processes: ProcessTable | None = None,
        now: Callable[[], float] = time.time,
        cache: Path | None = None,
        debounce_ms: int = 15,
        step_ms: int = 15,
        sweep_interval: float = 30.0,
        workers: int | None = None,
        log: str | None = None,
        lazy_spend: int = LAZY_SPEND,
        spend_book: SpendBook | Callable[[], SpendBook | None] | None = None,
        trim: Trim | None = None,
        first_view: float = 0.0,
    ) -> None:
        """Args:
        log: the engine's log file, where a failure's traceback is appended (None: stderr).
        lazy_spend: runs to read at or above which the first rows go out without what they
            spent (`wftop.core.engine.coldstart`).
        trim: how freed memory is given back to the system once every run is read
            (`wftop.core.system.memory.trimmer`: this platform's, unless given).
        first_view: seconds the engine waits, once its first rows are out after rows its
            rows cache kept and no view has joined, for a first view before it reads its
            live index (a shared engine a view started early: that view connects once it
            has imported Textual, and the live index's read took a CPU from that view's
            start and its decoding of the rows). The walk waits for no view: it goes on in
            a forked child while the loop answers views (`wftop.core.engine.walkapart`).
        spend_book: what transcripts spent, kept between engines (`wftop.core.cost.spendbook`),
            or how to open it: then opened once the kept rows are out (its module and the
            prices it imports were 20M instructions of a warm start before them).
        """
        self.first_view = first_view
        self.trim = trim
        self.lazy_spend = lazy_spend
        self._book = spend_book
        self.roots = [os.path.abspath(root) for root in roots]
        self.stall_window = stall_window
        self.processes = processes if processes is not None else default_table()
        self._now = now
        self.cache = cache
        self.index_options = {
            "debounce_ms": debounce_ms,
            "step_ms": step_ms,
            "sweep_interval": sweep_interval,
        }
        self.workers = workers
        self.log = log
        self.held: dict[str, Held] = {}
        """Every run, by ident, in the order the snapshot sends them."""
        self.seq = 0
        """The last change set sent (0: the first rows only)."""
        self.complete = False
        """The first rows are all out (the snapshot's ``final`` batch was sent)."""
        self.kept = False
        """The rows the rows cache kept are all out (``kept`` was sent), before the walk."""
        self.following = False
        """The live index is built and follows the disk."""
        self.read = self.total = 0
        self._said = Told()
        """The problems, failure and notice told, for a view that joins later."""
        self.index: LiveIndex | None = None
        self._views = Views()
        self._told: dict[str, int] = {}
        """Problems of each run already told."""
        self._gone = Gone()
        """The rows of the runs gone a moment ago (a tree may be moved back)."""
        self._names = ProjectNames()
        self._spends: Spends | None = None
        """Agent transcripts read for what runs spent, each again only when it changed (made
        with the live index)."""

    @property
    def spend_book(self) -> SpendBook | None:
        """What transcripts spent, kept between engines (`wftop.core.cost.spendbook`), opened
        when first asked for where the engine was given how to open it."""
        if callable(self._book):
            self._book = self._book()
        return self._book

    @property
    def _redactor(self) -> Redactor:
        """How the rows the engine makes are masked (its project names' own)."""
        return self._names.redactor

    @property
    def failure(self) -> str | None:
        """Why the engine stopped reading (a fatal ``problem``, told to every view), if it did."""
        return self._said.failure

    # -- views -----------------------------------------------------------------------------

    @property
    def hello(self) -> wire.Hello:
        return wire.Hello(
            wire.PROTOCOL, package_version(), os.getpid(), tuple(self.roots), self.stall_window
        )

    @property
    def subscribers(self) -> int:
        return len(self._views)

    def subscribe(self, subscriber: Subscriber, *, hello: bool = True) -> None:
        """A view joins: hello (unless said already), the recent problems, the rows held
        (its snapshot: ``final`` once the first rows are all out), then every message after."""
        lines = [wire.hello_line(self.hello)] if hello else []
        if not self.complete and self.total:
            lines.append(wire.progress_line(self.read, self.total))
        lines += self._said.again()
        held = [entry.line for entry in self.held.values()]
        lines += wire.snapshot_lines(self.seq, held, final=self.complete)
        if self.kept and not self.complete:
            lines.append(wire.KEPT_LINE)
        self._views.join(subscriber, lines)

    def unsubscribe(self, subscriber: Subscriber) -> None:
        self._views.leave(subscriber)

    def farewell(self, why: str) -> None:
        """The engine goes: every view is told why, and let go."""
        self._views.farewell(wire.bye_line(why))

    def counts(self) -> dict[str, int]:
        """Runs per shown status (``wftop status``)."""
        return shown_counts(self.held.values())

    def needy(self) -> list[RunState]:
        """The runs that may need a person (``wftop status`` holds them to its window)."""
        return needy_states(self.held.values())

    def _broadcast(self, line: bytes) -> None:
        self._views.broadcast(line)

    def _notify(self, text: str) -> None:
        self._broadcast(self._said.notice_line(text))

    def _tell(self, problems: Iterable[str]) -> None:
        for line in self._said.problem_lines(problems):
            self._broadcast(line)

    # -- the work --------------------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        """First rows, the live index, then follow the disk until ``stop`` is set.

        A failure (a bug, a package missing) does not end the engine: its traceback goes to
        the log, every view is told in one fatal ``problem`` naming the log, and the engine
        holds what it has until ``stop`` (a view started again would meet the same failure,
        and a view waiting on the first rows would wait for ever)."""
        try:
            await self._work(stop)
        except Exception as error:  # noqa: BLE001 - told to every view, then held
            self.failed(error)
            await stop.wait()

    def failed(self, error: Exception) -> None:
        """Say ``error`` (being handled) in the log and, in one line, to every view."""
        failure = failure_said(error, log_trace(self.log, traceback.format_exc()))
        self._broadcast(self._said.failure_line(failure))

    async def _work(self, stop: asyncio.Event) -> None:
        with paused_gc():  # the rows file: many objects, no cycle
            cache = RowCache.open(self.roots, self.cache)
        firsts = await first_rows(
            self.roots,
            self._first,
            cache=cache,
            processes=self.processes,
            now=self._now,
            stall_window=self.stall_window,
            workers=self.workers,
            lazy_spend=self.lazy_spend,
            spend_book=lambda: self.spend_book,  # opened once the kept rows are out
            all_kept=self._kept,
        )
        # names depend on every run: the rows sent before, again
        renamed = self._names.rename(self.held)
        self.complete = True
        self._broadcast(wire.rows_line(self.seq, [entry.line for entry in renamed], final=True))
        self._apply({}, firsts.gone)  # kept rows sent before the walk, of runs it did not find
        if self.kept:  # a warm start: its first view, on its way, has every row it needs
            await self._views.first(self.first_view, stop)
        await self._views.drained(below=0)  # views have every first row before what follows
        if stop.is_set():
            return
        # What reads runs after the first rows, imported once they are out (a view lists
        # the kept rows the sooner): the spends fill, the live index and its seeds.
        from wftop.core.cost.usage import Spends
        from wftop.core.engine.seeding import cached_seeds, filled_in, keep_late
        from wftop.core.index.live import LiveIndex

        self._spends = Spends()
        filled = await filled_in(
            self.roots,
            firsts,
            cache,
            self._names,
            processes=self.processes,
            now=self._now,
            stall_window=self.stall_window,
            workers=self.workers,
            spend_book=self.spend_book,
        )
        seeds = cached_seeds(self.roots, cache.used(), self.held)  # the settled runs kept
        # The rows cache is saved: what it holds (its entries, what the walk looked up) goes
        # before the live index is built, whose objects then take its place.
        del cache
        index = LiveIndex(
            self.roots,
            processes=self.processes,
            now=self._now,
            stall_window=self.stall_window,
            spends=True,
            hold_settled=True,
            spend_book=self.spend_book,
            trim=self.trim or trimmer(),
            **self.index_options,  # type: ignore[arg-type]
        )
        read, known, late = await asyncio.to_thread(self._read_all, index, firsts, seeds)
        self.index = index
        # What the start needed goes before the engine follows (this frame lives as long):
        # the seeds and rows filled in each hold another row.
        del firsts, seeds
        rows = {ident: entry for ident, entry in filled.items() if ident in known}
        rows.update(read)
        del filled, read
        if late:
            await asyncio.to_thread(keep_late, self.roots, self.cache, late)
        del late
        await self._apply_paced(rows, [ident for ident in self.held if ident not in known])
        del rows, known
        give_back_memory(self.trim)  # what reading every run left free, to the system
        self.following = True
        changes = index.changes(stop, self._notify)
        try:
            async for change in changes:
                back, lost = self._gone.back(change.revived, index.get)
                rows, problems = self._rows_of((*change.added, *change.changed, *lost))
                self._tell(problems)
                rows.update(back)
                if len(rows) > FILL_BATCH:  # a tree made again: as after the first rows
                    await self._apply_paced(rows, list(change.removed))
                else:
                    self._apply(rows, change.removed)
        finally:
            if isinstance(changes, AsyncGenerator):
                await changes.aclose()

    def _first(self, batch: list[Held], problems: list[str], done: int, total: int) -> None:
        """A batch of the first rows: held (their projects counted: the names are given
        once all are in), and sent to every view as part of its snapshot."""
        for entry in batch:
            self.held[entry.ident] = entry
            self._names.track(entry.ident, entry)
        if batch:
            self._broadcast(wire.rows_line(self.seq, [entry.line for entry in batch], final=False))
        self._tell(problems)
        step = max(1, total // 100)
        moved = done // step != self.read // step or (done == total and self.read != total)
        first = not self.total and total
        self.read, self.total = done, total
        if first or (batch and moved):
            self._broadcast(wire.progress_line(done, total))

    def _kept(self) -> None:
        """The rows the cache kept are all out: every view may list them while the walk goes
        on (what it finds follows in the snapshot)."""
        self.kept = True
        self._broadcast(wire.KEPT_LINE)

    def _read_all(
        self, index: LiveIndex, firsts: FirstRows, seeds: dict[str, Seed]
    ) -> tuple[dict[str, Held], set[str], list[Late]]:
        """The live index's own cold start, in a worker thread (`index_read`)."""
        from wftop.core.engine.seeding import index_read
        from wftop.core.row import RunRow

        return index_read(
            index,
            firsts.unpriced,
            seeds,
            lambda run: RunRow.of(run, self._spends).printed(self._redactor),
            lambda run: self._rows_of((run,))[0],  # their problems went with the first rows
        )

    def _rows_of(self, runs: Iterable[Run]) -> tuple[dict[str, Held], list[str]]:
        """The runs as held rows, and their problems not told yet."""
        from wftop.core.row import RunRow

        made: dict[str, Held] = {}
        problems: list[str] = []
        for run in runs:
            entry = self._names.named(held_of(RunRow.of(run, self._spends), self._redactor))
            made[entry.ident] = entry
            told = self._told.get(run.ident, 0)
            self._told[run.ident] = len(run.problems)
            problems += [str(problem) for problem in run.problems[told:]]
        return made, problems

    async def _apply_paced(self, rows: dict[str, Held], removed: list[str]) -> None:
        """`_apply` in change sets of at most `FILL_BATCH` rows, each sent once every view
        has read most of what it was sent before (`Views.drained`)."""
        items = list(rows.items())
        for start in range(0, max(len(items), 1), FILL_BATCH):
            self._apply(dict(items[start : start + FILL_BATCH]), removed if not start else [])
            await self._views.drained()

    def _apply(self, rows: dict[str, Held], removed: Iterable[str]) -> None:
        """One change set: the rows that differ from what was sent, and the runs gone."""
        changed = [entry for ident, entry in rows.items() if not same(self.held.get(ident), entry)]
        now = self._now()
        gone = [ident for ident in removed if self._gone.keep(self.held.pop(ident, None), now)]
        projects = False
        for entry in changed:
            self.held[entry.ident] = entry
            projects = self._names.track(entry.ident, entry) or projects
        for ident in gone:
            self._told.pop(ident, None)
            projects = self._names.track(ident, None) or projects
        if projects:
            again = {entry.ident: entry for entry in changed}
            again.update((entry.ident, entry) for entry in self._names.rename(self.held))
            changed = list(again.values())
        if not (changed or gone):
            return
        self.seq += 1
        self._broadcast(wire.changed_line(self.seq, [entry.line for entry in changed], gone))
