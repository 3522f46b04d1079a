"""Where Workflow runs live: config roots and the run folders under them."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

from core.jsonl import Problem

RUN_FOLDER = re.compile(r"^wf_[A-Za-z0-9-]+$")


class RootError(Exception):
    """A root that does not exist or cannot be read."""


def default_roots(env: Mapping[str, str] | None = None) -> list[str]:
    """``$CLAUDE_CONFIG_DIR`` if set, else ``~/.claude``."""
    env = os.environ if env is None else env
    configured = env.get("CLAUDE_CONFIG_DIR")
    if configured:
        return [os.path.abspath(os.path.expanduser(configured))]
    return [os.path.join(os.path.expanduser("~"), ".claude")]


def resolve_roots(extra: list[str], *, include_default: bool = True) -> list[str]:
    """The default root (when asked) plus every extra root, without repeats."""
    roots: list[str] = []
    seen: set[str] = set()
    for root in (default_roots() if include_default else []) + list(extra):
        absolute = os.path.abspath(os.path.expanduser(root))
        real = os.path.realpath(absolute)
        if real not in seen:
            seen.add(real)
            roots.append(absolute)
    return roots


def check_root(root: str) -> None:
    """Raise `RootError` with a one-line reason when a root cannot be used."""
    if not os.path.exists(root):
        raise RootError(
            f"{root}: no such directory (expected a Claude config dir holding projects/)"
        )
    if not os.path.isdir(root):
        raise RootError(f"{root}: not a directory (expected a Claude config dir holding projects/)")
    if not os.access(root, os.R_OK | os.X_OK):
        raise RootError(f"{root}: permission denied")
    projects = os.path.join(root, "projects")
    if os.path.isdir(projects) and not os.access(projects, os.R_OK | os.X_OK):
        raise RootError(f"{projects}: permission denied")


@dataclass(frozen=True)
class RunFolder:
    """One ``<root>/projects/<slug>/<session>/subagents/workflows/<runId>/`` folder."""

    root: str
    project: str
    session_id: str
    run_id: str
    path: str
    real_path: str

    @property
    def project_dir(self) -> str:
        return os.path.join(self.root, "projects", self.project)

    @property
    def session_dir(self) -> str:
        return os.path.join(self.project_dir, self.session_id)

    @property
    def journal(self) -> str:
        return os.path.join(self.path, "journal.jsonl")

    @property
    def snapshot(self) -> str:
        return os.path.join(self.session_dir, "workflows", f"{self.run_id}.json")

    @property
    def transcript(self) -> str:
        """The session's main transcript ``<slug>/<session>.jsonl``."""
        return os.path.join(self.project_dir, f"{self.session_id}.jsonl")

    @property
    def scripts_dir(self) -> str:
        return os.path.join(self.session_dir, "workflows", "scripts")

    @property
    def ident(self) -> str:
        """Stable identity of the run in an index: session and run id."""
        return f"{self.session_id}/{self.run_id}"


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
            return sorted(found, key=lambda entry: entry.name)
    except FileNotFoundError:
        return []
    except OSError as error:
        problems.append(Problem(path, 0, error.strerror or str(error)))
        return []


def find_run_folders(root: str) -> tuple[list[RunFolder], list[Problem]]:
    """Every run folder of a root, each reported once (de-duplicated by real path).

    A run folder that is a symbolic link (an adopted run) is followed once; when the
    link and its target are both under the root, the target's own place wins.
    """
    problems: list[Problem] = []
    by_real: dict[str, RunFolder] = {}
    for project in _subdirs(os.path.join(root, "projects"), problems):
        for session in _subdirs(project.path, problems):
            workflows = os.path.join(session.path, "subagents", "workflows")
            for run in _subdirs(workflows, problems):
                if not RUN_FOLDER.match(run.name):
                    continue
                folder = RunFolder(
                    root=root,
                    project=project.name,
                    session_id=session.name,
                    run_id=run.name,
                    path=run.path,
                    real_path=os.path.realpath(run.path),
                )
                kept = by_real.get(folder.real_path)
                if kept is None or (
                    kept.path != kept.real_path and folder.path == folder.real_path
                ):
                    by_real[folder.real_path] = folder
    return list(by_real.values()), problems
