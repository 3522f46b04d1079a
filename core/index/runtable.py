"""The run folders the live index follows, and the tables its file events are looked up in.

A `RunTable` holds one `wftop.core.index.reader.RunReader` per run ident, with the lookups a
changed path or a sweep needs: run folder paths (its own and its real one) to idents,
idents by session and by run id, and which run continued which in another session. It
keeps each real folder once, and it notes when a linked run folder came or went (the
folders to watch may then change). The live index (`wftop.core.index.live`) owns one.
"""

from __future__ import annotations

from collections.abc import Callable

from wftop.core.cost.spendbook import SpendBook
from wftop.core.index.changeset import Batch
from wftop.core.index.reader import RunReader
from wftop.core.index.supersede import Chain, decide
from wftop.core.read.runfolder import RunFolder

Place = tuple[str, str, str]
"""(root, project slug, session id) of a session."""


class RunTable:
    """Readers of the tracked run folders by ident, and the lookups around them."""

    def __init__(self, *, spends: bool = False, spend_book: SpendBook | None = None) -> None:
        self.spends = spends
        """Readers keep what their runs spent (`RunReader.count_spend`)."""
        self.spend_book = spend_book
        """Where readers find what unchanged transcripts spent (`wftop.core.cost.spendbook`)."""
        self.readers: dict[str, RunReader] = {}
        self.run_dirs: dict[str, str] = {}
        """Run folder path and real path → ident (where file events point)."""
        self.by_session: dict[Place, set[str]] = {}
        self.superseded: dict[str, str] = {}
        """Ident → the session that continued the run (``find_superseded``)."""
        self.rewatch = False
        """A linked run folder came or went: the set of watched folders may change."""
        self.linked: dict[str, str] = {}
        """Ident → real path of the run folders that are links (`watch_paths` reads them)."""
        self._by_real: dict[str, str] = {}
        self._by_run_id: dict[str, tuple[str, ...]] = {}
        """Run id → the idents of its runs: nearly always one (a tuple of one is a quarter
        of a set of one, and there is one per run)."""
        self._chains: dict[str, Chain] = {}
        """The line digests of the journals of runs whose run id is in several sessions."""

    def track(
        self, folder: RunFolder, *, dozing: bool = False, reader: RunReader | None = None
    ) -> RunReader:
        """A new (unread) reader for the folder, filed under every lookup (``dozing``: it
        starts dozing, `wftop.core.index.reader.RunReader`); ``reader``: the one the run
        went with, filed again (`wftop.core.index.revive`)."""
        ident = folder.ident
        if folder.real_path != folder.path:
            self.rewatch = True
            self.linked[ident] = folder.real_path
        if reader is None:
            reader = RunReader(folder, spend_book=self.spend_book, dozing=dozing)
            reader.count_spend = self.spends
        self.readers[ident] = reader
        self._by_real[folder.real_path] = ident
        self.run_dirs[folder.path] = ident
        self.run_dirs[folder.real_path] = ident
        key = (folder.root, folder.project, folder.session_id)
        self.by_session.setdefault(key, set()).add(ident)
        group = self._by_run_id.get(folder.run_id, ())
        if ident not in group:
            self._by_run_id[folder.run_id] = (*group, ident)
        return reader

    def untrack(self, ident: str, batch: Batch) -> None:
        """Forget a run; the batch says it is gone (or never was, if added in this batch)."""
        reader = self.readers.pop(ident, None)
        if reader is None:
            return
        folder = reader.folder
        if folder.real_path != folder.path:
            self.rewatch = True
        self.linked.pop(ident, None)
        self._by_real.pop(folder.real_path, None)
        self.run_dirs.pop(folder.path, None)
        self.run_dirs.pop(folder.real_path, None)
        self.by_session.get((folder.root, folder.project, folder.session_id), set()).discard(ident)
        group = tuple(other for other in self._by_run_id.pop(folder.run_id, ()) if other != ident)
        if group:
            self._by_run_id[folder.run_id] = group
        self.superseded.pop(ident, None)
        self._chains.pop(ident, None)
        batch.run_ids.add(folder.run_id)
        batch.dirty.discard(ident)
        batch.left[ident] = reader
        if ident in batch.added:
            batch.added.discard(ident)
        else:
            batch.removed.add(ident)

    def admit(
        self,
        folder: RunFolder,
        batch: Batch,
        back: Callable[[RunFolder], RunReader | None] = lambda folder: None,
    ) -> RunReader | None:
        """Track a folder found on disk, keeping each real folder once.

        Returns the new reader (still to be read), or None when the folder is known
        already or another path to the same real folder is kept instead. ``back``: the
        reader the run went with, when it may come back unread (`wftop.core.index.revive`):
        it is tracked again, and its run joins ``batch.revived``.
        """
        known = self.readers.get(folder.ident)
        if known is not None:
            if (known.folder.path, known.folder.real_path) == (folder.path, folder.real_path):
                return None
            if known.folder.root != folder.root or known.folder.project != folder.project:
                return None  # the same session and run id under another root: the first one wins
            self.untrack(folder.ident, batch)
        other = self._by_real.get(folder.real_path)
        if other is not None:
            kept = self.readers[other].folder
            if not (kept.path != kept.real_path and folder.path == folder.real_path):
                return None
            self.untrack(other, batch)
        went = back(folder)
        reader = self.track(folder, reader=went)
        if went is not None:
            batch.revived.add(folder.ident)
        batch.run_ids.add(folder.run_id)
        if folder.ident in batch.removed:
            batch.removed.discard(folder.ident)
            batch.dirty.add(folder.ident)
        else:
            batch.added.add(folder.ident)
        return reader

    def session_idents(self, root: str, project: str, session: str) -> set[str]:
        """Idents of the tracked runs of one session."""
        return set(self.by_session.get((root, project, session), ()))

    def update_superseded(self, batch: Batch) -> None:
        """Decide again which runs of the batch's run ids were continued elsewhere (each
        journal of a group of two or more read for what was appended: `Chain`)."""
        for run_id in batch.run_ids:
            group = self._by_run_id.get(run_id, ())
            before = {ident: self.superseded.get(ident) for ident in group}
            if len(group) < 2:
                for ident in group:
                    self._chains.pop(ident, None)
                if not any(before.values()):
                    continue
            folders = [self.readers[ident].folder for ident in group]
            for folder in folders:
                chain = self._chains.get(folder.ident)
                if chain is None:
                    chain = self._chains[folder.ident] = Chain(folder.journal)
                chain.update()
            found = decide(folders, self._chains) if len(group) >= 2 else {}
            for ident in group:
                if found.get(ident) != before[ident]:
                    batch.dirty.add(ident)
                if ident in found:
                    self.superseded[ident] = found[ident]
                else:
                    self.superseded.pop(ident, None)
