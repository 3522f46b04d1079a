"""The live index: every run under the roots, kept current from file events.

Theory of operation: `LiveIndex.cold_start` reads every run folder once (newest sessions
first) with the readers ``wftop.core.coldpass.scan_roots`` uses, so a cold scan and the index agree.
`LiveIndex.changes` then follows the disk with one ``watchfiles.awatch`` over each root's
``projects/`` and ``sessions/`` folders (folders, not files, so a file replaced by rename
stays followed) and the real folders of linked runs elsewhere. A batch of changed paths
is classified (``wftop.core.touch.classify``) and re-reads only what it names: appended journal
bytes from the last offset, a snapshot whose size, time or inode changed, a run's agent
transcript sizes (stat only), one session's run folders, one root's registry. Only the
runs touched are rebuilt, and they come out as one `ChangeSet`. No event says that a
SIGKILLed owner died or that time passed, so owners are re-checked every few seconds,
a timer ends each running run's stall window, and a stat-only sweep (in a worker thread)
every ``sweep_interval`` survives missed events. Nothing is rescanned whole again.

A `Run` is immutable except its ``fold``, the reader's live journal fold (copying it per
change would cost more than the change): read it in the turn its change set arrives.
"""

from __future__ import annotations

import asyncio
import heapq
import os
import time
from collections.abc import AsyncIterator, Callable, Iterable

from wftop.core import follow
from wftop.core.changeset import Batch, ChangeSet
from wftop.core.coldpass import SessionFacts, find_superseded, newest_first, paused_gc
from wftop.core.discovery import (
    RunFolder,
    newest_sessions_first,
    run_folders_of,
    session_run_folders,
)
from wftop.core.model import DEFAULT_STALL_WINDOW, Run, Status
from wftop.core.procs import ProcessTable, ProcFs
from wftop.core.reader import RunReader
from wftop.core.sessions import (
    Liveness,
    Owner,
    RegistryEntry,
    local_pid_domain,
    owners_from_entries,
    read_registry,
)
from wftop.core.touch import Kind, Touch, registry_stamps

_ABSENT = Owner(Liveness.ABSENT)


class LiveIndex:
    """Every Workflow run under the roots, updated incrementally from file events."""

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
    ) -> None:
        self.roots = [os.path.abspath(root) for root in roots]
        self.stall_window = stall_window
        self.sweep_interval = sweep_interval
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self._processes: ProcessTable = processes if processes is not None else ProcFs()
        self._now = now
        self._pid_domain = local_pid_domain()
        self._seq = 0
        self._started = False
        self._swept = 0
        """Sweeps applied so far (the first one means the watch is up and caught up)."""
        self._reset()

    def _reset(self) -> None:
        self._readers: dict[str, RunReader] = {}
        self._runs: dict[str, Run] = {}
        self._order: list[Run] | None = None
        self._by_real: dict[str, str] = {}
        self._run_dirs: dict[str, str] = {}
        """Run folder path and real path → ident (where file events point)."""
        self._by_session: dict[tuple[str, str, str], set[str]] = {}
        self._by_run_id: dict[str, set[str]] = {}
        self._superseded: dict[str, str] = {}
        self._registry: dict[str, list[RegistryEntry]] = {}
        self._registry_seen: dict[str, tuple[tuple[str, tuple[int, float, int]], ...]] = {}
        self._owners: dict[str, Owner] = {}
        self._facts = SessionFacts()
        self._deadlines: list[tuple[float, str]] = []
        self._scheduled: set[str] = set()
        self._rewatch = False
        """A linked run folder came or went: the set of watched folders may change."""

    # -- queries ---------------------------------------------------------------------------

    def runs(self) -> list[Run]:
        """Every run, newest activity first."""
        if self._order is None:
            self._order = newest_first(self._runs.values())
        return list(self._order)

    def get(self, ident: str) -> Run | None:
        """The run ``<session>/<runId>``, or None."""
        return self._runs.get(ident)

    # -- cold start ------------------------------------------------------------------------

    def cold_start(self, progress: Callable[[int, int], None] | None = None) -> ChangeSet:
        """Read every run once (newest sessions first); every run comes out as added.

        Args:
            progress: called with (runs read, runs found) about a hundred times.
        """
        self._reset()
        with paused_gc():
            folders = newest_sessions_first(run_folders_of(self.roots)[0])
            self._read_registries(self.roots)
            self._owners = self._compute_owners()
            for folder in folders:
                self._track(folder)
            self._superseded = find_superseded(folders)
            total = len(folders)
            every = max(1, total // 100)
            if progress is not None:
                progress(0, total)
            for done, folder in enumerate(folders, 1):
                reader = self._readers[folder.ident]
                reader.refresh(owner_alive=self._alive(folder))
                if progress is not None and (done % every == 0 or done == total):
                    progress(done, total)
            moment = self._now()
            for folder in folders:
                self._runs[folder.ident] = self._build(folder.ident, moment)
        self._started = True
        self._order = None
        self._seq += 1
        return ChangeSet(self._seq, added=tuple(self.runs()))

    # -- bookkeeping -----------------------------------------------------------------------

    def _track(self, folder: RunFolder) -> RunReader:
        ident = folder.ident
        if folder.real_path != folder.path:
            self._rewatch = True
        reader = RunReader(folder)
        self._readers[ident] = reader
        self._by_real[folder.real_path] = ident
        self._run_dirs[folder.path] = ident
        self._run_dirs[folder.real_path] = ident
        key = (folder.root, folder.project, folder.session_id)
        self._by_session.setdefault(key, set()).add(ident)
        self._by_run_id.setdefault(folder.run_id, set()).add(ident)
        return reader

    def _untrack(self, ident: str, batch: Batch) -> None:
        reader = self._readers.pop(ident, None)
        if reader is None:
            return
        folder = reader.folder
        if folder.real_path != folder.path:
            self._rewatch = True
        self._by_real.pop(folder.real_path, None)
        self._run_dirs.pop(folder.path, None)
        self._run_dirs.pop(folder.real_path, None)
        self._by_session.get((folder.root, folder.project, folder.session_id), set()).discard(ident)
        self._by_run_id.get(folder.run_id, set()).discard(ident)
        self._superseded.pop(ident, None)
        batch.run_ids.add(folder.run_id)
        batch.dirty.discard(ident)
        if ident in batch.added:
            batch.added.discard(ident)
        else:
            batch.removed.add(ident)

    def _admit(self, folder: RunFolder, batch: Batch) -> None:
        """Track a folder found on disk, keeping each real folder once."""
        known = self._readers.get(folder.ident)
        if known is not None:
            if (known.folder.path, known.folder.real_path) == (folder.path, folder.real_path):
                return
            if known.folder.root != folder.root or known.folder.project != folder.project:
                return  # the same session and run id under another root: the first one wins
            self._untrack(folder.ident, batch)
        other = self._by_real.get(folder.real_path)
        if other is not None:
            kept = self._readers[other].folder
            if not (kept.path != kept.real_path and folder.path == folder.real_path):
                return
            self._untrack(other, batch)
        self._track(folder).refresh(owner_alive=self._alive(folder))
        batch.run_ids.add(folder.run_id)
        if folder.ident in batch.removed:
            batch.removed.discard(folder.ident)
            batch.dirty.add(folder.ident)
        else:
            batch.added.add(folder.ident)

    def _read_registries(self, roots: Iterable[str]) -> None:
        for root in roots:
            self._registry_seen[root] = registry_stamps(os.path.join(root, "sessions"))
            self._registry[root] = list(read_registry(root))

    def _compute_owners(self) -> dict[str, Owner]:
        entries = (entry for root in self.roots for entry in self._registry.get(root, []))
        return owners_from_entries(entries, self._processes, self._pid_domain)

    def _build(self, ident: str, moment: float) -> Run:
        reader = self._readers[ident]
        folder = reader.folder
        run = reader.build(
            owner=self._owners.get(folder.session_id, _ABSENT),
            cwd=self._facts.cwd(folder),
            now=moment,
            stall_window=self.stall_window,
            superseded_by=self._superseded.get(ident),
        )
        if run.status is Status.RUNNING and ident not in self._scheduled:
            # One timer per running run; it is moved on, not duplicated, as the run grows.
            self._scheduled.add(ident)
            deadline = (run.last_activity or moment) + self.stall_window
            heapq.heappush(self._deadlines, (deadline, ident))
        return run

    def _session_idents(self, touch: Touch) -> set[str]:
        return set(self._by_session.get((touch.root, touch.project, touch.session), ()))

    # -- applying touches ------------------------------------------------------------------

    def _apply(self, touches: list[Touch], *, recheck_owners: bool = False) -> ChangeSet | None:
        """Re-read what the touches name, rebuild the runs they concern."""
        batch = Batch()
        kinds: dict[Kind, list[Touch]] = {}
        for touch in touches:
            kinds.setdefault(touch.kind, []).append(touch)
        self._rescan(kinds, batch)
        registry_roots = {touch.root for touch in kinds.get(Kind.REGISTRY, [])}
        if registry_roots or recheck_owners:
            self._read_registries(registry_roots)
            self._update_owners(batch)
        self._refresh_runs(kinds, batch)
        self._update_superseded(batch)
        self._expire_deadlines(batch)
        return self._commit(batch)

    def _rescan(self, kinds: dict[Kind, list[Touch]], batch: Batch) -> None:
        sessions: set[tuple[str, str, str]] = set()
        for touch in kinds.get(Kind.PROJECT, []):
            project_dir = os.path.join(touch.root, "projects", touch.project)
            try:
                with os.scandir(project_dir) as entries:
                    names = {entry.name for entry in entries if entry.is_dir()}
            except OSError:
                names = set()
            known = {key[2] for key in self._by_session if key[:2] == (touch.root, touch.project)}
            sessions.update((touch.root, touch.project, name) for name in names | known)
        for kind in (Kind.SESSION, Kind.RUN_FOLDER):
            sessions.update((t.root, t.project, t.session) for t in kinds.get(kind, []))
        for root, project, session in sorted(sessions):
            found = session_run_folders(root, project, session, [])
            present = {folder.ident for folder in found}
            for ident in self._by_session.get((root, project, session), set()) - present:
                self._untrack(ident, batch)
            for folder in found:
                self._admit(folder, batch)

    def _alive(self, folder: RunFolder) -> bool:
        return self._owners.get(folder.session_id, _ABSENT).may_be_alive

    def _update_owners(self, batch: Batch) -> None:
        owners = self._compute_owners()
        changed = {
            s for s in set(owners) | set(self._owners) if owners.get(s) != self._owners.get(s)
        }
        self._owners = owners
        for key, idents in self._by_session.items():
            if key[2] in changed:
                batch.dirty.update(idents)
                for ident in idents:
                    reader = self._readers[ident]
                    reader.refresh_transcripts(self._alive(reader.folder))

    def _refresh_runs(self, kinds: dict[Kind, list[Touch]], batch: Batch) -> None:
        journals = {t.ident for t in kinds.get(Kind.JOURNAL, [])}
        snapshots: set[str] = set()
        for touch in kinds.get(Kind.SNAPSHOT, []):
            if touch.ident:
                snapshots.add(touch.ident)
            elif touch.name:
                snapshots.add(f"{touch.session}/{touch.name}")
            else:
                snapshots.update(self._session_idents(touch))
        transcripts = {t.ident for t in kinds.get(Kind.TRANSCRIPT, [])}
        for ident in sorted(journals | snapshots | transcripts):
            reader = self._readers.get(ident)
            if reader is None or ident in batch.added:
                continue
            changed = False
            if ident in journals and reader.refresh_journal():
                changed = True
                batch.run_ids.add(reader.folder.run_id)
            if ident in snapshots and reader.refresh_snapshot():
                changed = True
                reader.find_script()
            changed = reader.refresh_transcripts(self._alive(reader.folder)) or changed
            if ident in transcripts and self._cwd_from_agents(reader.folder):
                changed = True
            if changed:
                batch.dirty.add(ident)
        for touch in kinds.get(Kind.SCRIPT, []):
            for ident in self._session_idents(touch):
                reader = self._readers[ident]
                before = (reader.script_path, reader.script_name)
                reader.find_script()
                if (reader.script_path, reader.script_name) != before:
                    batch.dirty.add(ident)
        for touch in kinds.get(Kind.SESSION_TRANSCRIPT, []):
            idents = self._session_idents(touch)
            if idents:
                folder = self._readers[min(idents)].folder
                if not self._facts.known(folder):
                    self._facts.forget(folder)
                    batch.dirty.update(idents)

    def _cwd_from_agents(self, folder: RunFolder) -> bool:
        """Without a session transcript the cwd comes from an agent transcript: look again."""
        if self._facts.known(folder) or os.path.exists(folder.transcript):
            return False
        self._facts.forget(folder)
        return True

    def _update_superseded(self, batch: Batch) -> None:
        for run_id in batch.run_ids:
            group = self._by_run_id.get(run_id, set())
            before = {ident: self._superseded.get(ident) for ident in group}
            if len(group) < 2 and not any(before.values()):
                continue
            found = find_superseded(self._readers[ident].folder for ident in group)
            for ident in group:
                if found.get(ident) != before[ident]:
                    batch.dirty.add(ident)
                if ident in found:
                    self._superseded[ident] = found[ident]
                else:
                    self._superseded.pop(ident, None)

    def _expire_deadlines(self, batch: Batch) -> None:
        moment = self._now()
        while self._deadlines and self._deadlines[0][0] <= moment:
            _deadline, ident = heapq.heappop(self._deadlines)
            self._scheduled.discard(ident)
            run = self._runs.get(ident)
            if run is None or run.status is not Status.RUNNING:
                continue
            deadline = (run.last_activity or moment) + self.stall_window
            if deadline <= moment:
                batch.dirty.add(ident)
            else:
                self._scheduled.add(ident)
                heapq.heappush(self._deadlines, (deadline, ident))

    def _commit(self, batch: Batch) -> ChangeSet | None:
        moment = self._now()
        added: list[Run] = []
        changed: list[Run] = []
        for ident in sorted(batch.added | batch.dirty):
            if ident not in self._readers:
                continue
            run = self._build(ident, moment)
            self._runs[ident] = run
            (added if ident in batch.added else changed).append(run)
        for ident in batch.removed:
            self._runs.pop(ident, None)
        if not (added or changed or batch.removed):
            return None
        self._order = None
        self._seq += 1
        return ChangeSet(
            self._seq,
            added=tuple(newest_first(added)),
            changed=tuple(newest_first(changed)),
            removed=tuple(sorted(batch.removed)),
        )

    # -- following the disk ----------------------------------------------------------------

    def changes(self, stop_event: asyncio.Event | None = None) -> AsyncIterator[ChangeSet]:
        """Change sets as the disk changes, until ``stop_event`` is set or iteration stops.

        The cold start comes first when it has not been done yet. Only non-empty
        change sets are yielded; whatever arrives while one is being consumed is
        coalesced into the next. The loop itself is `wftop.core.follow.changes`.
        """
        return follow.changes(self, stop_event)
