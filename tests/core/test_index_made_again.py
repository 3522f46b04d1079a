"""A root, or its ``projects/``, deleted and made again is followed again: its runs come
back, and lines appended after are counted (by the watch: these indexes never sweep)."""

from __future__ import annotations

import contextlib
import json
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.core.test_index import WAIT, append, follow, rows, started
from tests.corpus import copy_tree, only_journal
from tests.faults_kit import read_lines

TOP = Path(__file__).parents[2]


def delete(root: Path, part: str, tmp_path: Path) -> tuple[Path, Path]:
    """Delete ``root/part`` (the root itself when empty), keeping a copy to make it again
    from, as a restore from a backup does: the same files under a new folder."""
    target = root / part if part else root
    aside = tmp_path / "aside"
    shutil.copytree(target, aside, symlinks=True)
    shutil.rmtree(target)
    return aside, target


@pytest.mark.parametrize("part", ["projects", ""], ids=["projects", "root"])
async def test_a_tree_deleted_and_made_again_is_followed_again(tmp_path, part):
    root = copy_tree("killed", tmp_path)
    async with follow(root) as live:
        (before,) = live.index.runs()
        aside, target = delete(root, part, tmp_path)
        await live.until(lambda: live.index.runs() == [])
        shutil.copytree(aside, target, symlinks=True)
        append(only_journal(root), started("k-after", "after"))
        await live.until(
            lambda: "after" in (rows(live.index.runs()) or [{}])[0].get("in_flight", [])
        )
        assert [run.ident for run in live.index.runs()] == [before.ident]
        await live.settled()


def test_ls_watch_follows_projects_made_again(tmp_path):
    root = copy_tree("killed", tmp_path)
    argv = [sys.executable, "-m", "wftop.cli", "ls", "--watch", "--json"]
    argv += ["--no-default-root", "--root", str(root)]
    process = subprocess.Popen(argv, cwd=TOP, stdout=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=read_lines, args=(process.stdout, lines), daemon=True).start()

    def appended(label: str) -> dict[str, Any]:
        """Append a call labelled ``label`` until a change set says so (the first appends
        may come before the watch is up), and return the run's row."""
        deadline = time.monotonic() + WAIT
        while True:
            append(only_journal(root), started(f"k-{label}-{time.monotonic_ns()}", label))
            with contextlib.suppress(queue.Empty):
                while True:
                    change = json.loads(lines.get(timeout=1.0))
                    for row in change["added"] + change["changed"]:
                        if label in row["in_flight"]:
                            return row
            assert time.monotonic() < deadline, f"{label} never arrived"

    try:
        (first,) = json.loads(lines.get(timeout=WAIT))["added"]
        appended("watched")
        aside, target = delete(root, "projects", tmp_path)
        while True:
            change = json.loads(lines.get(timeout=WAIT))
            if change["removed"]:
                break
        shutil.copytree(aside, target, symlinks=True)
        assert appended("after")["run_id"] == first["run_id"]
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=WAIT)
