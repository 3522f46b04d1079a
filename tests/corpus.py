"""Helpers to reach the trees written by the real CLI under ``tests/data``."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
import uuid
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


def aged(root: Path, seconds: float = 3600.0) -> Path:
    """Every file and folder of a copied tree last modified ``seconds`` ago: a copy keeps
    its checkout's times, which a fresh clone makes now (a run active a moment ago)."""
    past = time.time() - seconds
    for path in [root, *root.rglob("*")]:
        if not path.is_symlink():
            os.utime(path, (past, past))
    return root


SESSION_NAME = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def own_session_ids(root: Path) -> dict[str, str]:
    """Give every session of a copied tree an id of its own, in names and in contents.

    The resume guard refuses a session that any process of the machine resumes
    (``claude --resume ID``): two test runs resuming copies of one corpus session at the
    same moment (two checkouts' suites) would refuse each other. Returns old id -> new id;
    fails when ``root`` (a config dir, holding ``projects/``) holds no session.
    """
    names = [path.name.removesuffix(".jsonl") for path in root.glob("projects/*/*")]
    renamed = {old: str(uuid.uuid4()) for old in sorted(set(names)) if SESSION_NAME.fullmatch(old)}
    if not renamed:
        raise ValueError(f"no session under {root}/projects: no id to make its own")
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            changed = data
            for old, new in renamed.items():
                changed = changed.replace(old.encode(), new.encode())
            if changed != data:
                path.write_bytes(changed)
    for path in sorted(root.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        name = path.name
        for old, new in renamed.items():
            name = name.replace(old, new)
        if name != path.name:
            path.rename(path.with_name(name))
    return renamed


def only_journal(root: Path) -> Path:
    (journal,) = sorted(root.glob("projects/*/*/subagents/workflows/wf_*/journal.jsonl"))
    return journal


def live_agents(name: str, step: int | None = None) -> dict[str, int]:
    """Sub-agents the mock answered live in a tree's last recorded step."""
    summary = json.loads((tree(name) / "step-summary.json").read_text())
    return dict(summary["live_agent_requests"])
