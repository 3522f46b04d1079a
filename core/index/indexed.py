"""What the live index holds, and how a run is made of it.

`Indexed` is the state of `wftop.core.index.live.LiveIndex`, which reads every run once and
then follows the disk: the run table (each run folder's reader, `wftop.core.index.runtable`),
the runs handed out, the holder of settled runs (`wftop.core.index.held`), the session
registries and the owners judged from them, the stall timers. Here a run is built from its
reader at a moment, kept (held by its row once settled), and a batch of touched runs is
committed as one `ChangeSet`. Nothing here reads the disk but the registries, and nothing
imports UI code.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable

from wftop.core.cost.spendbook import SpendBook
from wftop.core.index.changeset import Batch, ChangeSet
from wftop.core.index.coldpass import SessionFacts, newest_first
from wftop.core.index.context import RunContext
from wftop.core.index.held import Holder, RunKeys, Seed, held_seed, may_doze
from wftop.core.index.listings import Listings
from wftop.core.index.reader import RunReader
from wftop.core.index.revive import Ghosts
from wftop.core.index.runtable import RunTable
from wftop.core.index.stalltimers import StallTimers
from wftop.core.index.touch import registry_stamps
from wftop.core.model import DEFAULT_STALL_WINDOW, Run
from wftop.core.read.runfolder import RunFolder
from wftop.core.read.sessions import (
    NO_OWNER,
    Owner,
    RegistryEntry,
    local_pid_domain,
    owners_from_entries,
    read_registry,
)
from wftop.core.system.memory import Trim
from wftop.core.system.procs import ProcessTable, default_table


class Indexed:
    """Every run the live index holds, and how each is built, kept and handed out."""

    def __init__(
        self,
        roots: list[str],
        *,
        processes: ProcessTable | None = None,
        now: Callable[[], float] = time.time,
        stall_window: float = DEFAULT_STALL_WINDOW,
        sweep_interval: float = 30.0,
        debounce_ms: int = 50,
        step_ms: int = 20,
        spends: bool = False,
        hold_settled: bool = False,
        spend_book: SpendBook | None = None,
        trim: Trim | None = None,
    ) -> None:
        """``spends``: the runs handed out carry what they spent (`Run.spend`), kept as lines
        come and transcripts change, for a view that makes rows of them. ``hold_settled``:
        a settled run is let go of once handed out, and read again when it changes
        (`wftop.core.index.held`): `runs` then holds it without its calls, and `get` reads
        it again. ``trim``: how memory freed is given back to the system after a full
        sweep (`wftop.core.system.memory`; None: it is not)."""
        self.roots = [os.path.abspath(root) for root in roots]
        self.spends = spends
        self.spend_book = spend_book
        """What transcripts spent, kept between processes (written after each read)."""
        self.hold_settled = hold_settled
        self.trim = trim
        self.stall_window = stall_window
        self.sweep_interval = sweep_interval
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self._processes: ProcessTable = processes if processes is not None else default_table()
        self._now = now
        self._pid_domain = local_pid_domain()
        self._seq = 0
        self._started = False
        self._swept = 0
        """Sweeps applied so far (the first one means the watch is up and caught up)."""
        self._listings = Listings()
        """The folders the sweeps listed, kept by their stamps between sweeps."""
        self._reset()

    def _reset(self) -> None:
        self._table = RunTable(spends=self.spends, spend_book=self.spend_book)
        self._holder = Holder(self.hold_settled)
        self._runs: dict[str, Run] = {}
        self._order: list[Run] | None = None
        self._registry: dict[str, list[RegistryEntry]] = {}
        self._registry_seen: dict[str, tuple[tuple[str, tuple[int, float, int]], ...]] = {}
        self._owners: dict[str, Owner] = {}
        self._facts = SessionFacts()
        self._timers = StallTimers(self.stall_window)
        self._ghosts = Ghosts()
        """Runs gone that may come back unread (`wftop.core.index.revive`)."""
        self._awake: dict[str, str] = {}
        """Ident → folder of the runs built last that may not doze (`may_doze`: one that
        grows): the spend book keeps their entries between change sets (`_spends_kept`)."""

    # -- queries ---------------------------------------------------------------------------

    @property
    def processes(self) -> ProcessTable:
        """The process table owners are judged by (screens that judge again use it too)."""
        return self._processes

    def runs(self) -> list[Run]:
        """Every run, newest activity first."""
        if self._order is None:
            self._order = newest_first(self._runs.values())
        return list(self._order)

    def get(self, ident: str) -> Run | None:
        """The run ``<session>/<runId>``, or None (a settled run held by its row is read
        again for it)."""
        run = self._runs.get(ident)
        reader = self._table.readers.get(ident)
        if run is None or reader is None or not reader.dozing:
            return run
        reader.wake(owner_alive=self._alive(reader.folder))
        run = reader.run(self._context(self._now()), frozen=True)
        reader.doze()
        return run

    def held_by_row(self) -> set[str]:
        """The runs held by their rows now (`wftop.core.index.held`): their readers doze."""
        return {ident for ident, reader in self._table.readers.items() if reader.dozing}

    # -- bookkeeping -----------------------------------------------------------------------

    def _read_registries(self, roots: Iterable[str]) -> None:
        for root in roots:
            self._registry_seen[root] = registry_stamps(os.path.join(root, "sessions"))
            self._registry[root] = list(read_registry(root))

    def _compute_owners(self) -> dict[str, Owner]:
        entries = (entry for root in self.roots for entry in self._registry.get(root, []))
        return owners_from_entries(entries, self._processes, self._pid_domain)

    def _context(self, moment: float) -> RunContext:
        """Runs classified at ``moment`` against the index's own (current) tables."""
        superseded = self._table.superseded
        return RunContext(self._owners, superseded, moment, self.stall_window, self._facts.cwd)

    def _seeded(self, reader: RunReader, seed: Seed, keys: RunKeys, now: float) -> Run | None:
        """The run of a seed, kept with its reader dozing, when its key still holds
        (`wftop.core.index.held.held_seed`); None otherwise (its reader may then be dozing)."""
        folder = reader.folder
        owner = self._owners.get(folder.session_id, NO_OWNER)
        superseded = self._table.superseded.get(folder.ident)
        run = held_seed(reader, seed, keys, owner, superseded, now)
        if run is not None:
            self._runs[run.ident] = run
        return run

    def _keep(self, run: Run, take: Callable[[Run], None] | None, now: float) -> Run:
        """Keep a run just built at ``now`` (`Holder.settle`); hand it to ``take``, if any:
        what the cold start's change set then holds is what is kept."""
        reader = self._table.readers[run.ident]
        kept = self._runs[run.ident] = self._holder.settle(reader, run, now)
        if take is None:
            return run
        take(run)
        return kept

    def _build(self, ident: str, context: RunContext) -> Run:
        reader = self._table.readers[ident]
        self._holder.wake(ident, reader, owner_alive=self._alive(reader.folder))
        run = reader.run(context, frozen=True)
        self._timers.watch(run, context.now)
        return run

    def _alive(self, folder: RunFolder) -> bool:
        return self._owners.get(folder.session_id, NO_OWNER).may_be_alive

    def _update_owners(self, batch: Batch) -> None:
        owners = self._compute_owners()
        changed = {
            s for s in set(owners) | set(self._owners) if owners.get(s) != self._owners.get(s)
        }
        self._owners = owners
        if not changed:  # every 5 s: most often nothing, and 16,000 sessions at 20,000 runs
            return
        for key, idents in self._table.by_session.items():
            if key[2] in changed:  # a run back unread is kept only with its owner as it went
                for ident in idents - batch.revived:
                    batch.dirty.add(ident)
                    reader = self._table.readers[ident]
                    if not self._holder.wake(ident, reader, owner_alive=self._alive(reader.folder)):
                        reader.refresh_transcripts(self._alive(reader.folder))

    def _commit(self, batch: Batch) -> ChangeSet | None:
        context = self._context(self._now())
        added: list[Run] = []
        changed: list[Run] = []
        revived: list[str] = []
        for ident in sorted(batch.added | batch.dirty):
            if ident not in self._table.readers:
                continue
            if ident in batch.revived and ident not in batch.dirty and self._as_it_went(ident):
                revived.append(ident)
                continue
            run = self._build(ident, context)
            self._runs[ident] = self._holder.settle(self._table.readers[ident], run, context.now)
            (added if ident in batch.added else changed).append(run)
        self._holder.settle_batch()
        if self.spend_book is not None:  # the runs that changed keep theirs: they may again
            self.spend_book.save(keep=self._spends_kept([*added, *changed], context.now))
        self._ghosts.back.clear()
        for ident in batch.removed:
            self._ghosts.keep(batch.left.get(ident), self._runs.pop(ident, None), context.now)
        self._ghosts.expire(context.now)
        if not (added or changed or batch.removed or revived):
            return None
        self._order = None
        self._seq += 1
        return ChangeSet(
            self._seq,
            added=tuple(newest_first(added)),
            changed=tuple(newest_first(changed)),
            removed=tuple(sorted(batch.removed)),
            revived=tuple(revived),
        )

    def _spends_kept(self, built: list[Run], now: float) -> set[str]:
        """The folders whose spend book entries stay read after this change set: the runs
        just built, and those that may not doze at ``now`` (a run that grows). A change set
        that left a growing run out (an owner checked, a timer, a touch that changed nothing)
        let go of its entries, and its next line read them all again from the book's file
        (a transcript each: 50,000 in a large run)."""
        for run in built:
            self._awake[run.ident] = run.folder.path
        for ident in list(self._awake):
            held = self._runs.get(ident)
            if held is None or may_doze(held, now):
                del self._awake[ident]
        return {run.folder.path for run in built} | set(self._awake.values())

    def _as_it_went(self, ident: str) -> bool:
        """Keep the run back unread as it went (its reader dozing), when its owner and the
        session that superseded it are as they were too; False: read it."""
        run = self._ghosts.back[ident]
        owner = self._owners.get(run.folder.session_id, NO_OWNER)
        if run.owner != owner or run.superseded_by != self._table.superseded.get(ident):
            return False
        self._runs[ident] = run
        return True
