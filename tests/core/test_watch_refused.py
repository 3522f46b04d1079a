"""A watch the kernel refuses is never silent: the helper says so on its stream (while it sets
its watches up, or for a folder made since), the index is told once, in words for the user,
and follows the disk by polling instead, so a root made again with no inotify watch left is
still followed. The refusal is injected: the helper runs with an ``inotify_add_watch`` that
grants a given number of watches, then fails with ENOSPC as the kernel does at
``fs.inotify.max_user_watches``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.core.test_engine import View, running, until
from tests.core.test_index import Follower, append, started
from tests.corpus import copy_tree, only_journal
from tests.leftovers_kit import children_naming
from wftop.core.engine import protocol as wire
from wftop.core.index import watcher as watching
from wftop.core.index import watcher_inotify

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux's")
WAIT = 20.0

REFUSING = textwrap.dedent(
    """
    import ctypes, errno, importlib.util, sys
    spec = importlib.util.spec_from_file_location("helper", sys.argv[1])
    helper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helper)
    with open(sys.argv[2], "r+") as grants:  # this helper's grant; the next ones get none
        left = [int(grants.read() or 0)]
        grants.seek(0), grants.truncate(), grants.write("0")

    class Refusing(helper.Inotify):
        def __init__(self):
            super().__init__()
            add = self._add

            def limited(fd, path, mask):
                if left[0] <= 0:
                    ctypes.set_errno(errno.ENOSPC)
                    return -1
                left[0] -= 1
                return add(fd, path, mask)

            self._add = limited

    helper.Inotify = Refusing
    raise SystemExit(helper.serve(sys.argv[3:]))
    """
)
"""The inotify helper, its watches granted by a file: ``-c REFUSING HELPER GRANTS ARGS...``."""


def pollers(folder: Path) -> list[list[str]]:
    """The command lines of this process's polling helpers of what is below ``folder`` (this
    test's: not an earlier test's, nor one ended and not yet reaped)."""
    return [argv for _child, argv in children_naming(folder) if watching.POLL in argv]


def refusing(grants: Path) -> list[str]:
    return [sys.executable, "-I", "-S", "-c", REFUSING, watcher_inotify.__file__, str(grants)]


def grant(tmp_path: Path, watches: int) -> Path:
    grants = tmp_path / "grants"
    grants.write_text(str(watches))
    return grants


def test_a_folder_refused_while_setting_up_is_said_and_the_others_watched(tmp_path):
    tree = tmp_path / "tree"
    (tree / "a" / "b").mkdir(parents=True)
    argv = [*refusing(grant(tmp_path, 2)), "20", "5", str(tree)]
    helper = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert helper.stdout is not None
        line = helper.stdout.readline()
        assert helper.stdout.readline() == b"ready\n"
        (tree / "a" / "written").write_text("x")
        assert json.loads(helper.stdout.readline()) == [str(tree / "a" / "written")]
    finally:
        helper.kill()
        helper.wait(WAIT)
    said = json.loads(line)
    assert said == {"refused": "ENOSPC", "path": str(tree / "a" / "b"),
                    "deep": [str(tree / "a" / "b")], "shallow": []}  # fmt: skip
    assert "no inotify watch left" in (watching.refusal_of(line) or "")


def test_a_folder_made_since_that_the_kernel_will_not_watch_is_said(tmp_path):
    tree = tmp_path / "tree"
    (tree / "a").mkdir(parents=True)
    argv = [*refusing(grant(tmp_path, 2)), "20", "5", str(tree)]
    helper = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert helper.stdout is not None
        assert helper.stdout.readline() == b"ready\n"
        (tree / "a" / "made").mkdir()
        said = json.loads(helper.stdout.readline())
        made = str(tree / "a" / "made")
        assert said == {"refused": "ENOSPC", "path": made, "deep": [made], "shallow": []}
        assert made in json.loads(helper.stdout.readline())
    finally:
        helper.kill()
        helper.wait(WAIT)


async def test_only_the_folders_refused_are_polled_and_the_others_watched(tmp_path, monkeypatch):
    """Two watches granted over a tree of two folders: the tree's and one of them, the other
    refused; a second helper polls that one alone, and a file written in either is seen."""
    tree = tmp_path / "tree"
    for name in ("a", "b"):
        (tree / name).mkdir(parents=True)
    grants = grant(tmp_path, 2)
    helpers = watching.helper_commands()
    monkeypatch.setattr(watching, "helper_commands", lambda: [refusing(grants), *helpers[1:]])
    watcher = watching.Watcher(20, 5)
    try:
        assert await watcher.ensure((str(tree),))
        (refused,), shallow = watcher.polled
        assert shallow == [] and refused in (str(tree / "a"), str(tree / "b"))
        assert watcher.polls and not watcher.polling  # a new watch would use inotify again
        assert "no inotify watch left" in (watcher.take_refusal() or "")
        assert [argv[-2:] for argv in pollers(tree)] == [[refused, "--shallow"]]
        for name in ("a", "b"):  # the folder watched, and the one polled
            written = str(tree / name / "written")
            Path(written).write_text("x")
            seen: set[str] = set()
            while written not in seen:
                seen |= await watcher.next_paths(asyncio.Event(), WAIT)
    finally:
        await watcher.close()


class Told(Follower):
    """A follower whose index tells what the user is told."""

    told: list[str]

    async def _follow(self) -> None:
        self.told = []
        async with contextlib.aclosing(self.index.changes(self.stop, self.told.append)) as stream:
            async for change in stream:
                self.sets.append(change)
                self.held.update((run.ident, run) for run in (*change.added, *change.changed))
                for ident in change.removed:
                    self.held.pop(ident, None)


async def test_projects_made_again_with_no_watch_left_is_told_once_and_polled(
    tmp_path, monkeypatch
):
    grants = grant(tmp_path, 10_000)  # the first watch is set up whole, the next refused
    helpers = watching.helper_commands()
    monkeypatch.setattr(watching, "helper_commands", lambda: [refusing(grants), *helpers[1:]])
    root = copy_tree("killed", tmp_path)
    follower = Told(root, lambda: 1e10)
    try:
        await follower.watching()
        (before,) = follower.runs()
        aside = tmp_path / "aside"
        shutil.copytree(root / "projects", aside, symlinks=True)
        shutil.rmtree(root / "projects")
        await follower.until(lambda: follower.runs() == [])
        shutil.copytree(aside, root / "projects", symlinks=True)
        await follower.until(lambda: [run.ident for run in follower.runs()] == [before.ident])
        append(only_journal(root), started("k-after", "after"))
        await follower.until(lambda: "after" in str(follower.runs()[0].fold))
        (said,) = follower.told
        assert "no inotify watch left" in said and "polling" in said
        assert pollers(root)
    finally:
        await follower.close()
    await asyncio.sleep(0)


async def test_an_engine_tells_every_view_once_that_its_watch_polls(tmp_path, monkeypatch):
    grants = grant(tmp_path, 0)  # no watch left at all
    helpers = watching.helper_commands()
    monkeypatch.setattr(watching, "helper_commands", lambda: [refusing(grants), *helpers[1:]])
    root = copy_tree("killed", tmp_path)
    early = View()
    async with running([root]) as engine:
        engine.subscribe(early)
        await until(lambda: engine.following and bool(early.of(wire.ProblemSeen)))
        append(only_journal(root), started("k-polled", "polled"))
        await until(lambda: "polled" in str(early.feed.rows))  # followed all the same
        late = View()
        engine.subscribe(late)
        for view in (early, late):
            (told,) = view.of(wire.ProblemSeen)
            assert told.notice and not told.fatal
            assert told.text.startswith(f"cannot watch {root}")
            assert "no inotify watch left" in told.text
