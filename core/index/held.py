"""Settled runs held by their rows: what the live index lets go of, and reads again.

A run that has ended (its snapshot written), or whose owner is dead, changes only when its
files do (`wftop.core.index.cachefile.settled`). The engine's live index hands every run out
as a row, so such a run needs neither its fold nor its parsed snapshot once its row is made:
its reader dozes (`wftop.core.index.reader.RunReader.doze`), keeping only the stamps the
sweeps compare, and the index keeps a `light` run (its status, times, names and failures,
no calls) for its order and its sweeps. When its files change, its owner or supersession
changes, or something asks for the run, the reader wakes: it reads the folder in full again
and the run is built as at the cold start. A run active in the last `HOT_SECONDS` (a run
still written to whose owner is not known alive) and a run woken by a change stay awake, so
a run that grows is never read whole again at each of its lines.

Seeded: a settled run whose row was made elsewhere (in a forked worker of the engine's first
rows, or kept in the rows cache) is not read again by the live index's cold start. Its
`Seed` is the rows cache's entry of it: that row and the key it was made under
(`wftop.core.index.cachefile.run_key`, taken before its files were read), whether the row
was kept by an earlier start or read in this one; when the key still holds, its reader
starts dozing with the stamps of its files taken now (`RunReader.seed`), and the index
keeps the run its row describes (`seeded_run`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import replace
from sys import intern
from typing import NamedTuple

import orjson

from wftop.core.index.agentstats import NO_TRANSCRIPTS
from wftop.core.index.cachefile import Key, run_key, session_stamp, settled, stamp
from wftop.core.index.naming import sorted_listing
from wftop.core.index.reader import RunReader
from wftop.core.index.rowfile import ENDED, key_text
from wftop.core.model import Run
from wftop.core.read.journal import JournalFold
from wftop.core.read.jsonl import FileStamp
from wftop.core.read.runfolder import RunFolder
from wftop.core.read.sessions import Owner
from wftop.core.row import RowError, RunRow

HOT_SECONDS = 600.0
"""A settled run active this recently keeps what was read of it."""

NO_CALLS = JournalFold()
"""The fold of every `light` run (one for all: a run's fold is never fed once built)."""


def light(run: Run) -> Run:
    """The run without its calls or its parsed snapshot (what a dozing reader let go)."""
    return replace(run, fold=NO_CALLS, snapshot=None)


class Seed(NamedTuple):
    """A settled run's row made before the live index started, printed (as the rows cache
    keeps it), and the key it was made under as the rows cache keeps it
    (`wftop.core.index.rowfile.key_text`; an `ended` run's without its journal's stamp):
    a rows cache's entry is a seed as it is, no row decoded until the index uses it."""

    key: str
    line: bytes

    def holds(self, key: Key | None) -> bool:
        """Whether ``key``, a run's key now (`RunKeys`), is the one the row was made under."""
        if key is None:
            return False
        if self.key.startswith(ENDED):
            key = [None, *key[1:]]
        return key_text(key) == self.key

    def row(self) -> RunRow:
        """The row (`RowError` when the line is not one): an array of its values, as the
        engine holds it (`wftop.core.row.array_line`), or an object, as ``ls`` prints it."""
        try:
            data = orjson.loads(self.line)
        except orjson.JSONDecodeError as error:
            raise RowError(f"row: not JSON ({error})") from None
        return RunRow.from_array(data) if type(data) is list else RunRow.from_json(data)


class RunKeys:
    """Runs' keys now, as the rows cache keys its rows (`wftop.core.index.cachefile.run_key`
    and the run folder's stamp), each session's stamp made once: make one per moment."""

    def __init__(self) -> None:
        self._sessions: dict[tuple[str, str, str], Key | None] = {}

    def __call__(self, folder: RunFolder, owner: Owner, superseded_by: str | None) -> Key | None:
        """The run's key now; None when its session transcript is gone (never seeded)."""
        place = (folder.root, folder.project, folder.session_id)
        if place not in self._sessions:
            self._sessions[place] = session_stamp(folder)
        session = self._sessions[place]
        if session is None:
            return None
        return [*run_key(folder, owner, superseded_by, session), stamp(folder.path, size=False)]


def seeded_run(row: RunRow, reader: RunReader, owner: Owner, superseded_by: str | None) -> Run:
    """The `light` run a seed's row describes (its status, names and times, no calls), its
    journal's size and time as its seeded reader stamped them."""
    return Run(
        folder=reader.folder,
        fold=NO_CALLS,
        snapshot=None,
        snapshot_current=row.snapshot_current,
        owner=owner,
        status=row.status,
        cwd=None if row.cwd is None else intern(row.cwd),  # one copy for a project's runs
        name=None if row.name is None else intern(row.name),
        script_path=row.script_path,
        journal_size=reader.journal_size,
        journal_mtime=reader.journal_mtime,
        transcripts=NO_TRANSCRIPTS,
        last_activity=row.last_activity,
        superseded_by=superseded_by,
        journal_missing=row.journal is None,
        unreadable_reason=row.unreadable_reason,
        rerun_tokens=row.rerun_tokens,
    )


def seed_reader(reader: RunReader) -> bool:
    """Start a reader dozing without reading its run, its journal's and snapshot's stamps
    taken now (a sweep that sees them differ wakes it); the caller checks after this that
    the run's seed still holds. False, nothing done, when the journal is not a file: such a
    run is read."""
    try:
        info = os.stat(reader.folder.journal)
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode):
        return False
    try:
        snapshot: os.stat_result | None = os.stat(reader.folder.snapshot)
    except OSError:
        snapshot = None
    reader.seed(FileStamp(info.st_size, info.st_mtime, info.st_ino), snapshot)
    return True


def held_seed(
    reader: RunReader,
    seed: Seed,
    keys: RunKeys,
    owner: Owner,
    superseded_by: str | None,
    now: float,
) -> Run | None:
    """The `light` run of a seed, its reader dozing, when the key its row was made under
    still holds and the run may doze at ``now``; None otherwise (its reader may then be
    dozing: read it). The stamps a sweep compares are taken before the key is checked, so
    a change after that is seen."""
    if not seed_reader(reader):
        return None
    try:
        row = seed.row()
    except RowError:
        return None
    run = seeded_run(row, reader, owner, superseded_by)
    if not may_doze(run, now) or not seed.holds(keys(reader.folder, owner, superseded_by)):
        return None
    return run


def may_doze(run: Run, now: float) -> bool:
    """Whether a run built at ``now`` may be held by its row: settled, and not active in
    the last `HOT_SECONDS`."""
    if not settled(run):
        return False
    return run.last_activity is None or now - run.last_activity >= HOT_SECONDS


class Holder:
    """Which readers doze, and which woke in the batch being applied."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        """Settled runs doze (the engine's index); off, every reader keeps what it read."""
        self.woken: set[str] = set()
        """Runs woken since the last `settle_batch`: they stay awake this time."""

    def wake(
        self,
        ident: str,
        reader: RunReader,
        *,
        owner_alive: bool,
        listing: Callable[[str], list[str]] = sorted_listing,
    ) -> bool:
        """Read a dozing reader's folder again; True when it was dozing."""
        if not reader.dozing:
            return False
        reader.wake(owner_alive=owner_alive, listing=listing)
        self.woken.add(ident)
        return True

    def settle(self, reader: RunReader, run: Run, now: float) -> Run:
        """What the index keeps of ``run`` just built at ``now``: the run, or, when it is
        settled (not active in the last `HOT_SECONDS`, and did not just wake), its `light`
        self, its reader dozing."""
        if not self.enabled or run.ident in self.woken or not may_doze(run, now):
            return run
        reader.doze()
        return light(run)

    def settle_batch(self) -> None:
        self.woken.clear()
