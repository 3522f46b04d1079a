"""Where Workflow runs live: the run folders under a config root (which roots: `roots`)."""

from __future__ import annotations

import operator
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from wftop.core.read.problem import Problem
from wftop.core.read.runfolder import RUN_ID, RunFolder, not_a_run_id, under

_NAME = operator.attrgetter("name")


def _subdirs(path: str, problems: list[Problem]) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(path) as entries:
            found = []
            for entry in entries:
                try:
                    if entry.is_dir():
                        found.append(entry)
                except OSError as error:
                    problems.append(Problem(entry.path, 0, error.strerror or str(error)))
            found.sort(key=_NAME)
            return found
    except FileNotFoundError:
        return []
    except OSError as error:
        problems.append(Problem(path, 0, error.strerror or str(error)))
        return []


def _real_child(parent_real: str, entry: os.DirEntry[str]) -> str:
    """Real path of a directory entry whose parent's real path is known.

    Only a symbolic link needs the (costly) full resolution.
    """
    try:
        if entry.is_symlink():
            return os.path.realpath(entry.path)
    except OSError:
        return os.path.realpath(entry.path)
    return under(parent_real, entry.name)


def _real_workflows(session_real: str, session_path: str) -> str:
    subagents = under(session_path, "subagents")
    workflows = under(subagents, "workflows")
    if os.path.islink(subagents) or os.path.islink(workflows):
        return os.path.realpath(workflows)
    return under(session_real, "subagents", "workflows")


RunNames = Callable[[str, str, list[Problem]], tuple[list[tuple[str, bool]], str]]
"""How the run folders of a session are listed (`run_names`, given the session folder's path
and real path; the rows cache answers from the names it kept while the folder's stamp
holds): each ``wf_…`` folder's name with whether it is a symbolic link, and the real path
of the ``subagents/workflows`` folder they are in."""


def run_names(
    session_path: str,
    session_real: str,
    problems: list[Problem],
    *,
    workflows_real: str | None = None,
) -> tuple[list[tuple[str, bool]], str]:
    """The folders whose names start with ``wf_`` (`RUN_FOLDER`) in a session's
    ``subagents/workflows`` folder, sorted, each with whether it is a symbolic link, and
    that folder's real path (resolved only when it holds a folder; ``workflows_real``: as
    the caller found it, neither folder on the way a link, not looked at again)."""
    workflows = under(session_path, "subagents", "workflows")
    entries = _subdirs(workflows, problems)
    found = []
    for entry in entries:
        if entry.name.startswith("wf_"):
            try:
                linked = entry.is_symlink()
            except OSError:
                linked = True  # resolved whole, as a link is
            found.append((entry.name, linked))
    if not entries:
        return found, workflows
    return found, workflows_real or _real_workflows(session_real, session_path)


Snapshots = Callable[[str], list[str] | None]
"""How the ``wf_…`` names of a session's ``workflows`` folder are listed (`snapshot_names`;
the rows cache answers from the names it kept while the folder's stamp holds)."""


def snapshot_names(folder: str) -> list[str] | None:
    """The names starting with ``wf_`` in a session's ``workflows`` folder, sorted; None
    when it cannot be listed (a session with no snapshot has none)."""
    try:
        with os.scandir(folder) as entries:
            return sorted(entry.name for entry in entries if entry.name.startswith("wf_"))
    except OSError:
        return None


def session_run_folders(
    root: str,
    project: str,
    session: str,
    problems: list[Problem],
    *,
    session_real: str | None = None,
    snapshots: Snapshots | None = None,
    runs: RunNames | None = None,
) -> list[RunFolder]:
    """The runs of one session folder (not de-duplicated): every run folder, and every
    snapshot ``workflows/<runId>.json`` that has none (a run whose script threw before its
    first agent, under a CLI that wrote no ``launched`` line; or whose folder is gone)."""
    session_path = under(root, "projects", project, session)
    if session_real is None:
        session_real = os.path.realpath(session_path)
    workflows = session_path + _WORKFLOWS
    names, workflows_real = (runs or run_names)(session_path, session_real, problems)
    moved = workflows_real != workflows  # a link on the way: each run's real path differs
    folders = []
    head = workflows + os.sep
    for name, linked in names:
        path = head + name
        if _run_id(name) is None:
            problems.append(not_a_run_id(path))
            continue
        real = path
        if linked:  # its target, wherever that is
            real = os.path.realpath(path)
        elif moved:
            real = under(workflows_real, name)
        # one string held, not two, when the real path is the path
        folders.append(
            RunFolder(root, project, session, name, path, path if real == path else real)
        )
    snapshot_dir = session_path + os.sep + "workflows"
    listed = (snapshots or snapshot_names)(snapshot_dir)
    if not listed:
        return folders
    named = {folder.run_id for folder in folders}
    for run_id in _snapshot_ids(listed, snapshot_dir, problems):
        if run_id not in named:
            path = os.path.join(workflows, run_id)
            real = os.path.join(workflows_real, run_id)
            folders.append(RunFolder(root, project, session, run_id, path, real))
    return folders


_WORKFLOWS = os.sep + "subagents" + os.sep + "workflows"
_run_id = RUN_ID.fullmatch


def _snapshot_ids(names: list[str], folder: str, problems: list[Problem]) -> list[str]:
    """The run ids of the snapshots ``<runId>.json`` among the ``names`` of a session's
    ``workflows`` folder."""
    found = []
    for name in names:
        if not name.endswith(".json"):
            continue
        run_id = name[: -len(".json")]
        if _run_id(run_id) is None:
            problems.append(not_a_run_id(os.path.join(folder, name)))
        else:
            found.append(run_id)
    return found


def keep_once(by_real: dict[str, RunFolder], folder: RunFolder) -> None:
    """Add a folder to a real-path map; a link loses to its target's own place."""
    kept = by_real.get(folder.real_path)
    if kept is None or (kept.path != kept.real_path and folder.path == folder.real_path):
        by_real[folder.real_path] = folder


class SessionDir(NamedTuple):
    """One session folder to walk: ``<root>/projects/<project>/<name>``, with its real path."""

    root: str
    project: str
    name: str
    real: str

    def runs(self, packed: Sequence[tuple[str, str | None]]) -> list[RunFolder]:
        """The run folders of this session given as (run id, real path where it is not the
        folder's path) by `packed_runs`, as `session_run_folders` made them."""
        head = under(self.root, "projects", self.project, self.name) + _WORKFLOWS + os.sep
        root, project, session = self.root, self.project, self.name
        folders = []
        for run_id, real in packed:
            path = head + run_id
            folders.append(RunFolder(root, project, session, run_id, path, real or path))
        return folders


def packed_runs(folders: list[RunFolder]) -> list[tuple[str, str | None]]:
    """A session's run folders as `SessionDir.runs` takes them back: a few bytes a run to
    send from one process to another, where a `RunFolder` pickled is about 200."""
    return [
        (folder.run_id, None if folder.real_path == folder.path else folder.real_path)
        for folder in folders
    ]


Found = tuple[list[RunFolder], list[Problem]]
"""The runs of one session folder (not de-duplicated), and the problems its walk found."""

SessionWalk = Callable[[Sequence[SessionDir], Snapshots | None, RunNames | None], list[Found]]
"""How the session folders of a walk are walked (`walk_sessions`, or forked walkers that
give the same answer): each one's `Found`, in their order."""


def walk_sessions(
    sessions: Sequence[SessionDir],
    snapshots: Snapshots | None = None,
    runs: RunNames | None = None,
) -> list[Found]:
    """Each session's runs (`session_run_folders`) and problems, in order."""
    found: list[Found] = []
    for session in sessions:
        problems: list[Problem] = []
        folders = session_run_folders(
            session.root,
            session.project,
            session.name,
            problems,
            session_real=session.real,
            snapshots=snapshots,
            runs=runs,
        )
        found.append((folders, problems))
    return found


@dataclass
class _RootWalk:
    """A root's ``projects/`` listed: what listing it found wrong, and each project's
    problems of its listing with its sessions (`run_folders_of`)."""

    problems: list[Problem]
    projects: list[tuple[list[Problem], list[SessionDir]]]


def _root_walk(root: str) -> _RootWalk:
    """The projects and sessions of a root, listed (sorted by name)."""
    problems: list[Problem] = []
    projects = os.path.join(root, "projects")
    projects_real = os.path.realpath(projects)
    listed: list[tuple[list[Problem], list[SessionDir]]] = []
    for project in _subdirs(projects, problems):
        project_real = _real_child(projects_real, project)
        trouble: list[Problem] = []
        sessions = [
            SessionDir(root, project.name, session.name, _real_child(project_real, session))
            for session in _subdirs(project.path, trouble)
        ]
        listed.append((trouble, sessions))
    return _RootWalk(problems, listed)


def find_run_folders(
    root: str, snapshots: Snapshots | None = None, runs: RunNames | None = None
) -> tuple[list[RunFolder], list[Problem]]:
    """Every run folder of a root, each reported once (de-duplicated by real path).

    A run folder that is a symbolic link (an adopted run) is followed once; when the
    link and its target are both under the root, the target's own place wins.
    """
    return run_folders_of([root], snapshots, runs)


def run_folders_of(
    roots: list[str],
    snapshots: Snapshots | None = None,
    runs: RunNames | None = None,
    *,
    walk: SessionWalk = walk_sessions,
) -> tuple[list[RunFolder], list[Problem]]:
    """Every run folder of every root, each real folder once (the first root wins;
    ``snapshots``, ``runs``: how the sessions' snapshots and run folders are listed;
    ``walk``: how the sessions are walked, once every root's are listed).

    Within a root, a run folder that is a symbolic link (an adopted run) is followed once;
    when the link and its target are both under the root, the target's own place wins.
    The problems come in the order of a walk of one folder after the other."""
    walks = [_root_walk(root) for root in roots]
    every = [session for one in walks for _, sessions in one.projects for session in sessions]
    results = iter(walk(every, snapshots, runs))
    folders: list[RunFolder] = []
    problems: list[Problem] = []
    seen: set[str] = set()
    for one in walks:
        problems.extend(one.problems)
        by_real: dict[str, RunFolder] = {}
        for trouble, sessions in one.projects:
            problems.extend(trouble)
            for _ in sessions:
                found, said = next(results)
                problems.extend(said)
                for folder in found:
                    keep_once(by_real, folder)
        for folder in by_real.values():
            if folder.real_path not in seen:
                seen.add(folder.real_path)
                folders.append(folder)
    return folders, problems


def newest_sessions_first(folders: list[RunFolder]) -> list[RunFolder]:
    """Folders ordered by their session transcript's modification time, newest first (each
    folder's transcript path made once: it is a property, and this runs before a first
    start forks its first reader)."""
    recency: dict[str, float] = {}
    newest: list[float] = []
    for folder in folders:
        transcript = folder.transcript
        when = recency.get(transcript)
        if when is None:
            try:
                when = os.stat(transcript).st_mtime
            except OSError:
                when = 0.0
            recency[transcript] = when
        newest.append(-when)
    return [folders[at] for at in sorted(range(len(folders)), key=newest.__getitem__)]
