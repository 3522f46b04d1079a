"""The fault table, watch side: the tree changes while wftop follows it.

The watching rows damage a private copy of the ``killed`` tree while the live index
(or ``wftop ls --watch --json``, a real process) follows it, and end with the index
equal to a fresh cold scan. The row that turns reads refused runs wftop without the
capabilities that let root bypass file modes (``setpriv``), so it holds when the suite
runs as root too.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from typing import Any

from tests.core.test_index import append, follow, rows
from tests.corpus import copy_tree, only_journal
from tests.faults_kit import STARTED, TIMEOUT, TOP, read_lines, run_folder, unprivileged


async def test_journal_deleted_mid_read_while_watching(tmp_path):
    root = copy_tree("killed", tmp_path)
    journal = only_journal(root)
    async with follow(root) as live:
        append(journal, STARTED)
        journal.unlink()
        await live.settled()
        append(journal, STARTED)
        await live.settled()
        (run,) = live.index.runs()
        assert run.fold.started_lines == 1


async def test_journal_replaced_between_reads_while_watching(tmp_path):
    root = copy_tree("killed", tmp_path)
    journal = only_journal(root)
    async with follow(root) as live:
        replacement = journal.with_name("journal.new")
        replacement.write_bytes(journal.read_bytes()[: journal.stat().st_size // 2] + STARTED)
        os.replace(replacement, journal)
        await live.settled()


async def test_run_folder_replaced_by_a_symlink_while_watching(tmp_path):
    root = copy_tree("killed", tmp_path)
    source = run_folder(root)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    async with follow(root) as live:
        moved = elsewhere / source.name
        shutil.move(str(source), moved)
        source.symlink_to(moved, target_is_directory=True)
        await live.settled()
        append(moved / "journal.jsonl", STARTED)
        await live.settled()
        (run,) = live.index.runs()
        assert run.fold.started_lines == 6


async def test_run_folder_replaced_by_a_symlink_loop_while_watching(tmp_path):
    root = copy_tree("killed", tmp_path)
    source = run_folder(root)
    async with follow(root) as live:
        shutil.rmtree(source)
        source.symlink_to(source, target_is_directory=True)
        await live.settled()
        assert live.index.runs() == []


def test_permission_changes_while_watching(tmp_path):
    """``ls --watch --json`` goes on when a journal turns unreadable, and catches up after."""
    world = tmp_path / "world"
    world.mkdir()
    world.chmod(0o755)
    root = copy_tree("killed", world)
    journal = only_journal(root)
    argv = [*unprivileged(), sys.executable, "-m", "wftop.cli", "ls", "--watch", "--json"]
    argv += ["--no-default-root", "--root", str(root)]
    process = subprocess.Popen(
        argv, cwd=TOP, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=read_lines, args=(process.stdout, lines), daemon=True).start()

    def next_change() -> dict[str, Any]:
        return json.loads(lines.get(timeout=TIMEOUT))

    def started_until(count: int) -> None:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            change = next_change()
            runs = change["added"] + change["changed"]
            if runs and runs[0]["started"] == count:
                return
        raise AssertionError(f"no change set with {count} started lines")

    try:
        assert next_change()["added"][0]["started"] == 5
        time.sleep(0.5)  # let the watch come up (not an assertion)
        journal.chmod(0)
        append(journal, STARTED)
        session = run_folder(root).parents[2]
        session.chmod(0)
        append(root / "projects" / "x.txt", b"poke\n")
        session.chmod(0o755)
        journal.chmod(0o644)
        append(journal, STARTED)
        started_until(7)
        assert process.poll() is None
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=TIMEOUT)
    assert process.returncode == 0
    assert "Traceback" not in process.stderr.read()  # type: ignore[union-attr]


async def test_sixteen_runs_and_a_fault_storm_end_equal_to_a_cold_scan(tmp_path):
    root = copy_tree("killed", tmp_path)
    source = run_folder(root)
    copies = [source.with_name(f"wf_storm{n:04d}-x") for n in range(16)]
    async with follow(root) as live:
        for number, folder in enumerate(copies):
            shutil.copytree(source, folder)
            kind = number % 4
            if kind == 0:
                os.truncate(folder / "journal.jsonl", 10)
            elif kind == 1:
                append(folder / "journal.jsonl", b"\xff garbage\n", STARTED[:9])
            elif kind == 2:
                (folder / "journal.jsonl").unlink()
            else:
                shutil.rmtree(folder)
        await live.settled()
        assert rows(live.index.runs()) == live.cold_rows()
