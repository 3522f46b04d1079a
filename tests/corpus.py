"""Helpers to reach the trees written by the real CLI under ``tests/data``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

DATA = Path(__file__).parent / "data"
CORPUS = DATA / "corpus"
VERSIONS = DATA / "versions"


def tree(name: str) -> Path:
    """A corpus tree (a Claude config dir holding ``projects/``)."""
    for base in (CORPUS, VERSIONS, DATA):
        if (base / name / "projects").is_dir():
            return base / name
    raise FileNotFoundError(name)


def copy_tree(name: str, target: Path) -> Path:
    """A private copy of a corpus tree that a test may change."""
    destination = target / name
    shutil.copytree(tree(name), destination, symlinks=True)
    return destination


def only_journal(root: Path) -> Path:
    (journal,) = sorted(root.glob("projects/*/*/subagents/workflows/wf_*/journal.jsonl"))
    return journal


def live_agents(name: str, step: int | None = None) -> dict[str, int]:
    """Sub-agents the mock answered live in a tree's last recorded step."""
    summary = json.loads((tree(name) / "step-summary.json").read_text())
    return dict(summary["live_agent_requests"])
