"""What a run folder is: its paths, its identity, and the shape of a run id (found where:
`wftop.core.read.discovery`)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from sys import intern

from wftop.core.read.problem import Problem

RUN_ID = re.compile(r"wf_[a-z0-9-]{6,}", re.ASCII)
"""The CLI's ``WORKFLOW_RUN_ID_PATTERN`` (``^wf_[a-z0-9-]{6,}$``, what ``resumeFromRunId``
accepts; the ids it makes are ``wf_`` + 8 hex + ``-`` + 3 hex): the one rule for what names a
run, in discovery, forensics and resume alike. Match with ``fullmatch``."""

RUN_FOLDER = re.compile(r"^wf_")
"""What looks like a run folder (or a snapshot's name): one whose name fails `RUN_ID` is
said as such (`not_a_run_id`), and not read."""


def not_a_run_id(path: str) -> Problem:
    """The problem of a ``wf_…`` folder or snapshot whose name is not a run id the CLI writes."""
    return Problem(path, 0, "not a run id the CLI writes (wf_ and 6 or more of a-z, 0-9, -)")


_set = object.__setattr__
"""How `RunFolder`'s own ``__init__`` sets a field of the frozen class."""


@dataclass(frozen=True)
class RunFolder:
    """One ``<root>/projects/<slug>/<session>/subagents/workflows/<runId>/`` folder."""

    root: str
    project: str
    session_id: str
    run_id: str
    path: str
    real_path: str

    def __init__(
        self, root: str, project: str, session_id: str, run_id: str, path: str, real_path: str
    ) -> None:
        """The frozen data class's ``__init__``, written here: each field set by
        ``object.__setattr__`` taken once, where the one `dataclass` compiles (as the module
        is imported) looks it up on ``object`` for each field, each time (a folder made in
        8.8 K instructions, where it took 10.2 K: the engine makes one for each kept row
        before it lists them, the walk one for each run)."""
        _set(self, "root", root)
        _set(self, "project", project)
        _set(self, "session_id", session_id)
        _set(self, "run_id", run_id)
        _set(self, "path", path)
        _set(self, "real_path", real_path)

    # Plain concatenation: os.path.join is measurably slow in a cold scan, and every
    # part here is a single folder name under an absolute root.

    @property
    def project_dir(self) -> str:
        return under(self.root, "projects", self.project)

    @property
    def session_dir(self) -> str:
        return under(self.root, "projects", self.project, self.session_id)

    @property
    def journal(self) -> str:
        path = self.path
        return (path if path.endswith(os.sep) else path + os.sep) + "journal.jsonl"

    @property
    def snapshot(self) -> str:
        return under(
            self.root, "projects", self.project, self.session_id, "workflows", f"{self.run_id}.json"
        )

    @property
    def transcript(self) -> str:
        """The session's main transcript ``<slug>/<session>.jsonl``."""
        return under(self.root, "projects", self.project, f"{self.session_id}.jsonl")

    @property
    def scripts_dir(self) -> str:
        return under(self.root, "projects", self.project, self.session_id, "workflows", "scripts")

    @property
    def ident(self) -> str:
        """The run's identity wherever wftop keys runs: `run_ident` of its root, session and id."""
        return run_ident(self.root, self.session_id, self.run_id)


def run_ident(root: str, session_id: str, run_id: str) -> str:
    """The one identity of a run: the live index, change sets, the TUI's rows and selection
    and the resume plan all key runs by it. ``<session>/<runId>@<root>``: the same run copied
    under two roots (a backup, a second ``CLAUDE_CONFIG_DIR``) is two runs. A remote run will
    add its host in front of the root (``@host:root``), and nothing else changes. Interned:
    every table of an engine keys a run by it (20,000 runs held one copy a table)."""
    return intern(f"{session_id}/{run_id}@{root}")


def short_project(cwd: str | None, slug: str) -> str:
    """A project as a person names it: the cwd's last folder, else the slug's last part."""
    if cwd:
        return os.path.basename(cwd.rstrip("/")) or cwd
    return slug.strip("-").rsplit("-", 1)[-1]


def under(base: str, *parts: str) -> str:
    """``os.path.join`` for a base path and plain names (no separators in them)."""
    head = base if base.endswith(os.sep) else base + os.sep
    return head + os.sep.join(parts)
