"""Which config roots to read: the default one (``$CLAUDE_CONFIG_DIR`` or ``~/.claude``), the
ones named, and why one cannot be used (`check_root`)."""

from __future__ import annotations

import os
from collections.abc import Mapping


class RootError(Exception):
    """A root that does not exist or cannot be read."""


class NoDefaultRoot(RootError):
    """The default root (``$CLAUDE_CONFIG_DIR`` or ``~/.claude``) does not exist: Claude Code
    has not run here, or keeps its config elsewhere."""


FIRST_RUN = (
    "Claude Code has not run here: pass --root DIR, set CLAUDE_CONFIG_DIR, or try wftop demo"
)
"""What a person with no default root reads after where wftop looked."""


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


def check_root(root: str, *, default: bool = False) -> None:
    """Raise `RootError` with a one-line reason when a root cannot be used (``default``: it
    is the default root, and its absence is `NoDefaultRoot`). A root that is itself a
    ``projects/`` folder is one level too deep: its parent is named."""
    if not os.path.exists(root):
        if default:
            raise NoDefaultRoot(f"{root}: no such directory: {FIRST_RUN}")
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
    if not os.path.isdir(projects) and os.path.basename(os.path.normpath(root)) == "projects":
        parent = os.path.dirname(os.path.normpath(root))
        raise RootError(
            f"{root}: a projects/ folder, not a Claude config dir: did you mean its parent,"
            f" {parent}?"
        )
