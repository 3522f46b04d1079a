"""Which session to examine: every session transcript under the roots, newest first.

After a crash the newest session of a directory is often the fresh one the person
is sitting in, so ``--previous`` picks the one before it.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass

from wftop.core.read.jsonl import Problem
from wftop.core.read.sessions import transcript_cwd

SESSION_FILE = re.compile(r"^[0-9A-Za-z][0-9A-Za-z-]{7,127}\.jsonl$")


class SessionNotFound(Exception):
    """No session matches what was asked, with a one-line reason."""


@dataclass(frozen=True)
class SessionFile:
    root: str
    project: str
    session_id: str
    path: str
    mtime: float
    size: int

    @property
    def session_dir(self) -> str:
        return self.path[: -len(".jsonl")]

    def cwd(self) -> str | None:
        return transcript_cwd(self.path)


def list_sessions(roots: list[str]) -> tuple[list[SessionFile], list[Problem]]:
    """Every ``<root>/projects/<slug>/<session>.jsonl``, newest write first.

    Only regular files count: a directory or FIFO with that name is reported as a
    problem and never opened.
    """
    found: list[SessionFile] = []
    problems: list[Problem] = []
    for root in roots:
        projects = os.path.join(root, "projects")
        try:
            slugs = sorted(os.listdir(projects))
        except FileNotFoundError:
            continue
        except OSError as error:
            problems.append(Problem(projects, 0, error.strerror or str(error)))
            continue
        for slug in slugs:
            folder = os.path.join(projects, slug)
            try:
                names = sorted(os.listdir(folder))
            except NotADirectoryError:
                continue
            except OSError as error:
                problems.append(Problem(folder, 0, error.strerror or str(error)))
                continue
            for name in names:
                if not SESSION_FILE.match(name):
                    continue
                path = os.path.join(folder, name)
                try:
                    info = os.stat(path)
                except OSError as error:
                    problems.append(Problem(path, 0, error.strerror or str(error)))
                    continue
                if not stat.S_ISREG(info.st_mode):
                    kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
                    problems.append(Problem(path, 0, f"{kind}, expected a session transcript"))
                    continue
                found.append(SessionFile(root, slug, name[:-6], path, info.st_mtime, info.st_size))
    found.sort(key=lambda session: (-session.mtime, session.path))
    return found, problems


def same_dir(left: str | None, right: str) -> bool:
    if not left:
        return False
    return os.path.realpath(left) == os.path.realpath(right) or left == right


def project_slug(path: str) -> str:
    """The project folder name Claude Code gives a working directory (first 200 characters)."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)[:200]


def sessions_of_cwd(sessions: list[SessionFile], cwd: str) -> list[SessionFile]:
    """The sessions started in ``cwd``, newest first.

    Transcripts in the folder named after ``cwd`` are checked first; only when none
    of them was started there is every transcript's recorded directory read.
    """
    slug = project_slug(os.path.abspath(cwd))
    likely = [session for session in sessions if session.project[:200] == slug]
    mine = [session for session in likely if same_dir(session.cwd(), cwd)]
    if mine:
        return mine
    others = [session for session in sessions if session.project[:200] != slug]
    return [session for session in others if same_dir(session.cwd(), cwd)]


def pick_session(
    sessions: list[SessionFile], cwd: str, *, previous: bool, roots: Sequence[str] = ()
) -> SessionFile:
    """The newest session of ``cwd``, or with ``previous`` the one before it.

    Raises:
        SessionNotFound: with one line saying where it looked (the project folder named
            after ``cwd`` under each root) and what lists the sessions there are.
    """
    mine = sessions_of_cwd(sessions, cwd)
    wanted = 1 if previous else 0
    if len(mine) > wanted:
        return mine[wanted]
    offer = "`wftop scan --list-sessions` lists the recent sessions (then --session ID)"
    if not mine:
        slug = project_slug(os.path.abspath(cwd))
        where = ", ".join(os.path.join(root, "projects", slug) for root in roots)
        raise SessionNotFound(
            f"no session was started in {cwd}: looked in {where or 'projects/' + slug} and at "
            f"the directory each other session recorded; {offer}"
        )
    raise SessionNotFound(f"{cwd} has only one session, so there is no previous one; {offer}")


def find_session(sessions: list[SessionFile], value: str) -> SessionFile | str:
    """A session by transcript path, session folder or session id.

    A path that is not under a root is returned as is (it is read directly).
    """
    if os.sep in value or value.endswith(".jsonl"):
        path = os.path.abspath(value)
        if not path.endswith(".jsonl") and os.path.isdir(path):
            path += ".jsonl"
        for session in sessions:
            if os.path.abspath(session.path) == path:
                return session
        try:
            info = os.stat(path)
        except OSError as error:
            raise SessionNotFound(f"{value}: {error.strerror or error}") from error
        if not stat.S_ISREG(info.st_mode):
            raise SessionNotFound(f"{value}: not a regular file, expected a session transcript")
        return path
    matches = [session for session in sessions if session.session_id.startswith(value)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise SessionNotFound(f"no session with id {value} under the roots")
    raise SessionNotFound(f"{value} names {len(matches)} sessions; give more of the id")
