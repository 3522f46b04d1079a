"""The live index: every run under the roots, kept current from file events.

Theory of operation: `LiveIndex.cold_start` reads every run folder once (newest sessions
first) with the readers ``wftop.core.index.coldpass.scan_roots``
uses, so a cold scan and the index agree.
`LiveIndex.changes` then follows the disk with one ``watchfiles.awatch`` over each root's
``projects/`` and ``sessions/`` folders (folders, not files, so a file replaced by rename
stays followed) and the real folders of linked runs elsewhere. A batch of changed paths
is classified (``wftop.core.index.touch.classify``) and
re-reads only what it names: appended journal
bytes from the last offset, a snapshot whose size, time or inode changed, a run's agent
transcript sizes (stat only), one session's run folders, one root's registry. Only the
runs touched are rebuilt, and they come out as one `ChangeSet`. No event says that a
SIGKILLed owner died or that time passed, so owners are re-checked every few seconds,
a timer ends each running run's stall window (`wftop.core.index.stalltimers`), and a stat-only
sweep (in a worker thread) every ``sweep_interval`` survives missed events. Nothing is
rescanned whole again.

The loop that waits for events, sweeps and timers is `wftop.core.index.follow.changes`; it
reaches the index only through the methods under "what the follow loop uses" (the
`wftop.core.index.follow.Followed` protocol), never its private state. What the index
holds, and how a run is built, kept and committed from it: `wftop.core.index.indexed`.

Every `Run` the index hands out is immutable, its ``fold`` included (a
`wftop.core.read.journal.JournalFold.snapshot`, which copies a call only when a later line
changes it): the index may fold on in a worker thread while a screen reads the runs it
handed out before.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Callable, Iterable, Mapping

from wftop.core.index import follow
from wftop.core.index import touch as sense
from wftop.core.index.changeset import Batch, ChangeSet
from wftop.core.index.coldpass import newest_first, paused_gc
from wftop.core.index.held import RunKeys, Seed
from wftop.core.index.indexed import Indexed
from wftop.core.index.reread import reread
from wftop.core.index.rescan import rescan
from wftop.core.index.supersede import find_superseded
from wftop.core.index.touch import Kind, Observation, Sweep, Touch
from wftop.core.model import Run
from wftop.core.read.discovery import newest_sessions_first, run_folders_of
from wftop.core.system.memory import give_back_memory

RECENT_SECONDS = 3600.0
"""Runs active this recently are stat'ed by every sweep, like runs with a live owner."""


class LiveIndex(Indexed):
    """Every Workflow run under the roots, updated incrementally from file events."""

    # -- cold start ------------------------------------------------------------------------

    def cold_start(
        self,
        progress: Callable[[int, int], None] | None = None,
        take: Callable[[Run], None] | None = None,
        seeds: Mapping[str, Seed] | None = None,
    ) -> ChangeSet:
        """Read every run once (newest sessions first); every run comes out as added.

        Args:
            progress: called with (runs read, runs found) about a hundred times.
            take: called with each run as soon as it is built (the change set then holds
                what the index keeps: with ``hold_settled``, a settled run without its
                calls). With ``hold_settled`` each run is built as soon as it is read,
                classified at the moment the pass began, as the first rows are, so that
                no more than one settled run's fold is held at a time.
            seeds: with ``hold_settled``, the rows of settled runs made before (by ident):
                a run whose key still holds is not read, its reader dozes from the start
                (`wftop.core.index.held`), and it is not handed to ``take``.
        """
        self._reset()
        with paused_gc(freeze=True):
            folders = newest_sessions_first(run_folders_of(self.roots)[0])
            self._read_registries(self.roots)
            self._owners = self._compute_owners()
            for folder in folders:  # a seeded run's reader starts dozing: it may not be read
                self._table.track(folder, dozing=seeds is not None and folder.ident in seeds)
            self._table.superseded = find_superseded(folders)
            total = len(folders)
            every = max(1, total // 100)
            if progress is not None:
                progress(0, total)
            early = self._context(self._now()) if self.hold_settled else None
            keys = RunKeys()
            built: list[Run] = []
            for done, folder in enumerate(folders, 1):
                reader = self._table.readers[folder.ident]
                seed = seeds.get(folder.ident) if seeds else None
                seeded = None
                if seed is not None and early is not None:
                    seeded = self._seeded(reader, seed, keys, early.now)
                if seeded is not None:
                    built.append(seeded)
                elif reader.dozing:  # seeded, but its files changed since its row was made
                    reader.wake(owner_alive=self._alive(folder))
                else:
                    reader.refresh(owner_alive=self._alive(folder))
                if early is not None and seeded is None:
                    built.append(self._keep(self._build(folder.ident, early), take, early.now))
                if progress is not None and (done % every == 0 or done == total):
                    progress(done, total)
            if early is None:
                context = self._context(self._now())
                built = [
                    self._keep(self._build(f.ident, context), take, context.now) for f in folders
                ]
        if self.spend_book is not None:
            self.spend_book.save()
        self._started = True
        self._order = None
        self._seq += 1
        return ChangeSet(self._seq, added=tuple(newest_first(built)))

    # -- what the follow loop uses (wftop.core.index.follow.Followed) ----------------------------

    @property
    def started(self) -> bool:
        """The cold start has been done."""
        return self._started

    @property
    def sweeps(self) -> int:
        """Sweeps applied so far (the first one means the watch is up and caught up)."""
        return self._swept

    def take_rewatch(self) -> bool:
        """Whether a linked run folder, a root or its ``projects/`` came or went since last
        asked: the watch must be set up anew. Asking clears it."""
        rewatch, self._table.rewatch = self._table.rewatch, False
        return rewatch

    def watch_targets(self) -> tuple[str, ...]:
        """The folders to watch now (``wftop.core.index.touch.watch_paths``)."""
        return sense.watch_paths(self.roots, self._table.linked.values())

    def shallow_targets(self) -> tuple[str, ...]:
        """The folders to watch without what is below them
        (``wftop.core.index.touch.shallow_paths``)."""
        return sense.shallow_paths(self.roots)

    def classify(self, paths: Iterable[str]) -> list[Touch]:
        """What the changed paths mean for this index; paths it does not care about drop."""
        touches = (sense.classify(path, self.roots, self._table.run_dirs) for path in paths)
        return [touch for touch in touches if touch is not None]

    def sweep_plan(self, *, full: bool) -> Sweep:
        """The next stat sweep: every run when ``full``, else the runs that may be live,
        those active in the last `RECENT_SECONDS`, and the next share of the others."""
        live = {session for session, owner in self._owners.items() if owner.may_be_alive}
        part = -1 if full else self._swept % sense.SWEEP_PARTS
        since = self._now() - RECENT_SECONDS
        table, runs = self._table, self._runs.values()
        return sense.plan_sweep(
            self.roots, table.by_session, table.readers, runs, live, part, since,
            self._listings, self._now(),
        )  # fmt: skip

    def sweep_touches(self, seen: Observation) -> list[Touch]:
        """Touches for whatever a finished sweep saw that differs from what the index holds
        (the sweep counts as applied once they are passed to `apply`)."""
        self._swept += 1
        table = self._table
        return sense.touches_from(seen, table.by_session, table.readers, self._registry_seen)

    def swept_all(self) -> None:
        """A full sweep (every run's files stat'ed: 15 MB of stamps at 20,000 runs) is done
        and let go of: what it freed goes back to the system, where the index was given how."""
        if self.trim is not None:
            give_back_memory(self.trim)

    def seconds_to_deadline(self) -> float:
        """Seconds until the next running run may turn stalled (inf when none runs)."""
        due = self._timers.next_due()
        return math.inf if due is None else max(0.0, due - self._now())

    def apply(self, touches: list[Touch], *, recheck_owners: bool = False) -> ChangeSet | None:
        """Re-read what the touches name and rebuild the runs they concern; with
        ``recheck_owners`` look at every registered owner again. None: nothing changed."""
        batch = Batch()
        kinds: dict[Kind, list[Touch]] = {}
        for touch in touches:
            kinds.setdefault(touch.kind, []).append(touch)
        for touch in kinds.get(Kind.ROOT, []):
            kinds.setdefault(Kind.REGISTRY, []).append(Touch(Kind.REGISTRY, root=touch.root))
        rescan(self._table, kinds, batch, self._alive, self._ghosts.take)
        registry_roots = {touch.root for touch in kinds.get(Kind.REGISTRY, [])}
        if registry_roots or recheck_owners:
            self._read_registries(registry_roots)
            self._update_owners(batch)
        reread(self._table, self._holder, self._facts, kinds, batch, alive=self._alive)
        self._table.update_superseded(batch)
        batch.dirty.update(self._timers.due(self._now(), self._runs))
        return self._commit(batch)

    # -- following the disk ----------------------------------------------------------------

    def changes(
        self, stop_event: asyncio.Event | None = None, tell: Callable[[str], None] | None = None
    ) -> AsyncIterator[ChangeSet]:
        """Change sets as the disk changes, until ``stop_event`` is set or iteration stops.

        The cold start comes first when it has not been done yet. Only non-empty
        change sets are yielded; whatever arrives while one is being consumed is
        coalesced into the next. The loop itself is `wftop.core.index.follow.changes`.
        """
        return follow.changes(self, stop_event, tell)
