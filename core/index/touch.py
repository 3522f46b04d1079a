"""The index's senses: what a changed path means, the stat sweep, what to watch.

`classify` turns one changed path into a `Touch`: which run, session, project or
registry it concerns and what has to be looked at again (no I/O). `observe` is the
consistency sweep (`plan_sweep` says what one `Sweep` looks at): it only lists folders
and stats files (never reads one) and returns what it saw, so the index can re-read only
what differs (`touches_from`). `watch_paths` names
the folders the watcher (``wftop.core.index.watcher``) follows. Nothing here imports UI code.
"""

from __future__ import annotations

import math
import os
import zlib
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from enum import StrEnum

from wftop.core.index.agentstats import AgentStamps, agent_stamps
from wftop.core.index.listings import Listings, dir_names
from wftop.core.index.reader import RunReader
from wftop.core.model import Run
from wftop.core.read.runfolder import RUN_FOLDER

Stamp = tuple[int, float, int]
"""(size, mtime, inode) of a file."""


class Kind(StrEnum):
    JOURNAL = "journal"
    """A run's ``journal.jsonl``: read the appended bytes."""
    TRANSCRIPT = "transcript"
    """A run's ``agent-<id>.jsonl``: stat the run's transcripts."""
    RUN_FOLDER = "run_folder"
    """A run folder itself appeared or vanished: list its session's run folders."""
    SESSION = "session"
    """Something above the run folders of a session changed: list them again."""
    PROJECT = "project"
    """A project folder appeared or vanished: list its sessions."""
    SESSION_TRANSCRIPT = "session_transcript"
    """``<slug>/<session>.jsonl``: the session's working directory may now be known."""
    SNAPSHOT = "snapshot"
    """``<session>/workflows/<runId>.json``, or that folder itself."""
    SCRIPT = "script"
    """Something under ``<session>/workflows/scripts/``."""
    REGISTRY = "registry"
    """``<root>/sessions/``: owners may have changed."""
    ROOT = "root"
    """A root, its ``projects/`` or its ``sessions/`` itself came or went: list the root
    again and watch it anew (a watch on a folder deleted is gone with it)."""


@dataclass(frozen=True)
class Touch:
    kind: Kind
    root: str = ""
    project: str = ""
    session: str = ""
    name: str = ""
    """The run id of a snapshot (empty: every run of the session); the file name of a
    TRANSCRIPT touch (empty: every transcript of the run)."""
    ident: str = ""
    """The run of a JOURNAL or TRANSCRIPT touch."""


def classify(path: str, roots: Sequence[str], run_dirs: Mapping[str, str]) -> Touch | None:
    """What a changed path means; None when the index does not care about it.

    Args:
        roots: the config dirs watched.
        run_dirs: every known run folder (its own path and its real path) → run ident.
    """
    parent, name = os.path.split(path)
    ident = run_dirs.get(parent)
    if ident is not None:
        if name == "journal.jsonl":
            return Touch(Kind.JOURNAL, ident=ident)
        if name.startswith("agent-") and name.endswith(".jsonl"):
            return Touch(Kind.TRANSCRIPT, name=name, ident=ident)
        return None
    for root in roots:
        top = root.rstrip(os.sep)
        if path == top or path in (top + os.sep + "projects", top + os.sep + "sessions"):
            return Touch(Kind.ROOT, root=root)
        if path.startswith(top + os.sep):
            return _classify_under(root, path[len(top) + 1 :].split(os.sep))
    return None


def _classify_under(root: str, parts: list[str]) -> Touch | None:
    if parts[0] == "sessions":
        return Touch(Kind.REGISTRY, root=root)
    if parts[0] != "projects" or len(parts) < 2 or not parts[1]:
        return None
    project = parts[1]
    if len(parts) == 2:
        return Touch(Kind.PROJECT, root=root, project=project)
    third = parts[2]
    if len(parts) == 3:
        if third.endswith(".jsonl"):
            return Touch(Kind.SESSION_TRANSCRIPT, root=root, project=project, session=third[:-6])
        return Touch(Kind.SESSION, root=root, project=project, session=third)
    session, rest = third, parts[3:]
    if rest[0] == "subagents":
        if len(rest) <= 2:
            return Touch(Kind.SESSION, root=root, project=project, session=session)
        if rest[1] == "workflows" and RUN_FOLDER.match(rest[2]):
            # A run folder the index does not know yet (or just lost).
            return Touch(Kind.RUN_FOLDER, root=root, project=project, session=session)
        return None
    if rest[0] == "workflows":
        if len(rest) == 1:
            return Touch(Kind.SNAPSHOT, root=root, project=project, session=session)
        if rest[1] == "scripts":
            return Touch(Kind.SCRIPT, root=root, project=project, session=session)
        if len(rest) == 2 and rest[1].endswith(".json"):
            run_id = rest[1][:-5]
            return Touch(Kind.SNAPSHOT, root=root, project=project, session=session, name=run_id)
    return None


@dataclass(frozen=True)
class Probe:
    """What the sweep should look at for one known run."""

    ident: str
    journal: str
    snapshot: str
    folder: str
    transcripts: bool
    """Stat its agent transcripts too (only runs whose owner may be alive)."""


@dataclass
class Observation:
    """What one sweep saw; compared with the index's state by the caller."""

    run_folders: set[tuple[str, str, str, str]] = field(default_factory=set)
    """(root, project, session, run id) of every run folder of the sessions listed."""
    sessions_listed: set[tuple[str, str, str]] = field(default_factory=set)
    """(root, project, session) whose run folders were listed (this sweep's share)."""
    sessions_on_disk: set[tuple[str, str, str]] = field(default_factory=set)
    folders_seen: set[str] = field(default_factory=set)
    """Roots whose ``projects/`` could be listed, or is gone (no session is left there)."""
    journals: dict[str, Stamp | None] = field(default_factory=dict)
    snapshots: dict[str, Stamp | None] = field(default_factory=dict)
    transcripts: dict[str, AgentStamps] = field(default_factory=dict)
    registries: dict[str, tuple[tuple[str, Stamp], ...]] = field(default_factory=dict)
    """root → (file name, stamp) of every ``sessions/*.json``."""


def stamp_of(path: str) -> Stamp | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_size, info.st_mtime, info.st_ino)


SWEEP_PARTS = 10
"""Each sweep looks at the runs that may be live and at one tenth of the others, in
turn: a missed event on an old, ended run is found within ten sweeps."""


def in_part(session: str, part: int, parts: int = SWEEP_PARTS) -> bool:
    """Whether a session belongs to this sweep's share (share -1 holds every session)."""
    return part < 0 or zlib.crc32(session.encode()) % parts == part


def observe(
    roots: Iterable[str],
    probes: Iterable[Probe],
    *,
    part: int = 0,
    parts: int = 1,
    hot_sessions: Set[str] = frozenset(),
    listings: Listings | None = None,
    moment: float = -math.inf,
) -> Observation:
    """List run folders and stat the files of known runs (never reads a file).

    Only the sessions in ``hot_sessions`` or in share ``part`` of ``parts`` have their
    run folders listed. A project folder whose stamp is what it was when ``listings``
    listed it before ``moment`` is not listed again (`wftop.core.index.listings`). Safe
    to run in a worker thread: it touches nothing but the file system and ``listings``.
    """
    seen = Observation()
    kept = listings if listings is not None else Listings()
    for root in roots:
        seen.registries[root] = registry_stamps(os.path.join(root, "sessions"))
        projects = os.path.join(root, "projects")
        if not os.path.isdir(projects):
            if not _exists(projects):  # gone (or the root with it): no session is left
                seen.folders_seen.add(root)
            continue
        for project in kept.dir_names(projects, moment):
            for session in kept.dir_names(os.path.join(projects, project), moment):
                seen.sessions_on_disk.add((root, project, session))
                if session not in hot_sessions and not in_part(session, part, parts):
                    continue
                seen.sessions_listed.add((root, project, session))
                workflows = os.path.join(projects, project, session, "subagents", "workflows")
                for run in dir_names(workflows) or ():
                    if RUN_FOLDER.match(run):
                        seen.run_folders.add((root, project, session, run))
        seen.folders_seen.add(root)
    for probe in probes:
        seen.journals[probe.ident] = stamp_of(probe.journal)
        seen.snapshots[probe.ident] = stamp_of(probe.snapshot)
        if probe.transcripts:
            seen.transcripts[probe.ident] = agent_stamps(probe.folder)
    return seen


def _exists(path: str) -> bool:
    """Whether ``path`` may be there: False only when it, or a folder above it, is gone
    (a folder that cannot be looked at, say unreadable, may hold sessions all the same)."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True
    return True


def registry_stamps(folder: str) -> tuple[tuple[str, Stamp], ...]:
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return ()
    found = []
    for name in names:
        if name.endswith(".json"):
            stamp = stamp_of(os.path.join(folder, name))
            if stamp is not None:
                found.append((name, stamp))
    return tuple(found)


@dataclass(frozen=True)
class Sweep:
    """What one stat sweep looks at, planned from the index's state and run elsewhere."""

    roots: tuple[str, ...]
    probes: tuple[Probe, ...]
    part: int
    """The share of sessions whose run folders are listed (-1: every session)."""
    hot_sessions: frozenset[str]
    """Sessions listed whatever the share: those that may be live or were active lately."""
    listings: Listings = field(default_factory=Listings, compare=False)
    """The folder listings kept between the index's sweeps."""
    moment: float = -math.inf
    """When the sweep was planned, by the index's clock (how old a kept listing must be)."""

    def observe(self) -> Observation:
        """Run the sweep: listings and stats only, so safe in a worker thread."""
        return observe(
            self.roots,
            self.probes,
            part=self.part,
            parts=SWEEP_PARTS,
            hot_sessions=self.hot_sessions,
            listings=self.listings,
            moment=self.moment,
        )


def plan_sweep(
    roots: Iterable[str],
    by_session: Mapping[tuple[str, str, str], Set[str]],
    readers: Mapping[str, RunReader],
    runs: Iterable[Run],
    live: set[str],
    part: int,
    since: float,
    listings: Listings | None = None,
    moment: float = -math.inf,
) -> Sweep:
    """What one sweep stats: runs of sessions that may be live or were active ``since``
    (the hot sessions) and the runs of sweep share ``part`` (``by_session``: the idents
    of the runs of each (root, project, session))."""
    hot = set(live)
    for run in runs:
        if run.last_activity is not None and run.last_activity >= since:
            hot.add(run.session_id)
    chosen = {
        ident: readers[ident]
        for place, idents in by_session.items()
        if place[2] in hot or in_part(place[2], part)
        for ident in idents
    }
    kept = listings if listings is not None else Listings()
    return Sweep(tuple(roots), tuple(probes(chosen, live)), part, frozenset(hot), kept, moment)


def probes(readers: Mapping[str, RunReader], live_sessions: set[str]) -> list[Probe]:
    """What to stat for every known run; transcripts only where an owner may be alive."""
    return [
        Probe(
            ident=ident,
            journal=reader.folder.journal,
            snapshot=reader.folder.snapshot,
            folder=reader.folder.path,
            transcripts=reader.folder.session_id in live_sessions,
        )
        for ident, reader in readers.items()
    ]


def touches_from(
    seen: Observation,
    by_session: Mapping[tuple[str, str, str], Set[str]],
    readers: Mapping[str, RunReader],
    registries: Mapping[str, tuple[tuple[str, Stamp], ...]],
) -> list[Touch]:
    """Touches for everything a sweep saw that differs from what the readers hold
    (``by_session``: the idents of the runs of each (root, project, session))."""
    touches: list[Touch] = []
    known = {
        (*place, readers[ident].folder.run_id)
        for place in seen.sessions_listed
        for ident in by_session.get(place, ())
    }
    gone = {
        place
        for place in by_session.keys() - seen.sessions_on_disk
        if by_session[place] and place[0] in seen.folders_seen
    }
    changed = {run[:3] for run in seen.run_folders ^ known} | gone
    for root, project, session in sorted(changed):
        touches.append(Touch(Kind.SESSION, root=root, project=project, session=session))
    for ident, stamp in seen.journals.items():
        reader = readers.get(ident)
        if reader is None:
            continue
        info = reader.journal_stat
        held = (info.st_size, info.st_mtime, info.st_ino) if info is not None else None
        if stamp != held:
            touches.append(Touch(Kind.JOURNAL, ident=ident))
        if seen.snapshots.get(ident) != reader.snapshot_stamp:
            touches.append(Touch(Kind.SNAPSHOT, ident=ident))
        agents = seen.transcripts.get(ident)
        if agents is not None and agents != reader.agent_stamps:
            touches += _transcripts_differing(ident, agents, reader.agent_stamps)
    for root, stamps in seen.registries.items():
        if stamps != registries.get(root):
            touches.append(Touch(Kind.REGISTRY, root=root))
    return touches


def _transcripts_differing(ident: str, seen: AgentStamps, held: AgentStamps) -> list[Touch]:
    """A touch for each transcript whose stamp the sweep saw differ from the one held (a
    live run's written since, or one an event was missed for): those alone are stat'ed and
    read again, not every one of a run that may have made 50,000. None held: all of them."""
    if not held:
        return [Touch(Kind.TRANSCRIPT, ident=ident)]
    names = {agent for agent, stamp in seen.items() if held.get(agent) != stamp}
    names.update(held.keys() - seen.keys())
    return [
        Touch(Kind.TRANSCRIPT, name=f"agent-{agent}.jsonl", ident=ident) for agent in sorted(names)
    ]


def shallow_paths(roots: Iterable[str]) -> tuple[str, ...]:
    """The folders watched without what is below them: each root and the folder holding
    it, where they exist (so a root, or its ``projects/``, deleted and made again is seen)."""
    paths: set[str] = set()
    for root in roots:
        for folder in (root, os.path.dirname(root.rstrip(os.sep)) or os.sep):
            if os.path.isdir(folder):
                paths.add(folder)
    return tuple(sorted(paths))


def watch_paths(roots: Iterable[str], linked: Iterable[str]) -> tuple[str, ...]:
    """The folders to watch: each root's ``projects/`` and ``sessions/`` that exist,
    plus the real folders of linked runs (``linked``: their real paths) that live outside
    them (a watch set up before a link appeared does not follow it)."""
    paths: set[str] = set()
    prefixes = []
    for root in roots:
        for name in ("projects", "sessions"):
            watched = os.path.join(root, name)
            prefixes.append(os.path.realpath(watched) + os.sep)
            if os.path.isdir(watched):
                paths.add(watched)
    for real_path in linked:
        if not any((real_path + os.sep).startswith(prefix) for prefix in prefixes):
            paths.add(real_path)
    return tuple(sorted(paths))
