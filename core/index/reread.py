"""Runs read again: what the live index re-reads of the runs a batch of touches names (new
journal lines, a snapshot, agent transcripts, a script folder, a session transcript), each
run once, a held run read again whole (`wftop.core.index.held`)."""

from __future__ import annotations

import os
from collections.abc import Callable

from wftop.core.index.changeset import Batch
from wftop.core.index.coldpass import SessionFacts
from wftop.core.index.held import Holder
from wftop.core.index.runtable import RunTable
from wftop.core.index.touch import Kind, Touch
from wftop.core.read.runfolder import RunFolder, run_ident


def reread(
    table: RunTable,
    holder: Holder,
    facts: SessionFacts,
    kinds: dict[Kind, list[Touch]],
    batch: Batch,
    *,
    alive: Callable[[RunFolder], bool],
) -> None:
    """Read again what ``kinds`` names of the tracked runs; the runs that changed join
    ``batch.dirty`` (``alive``: whether a folder's owner may be alive)."""
    journals = {t.ident for t in kinds.get(Kind.JOURNAL, [])}
    snapshots: set[str] = set()
    for touch in kinds.get(Kind.SNAPSHOT, []):
        if touch.ident:
            snapshots.add(touch.ident)
        elif touch.name:
            snapshots.add(run_ident(touch.root, touch.session, touch.name))
        else:
            snapshots.update(table.session_idents(touch.root, touch.project, touch.session))
    transcripts: dict[str, set[str] | None] = {}
    for touch in kinds.get(Kind.TRANSCRIPT, []):
        named = transcripts.setdefault(touch.ident, set())
        if named is not None and touch.name:
            named.add(touch.name)
        else:  # a sweep saw them differ: stat them all
            transcripts[touch.ident] = None
    for ident in sorted(journals | snapshots | set(transcripts)):
        reader = table.readers.get(ident)
        if reader is None or ident in batch.added:
            continue
        if holder.wake(ident, reader, owner_alive=alive(reader.folder)):
            batch.dirty.add(ident)  # read again in full: whatever the touches said
            batch.run_ids.add(reader.folder.run_id)  # its lines may continue another run
            continue
        changed = False
        if ident in journals and reader.refresh_journal():
            changed = True
            batch.run_ids.add(reader.folder.run_id)
            reader.refresh_reruns()  # a started line may be a re-run: its tokens count
        if ident in snapshots and reader.refresh_snapshot():
            changed = True
            reader.find_script()
        # Only the transcripts named; none for a journal or snapshot alone, unless the
        # run now needs them (or no longer does): a run may have made thousands.
        agents = transcripts.get(ident, ())
        if ident in transcripts:  # a reply a failure was looked for in is read again
            run_path = reader.folder.path
            paths = None if agents is None else [os.path.join(run_path, n) for n in agents]
            changed = reader.replies.changed(paths) or changed
        owner_alive = alive(reader.folder)
        changed = reader.refresh_transcripts(owner_alive, agents) or changed
        if ident in transcripts and reader.refresh_spend(transcripts[ident]):
            changed = True
        changed = reader.stand_in() or changed
        if ident in transcripts and _cwd_from_agents(facts, reader.folder):
            changed = True
        if changed:
            batch.dirty.add(ident)
    for touch in kinds.get(Kind.SCRIPT, []):
        for ident in table.session_idents(touch.root, touch.project, touch.session):
            reader = table.readers[ident]
            if holder.wake(ident, reader, owner_alive=alive(reader.folder)):
                batch.dirty.add(ident)
                continue
            before = (reader.script_path, reader.run_name)
            reader.find_script()
            if (reader.script_path, reader.run_name) != before:
                batch.dirty.add(ident)
    for touch in kinds.get(Kind.SESSION_TRANSCRIPT, []):
        idents = table.session_idents(touch.root, touch.project, touch.session)
        if idents:
            folder = table.readers[min(idents)].folder
            if not facts.known(folder):
                facts.forget(folder)
                batch.dirty.update(idents)


def _cwd_from_agents(facts: SessionFacts, folder: RunFolder) -> bool:
    """Without a session transcript the cwd comes from an agent transcript: look again."""
    if facts.known(folder) or os.path.exists(folder.transcript):
        return False
    facts.forget(folder)
    return True
