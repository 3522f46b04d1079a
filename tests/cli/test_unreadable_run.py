"""A run wftop cannot read is said as such, never as dead.

The run folder of a copy of the ``killed`` tree is made mode 000 and every command runs as a
process that file modes bind (without root's capabilities to bypass them: `unprivileged`):
each surface says ``unreadable`` with the reason, none counts the run as dead, and the TUI's
counts line and title do not either.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import copy_tree
from tests.faults_kit import RUN, SESSION, run_folder, unprivileged, wftop

REASON = "journal.jsonl: permission denied"


@pytest.fixture
def unreadable(tmp_path: Path) -> Iterator[tuple[Path, list[str], dict[str, str]]]:
    world = tmp_path / "world"
    world.mkdir()
    world.chmod(0o755)
    root = copy_tree("killed", world)
    folder = run_folder(root)
    env = {
        **os.environ,
        "WFTOP_STATE_DIR": str(world / "state"),
        "WFTOP_CACHE_DIR": str(world / "cache"),
    }
    prefix = unprivileged()
    folder.chmod(0)
    try:
        yield root, prefix, env
    finally:
        folder.chmod(0o755)


def ask(root: Path, prefix: list[str], env: dict[str, str], *args: str) -> tuple[int, str]:
    done = wftop(root, *args, prefix=prefix, env=env)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout


def as_json(root: Path, prefix: list[str], env: dict[str, str], *args: str) -> Any:
    _code, out = ask(root, prefix, env, *args)
    return json.loads(out)


def test_every_surface_says_unreadable_with_the_reason(unreadable):
    root, prefix, env = unreadable
    (row,) = as_json(root, prefix, env, "ls", "--json", "--no-cache")
    assert row["status"] == "unreadable"
    assert row["unreadable_reason"].endswith(REASON)
    assert row["dead_workers"] == 0

    _code, table = ask(root, prefix, env, "ls")
    line = table.splitlines()[1]
    assert line.startswith("? unreadable") and line.endswith("permission denied"), line
    assert "dead" not in table

    (stats,) = as_json(root, prefix, env, "stats", "--json")["per_run"]
    assert stats["status"] == "unreadable" and stats["unreadable_reason"].endswith(REASON)

    salvage = as_json(root, prefix, env, "export", RUN, "--format", "json")
    assert salvage["status"] == "unreadable" and salvage["unreadable_reason"].endswith(REASON)
    _code, markdown = ask(root, prefix, env, "export", RUN)
    assert "- status: unreadable" in markdown and REASON in markdown

    code, out = ask(root, prefix, env, "resume", RUN, "--dry-run", "--json")
    plan = json.loads(out)
    assert code != 0 and plan["status"] == "unreadable"
    assert plan["unreadable_reason"].endswith(REASON)
    assert plan["refusal"]["reason"].startswith("journal unreadable: ")

    transcript = next(root.glob(f"projects/*/{SESSION}.jsonl"))
    report = as_json(root, prefix, env, "scan", "--json", "--session", str(transcript))
    (worker,) = report["workers"]
    assert worker["status"] == "unreadable" and worker["unreadable_reason"].endswith(REASON)
    assert worker["reported_by"] is None
    assert report["dead_workers"] == [] and report["reported"] == 0


def test_wftop_status_counts_it_unreadable_never_dead(unreadable):
    root, prefix, env = unreadable
    for cache in ([], ["--no-cache"]):
        payload = as_json(root, prefix, env, "status", "--format", "json", *cache)
        assert payload["counts"] == {"unreadable": 1}, cache
        assert payload["line"] == "⚠ 1 unreadable"


def test_the_tui_counts_and_title_never_count_it_dead(unreadable):
    from wftop.core.model import Status
    from wftop.tui.format import counts_line, status_counts, status_label

    root, prefix, env = unreadable
    (row,) = as_json(root, prefix, env, "ls", "--json", "--no-cache")
    from wftop.core.remote.rows import run_of
    from wftop.core.row import RunRow

    run = run_of(RunRow.from_json(row))
    assert run.status is Status.UNREADABLE
    assert status_label(run.shown_status) == "? unreadable"
    counts = status_counts([run])
    assert counts["dead"] == 0 and counts["unreadable"] == 1
    assert counts_line(counts).endswith("0 failed · 1 unreadable")
