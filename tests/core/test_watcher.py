"""The watch helper, read on the caller's event loop: changed paths come in batches with no
thread reading them, deep folders report what changes below them, shallow ones only their
own entries, and closing ends the helper; inotify's helper (Linux) and watchfiles' (the
fallback) alike. Folders made or moved below a deep one are followed where they are."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests.leftovers_kit import children_naming
from wftop.core.index import watcher as watching
from wftop.core.index import watcher_inotify
from wftop.core.index.watcher import Watcher
from wftop.core.index.watcher_inotify import IN_Q_OVERFLOW, NO_INOTIFY, Inotify, command

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux's")
HELPERS = [pytest.param(True, marks=linux_only, id="inotify"), pytest.param(False, id="watchfiles")]


@pytest.fixture(params=HELPERS)
def helper(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each helper in turn: inotify's where this platform has it, and the fallback."""
    monkeypatch.setattr(watching, "has_inotify", lambda: request.param)
    yield watching.helper_commands()[0][-1]


WAIT = 20.0


def started_threads(before: set[threading.Thread]) -> list[str]:
    """Threads started since ``before`` (asyncio's wait for a child process excepted: on
    Python 3.11 it waits for each child in a thread of its own)."""
    return [
        thread.name
        for thread in threading.enumerate()
        if thread not in before and not thread.name.startswith("asyncio-waitpid")
    ]


async def changed(watcher: Watcher, want: str) -> set[str]:
    seen: set[str] = set()
    deadline = asyncio.get_running_loop().time() + WAIT
    while want not in seen:
        left = deadline - asyncio.get_running_loop().time()
        assert left > 0, f"{want} never reported: {seen}"
        seen |= await watcher.next_paths(asyncio.Event(), left)
    return seen


async def test_changes_come_in_batches_read_on_the_loop_without_a_thread(tmp_path, helper):
    deep, shallow = tmp_path / "deep", tmp_path / "shallow"
    (deep / "a" / "b").mkdir(parents=True)
    (shallow / "inner").mkdir(parents=True)
    before = set(threading.enumerate())
    watcher = Watcher(20, 5)
    assert await watcher.ensure((str(deep),), (str(shallow),))
    assert not await watcher.ensure((str(deep),), (str(shallow),))  # the same: kept
    ((process, argv),) = children_naming(tmp_path)  # one helper, whatever other child came
    assert helper in argv
    try:
        (deep / "a" / "b" / "journal.jsonl").write_text("{}\n")
        await changed(watcher, str(deep / "a" / "b" / "journal.jsonl"))
        (shallow / "inner" / "below.txt").write_text("not watched\n")
        (shallow / "projects").mkdir()
        seen = await changed(watcher, str(shallow / "projects"))
        assert str(shallow / "inner" / "below.txt") not in seen
        assert started_threads(before) == []
    finally:
        await watcher.close()
    assert not process.is_running() or process.status() == psutil.STATUS_ZOMBIE
    assert watcher.paths == watcher.shallow == ()


@linux_only
async def test_folders_made_or_moved_below_a_deep_one_are_followed_where_they_are(tmp_path):
    # what a folder holds when its watch is up is said too: a journal written at once into
    # a run folder just made (watchfiles' helper said the session alone)
    deep, away = tmp_path / "deep", tmp_path / "away"
    (deep / "old").mkdir(parents=True)
    away.mkdir()
    watcher = Watcher(20, 5)
    assert await watcher.ensure((str(deep),))
    try:
        made = deep / "session" / "subagents" / "workflows" / "wf_1"
        made.mkdir(parents=True)
        (made / "journal.jsonl").write_text("{}\n")
        await changed(watcher, str(made / "journal.jsonl"))
        with (made / "journal.jsonl").open("a") as journal:  # below a folder made since
            journal.write("{}\n")
        await changed(watcher, str(made / "journal.jsonl"))
        (deep / "old").rename(deep / "new")
        (deep / "new" / "inner").mkdir()
        (deep / "new" / "inner" / "file").write_text("x")
        await changed(watcher, str(deep / "new" / "inner" / "file"))
        (deep / "new").rename(away / "gone")
        (away / "gone" / "inner" / "later").write_text("not watched\n")
        (deep / "last").write_text("y")
        seen = await changed(watcher, str(deep / "last"))
        assert not any(path.startswith(str(away)) for path in seen)
    finally:
        await watcher.close()


@linux_only
def test_the_inotify_helper_imports_neither_asyncio_nor_watchfiles(tmp_path):
    # the helper's memory is its watches: an interpreter with asyncio, anyio, watchfiles and
    # the site-packages' finders loaded held more than its tables
    python, *rest = command()
    helper = subprocess.Popen(
        [python, "-X", "importtime", *rest, "20", "5", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert helper.stdout is not None
    assert helper.stdout.readline() == b"ready\n"  # its stdin open until then: it is wanted
    _out, errors = helper.communicate(timeout=WAIT)
    assert helper.returncode == 0
    loaded = {line.rsplit("|", 1)[-1].strip() for line in errors.decode().splitlines()}
    assert "ctypes" in loaded
    assert not loaded & {"asyncio", "watchfiles", "anyio", "orjson", "site"}
    assert not [name for name in loaded if name.startswith("wftop")]


def test_where_inotify_cannot_be_had_its_helper_ends_at_once(tmp_path, monkeypatch):
    def none(*_args: object) -> None:
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(watcher_inotify.Inotify, "__init__", none)
    assert watcher_inotify.serve(["20", "5", str(tmp_path)]) == NO_INOTIFY


async def test_where_a_helper_cannot_start_the_next_serves(tmp_path, monkeypatch):
    ended = [sys.executable, "-c", f"raise SystemExit({NO_INOTIFY})"]
    watchfiles = [sys.executable, "-m", "wftop.core.index.watcher"]
    monkeypatch.setattr(watching, "helper_commands", lambda: [ended, watchfiles])
    (tmp_path / "deep").mkdir()
    watcher = Watcher(20, 5)
    try:
        assert await watcher.ensure((str(tmp_path / "deep"),))
        assert watcher.error is None
        (tmp_path / "deep" / "file").write_text("x")
        await changed(watcher, str(tmp_path / "deep" / "file"))
    finally:
        await watcher.close()


@linux_only
def test_a_folder_tree_takes_one_watch_a_folder_and_lets_go_of_what_went(tmp_path):
    for name in ("a/b/c", "a/d", "e"):
        (tmp_path / name).mkdir(parents=True)
    (tmp_path / "a" / "file").write_text("x")
    inotify = Inotify()
    try:
        inotify.watch(os.fsencode(tmp_path))
        assert sorted(inotify.folders.values()) == sorted(
            os.fsencode(tmp_path / name) for name in ("", "a", "a/b", "a/b/c", "a/d", "e")
        )
        for folder in ("a/b/c", "a/b"):
            (tmp_path / folder).rmdir()
        changed: set[bytes] = set()
        inotify.take(changed)
        assert os.fsencode(tmp_path / "a" / "b") in changed
        assert sorted(inotify.folders.values()) == sorted(
            os.fsencode(tmp_path / name) for name in ("", "a", "a/d", "e")
        )
    finally:
        os.close(inotify.fd)


class Overflowed(Inotify):
    def events(self) -> Iterator[tuple[int, int, bytes]]:
        yield -1, IN_Q_OVERFLOW, b""


@linux_only
def test_a_queue_that_overflowed_says_every_folder_named_changed(tmp_path: Path) -> None:
    inotify = Overflowed()
    try:
        inotify.named = [os.fsencode(tmp_path / "projects"), os.fsencode(tmp_path)]
        changed: set[bytes] = set()
        assert inotify.take(changed) == 1
        assert changed == set(inotify.named)
    finally:
        os.close(inotify.fd)
