"""One rule for answers kept between commands (``ls`` rows, ``status`` counts).

An answer is kept under the stamps (inode, size, time) of what it is read from, and only
for a settled run: one that has ended, or that no live owner can move on. Both caches
follow it, so each keeps what the other would, and neither reuses an answer a fresh read
would not give.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import orjson

from tests.corpus import copy_tree, only_journal
from wftop.cli.commands.ls import json_item
from wftop.core.index.coldpass import scan_rows
from wftop.core.index.rowcache import RowCache
from wftop.core.index.statuscount import count_statuses
from wftop.core.system.procs import FakeProcess, FakeProcessTable
from wftop.core.text.redact import Redactor

NOW = 1_800_000_000.0


def listing(
    root: Path, cache: Path, processes: FakeProcessTable
) -> tuple[list[dict[str, Any]], int]:
    """Rows and cache hits of one ``ls --json`` pass."""
    redactor = Redactor()
    rows = RowCache.open([str(root)], cache)
    scan = scan_rows(
        [str(root)],
        lambda run: json_item(run, redactor),
        processes=processes,
        now=lambda: NOW,
        workers=1,
        cache=rows,
    )
    return [orjson.loads(row) for row in scan.rows], rows.hits


def status(root: Path, cache: Path) -> dict[str, int]:
    return dict(count_statuses([str(root)], now=NOW, stall_window=600.0, cache=cache))


def kept_statuses(cache: Path) -> list[str]:
    return sorted(entry[1] for entry in json.loads(cache.read_text())["runs"].values())


def register_alive(root: Path) -> FakeProcessTable:
    (session,) = {path.parent.name for path in root.glob("projects/*/*/subagents")}
    (root / "sessions").mkdir(exist_ok=True)
    record = {"pid": 4242, "sessionId": session, "procStart": "777"}
    (root / "sessions" / "4242.json").write_text(json.dumps(record))
    return FakeProcessTable({4242: FakeProcess("777")})


def test_the_row_of_an_ended_run_with_a_live_owner_is_kept(tmp_path: Path) -> None:
    """An ended run cannot change on its own, live owner or not: its row is read once."""
    root = copy_tree("clean", tmp_path)
    alive = register_alive(root)
    cache = tmp_path / "rows.json"
    first, first_hits = listing(root, cache, alive)
    second, second_hits = listing(root, cache, alive)
    assert [row["owner"] for row in first] == ["alive"]
    assert [row["status"] for row in first] == ["completed"]
    assert first == second and (first_hits, second_hits) == (0, 1)


def test_the_status_of_a_dead_run_with_an_old_snapshot_is_kept(tmp_path: Path) -> None:
    """A run resumed after its snapshot and then left without an owner is dead until its
    files change: its status is kept like an ended run's, and read again when they do."""
    root = copy_tree("clean", tmp_path)
    journal = only_journal(root)
    line = {"type": "started", "key": "k-late", "agentId": "late1", "label": "late"}
    with journal.open("a") as handle:
        handle.write(json.dumps(line) + "\n")
    cache = tmp_path / "status.json"
    assert status(root, cache) == {"dead": 1}
    assert kept_statuses(cache) == ["dead"]
    assert status(root, cache) == {"dead": 1}
    (snapshot,) = root.glob("projects/*/*/workflows/wf_*.json")
    snapshot.unlink()
    assert status(root, cache) == {"dead": 1}


def test_a_snapshot_replaced_with_the_same_size_and_time_is_read_again(tmp_path: Path) -> None:
    """The status key stamps the snapshot's inode too, as the rows key does."""
    root = copy_tree("clean", tmp_path)
    (snapshot,) = root.glob("projects/*/*/workflows/wf_*.json")
    cache = tmp_path / "status.json"
    assert status(root, cache) == {"completed": 1}
    raw = snapshot.read_bytes()
    token = re.search(rb'"status"\s*:\s*"completed"', raw)
    assert token is not None
    failed = token.group().replace(b'"completed"', b'"failed"').ljust(len(token.group()))
    info = snapshot.stat()
    replacement = snapshot.with_name("replacement.tmp")
    replacement.write_bytes(raw[: token.start()] + failed + raw[token.end() :])
    os.utime(replacement, ns=(info.st_atime_ns, info.st_mtime_ns))
    os.replace(replacement, snapshot)
    assert snapshot.stat().st_size == info.st_size
    assert snapshot.stat().st_mtime_ns == info.st_mtime_ns
    assert status(root, cache) == {"failed": 1}
