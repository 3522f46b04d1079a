"""A watch helper goes when its engine goes, however it goes: its stdin closed before or while
it sets its watches up (seconds over 20,000 runs, each watch one of the user's), the process
that started it killed with SIGKILL while its stdin is held open elsewhere, or the index
stopped while it waits for the helper to be ready. A helper that went on held its watches for
nothing, and a few such could leave none for the next index."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap

import psutil
import pytest

from tests.corpus import copy_tree
from tests.leftovers_kit import children_naming
from wftop.core.index import watcher as watching
from wftop.core.index.live import LiveIndex
from wftop.core.index.watcher_inotify import LOOK_EVERY, Inotify, Unwanted, command

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux's")
WAIT = 20.0
"""Upper bound of every wait here (seconds); each normally takes a fraction of one."""


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def until_gone(pid: int) -> None:
    try:
        psutil.Process(pid).wait(WAIT)
    except psutil.NoSuchProcess:
        return
    except psutil.TimeoutExpired:
        assert gone(pid), f"the helper {pid} is still there {WAIT:g} s later"


@linux_only
def test_a_helper_whose_stdin_closed_before_it_began_sets_no_watch_up(tmp_path):
    read, write = os.pipe()
    os.close(write)  # its engine went before the helper began
    try:
        done = subprocess.run(
            [*command(), "20", "5", str(tmp_path)], stdin=read, capture_output=True, timeout=WAIT
        )
    finally:
        os.close(read)
    assert (done.returncode, done.stdout) == (0, b"")


@linux_only
def test_a_helper_told_to_go_while_setting_its_watches_up_stops_there(tmp_path):
    for number in range(3 * LOOK_EVERY):
        (tmp_path / f"session-{number}").mkdir()
    inotify = Inotify()
    looks: list[int] = []

    def unwanted() -> bool:
        looks.append(len(list(inotify.folders.items())))
        return len(looks) > 1  # the engine went after the first look

    inotify.unwanted = unwanted
    try:
        with pytest.raises(Unwanted):
            inotify.watch(os.fsencode(tmp_path))
        assert len(list(inotify.folders.items())) < 2 * LOOK_EVERY
    finally:
        os.close(inotify.fd)


STARTER = textwrap.dedent(
    """
    import subprocess, sys
    helper = subprocess.Popen(sys.argv[2:], stdin=int(sys.argv[1]), pass_fds=[int(sys.argv[1])],
                              stdout=subprocess.PIPE)
    assert helper.stdout.readline() == b"ready\\n"
    print(helper.pid, flush=True)
    sys.stdin.read()
    """
)
"""An engine as far as its helper knows: it starts the helper on a stdin it is handed (whose
other end the test holds open, as a process the engine forked would), says the helper's pid
once it is ready, and waits to be killed."""


@linux_only
def test_a_helper_ends_when_the_process_that_started_it_is_killed(tmp_path):
    read, write = os.pipe()
    argv = [sys.executable, "-c", STARTER, str(read), *command(), "20", "5", str(tmp_path)]
    starter = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, pass_fds=[read], text=True
    )
    os.close(read)
    helper = 0
    try:
        assert starter.stdout is not None
        helper = int(starter.stdout.readline())
        starter.kill()
        starter.wait(WAIT)
        until_gone(helper)
    finally:
        os.close(write)
        starter.kill()
        starter.wait(WAIT)
        if helper and not gone(helper):
            psutil.Process(helper).kill()


SLOW = [sys.executable, "-c", "import sys; sys.stdin.read()"]
"""A helper still setting its watches up: it never says ``ready``, and goes when its stdin
closes (as the inotify helper now does while it sets them up)."""


async def test_an_index_stopped_while_its_watch_is_set_up_ends_it_at_once(tmp_path, monkeypatch):
    monkeypatch.setattr(watching, "helper_commands", lambda: [SLOW])
    root = copy_tree("killed", tmp_path)
    index = LiveIndex([str(root)], sweep_interval=3600.0)
    stop = asyncio.Event()
    changes = index.changes(stop)
    try:
        await asyncio.wait_for(anext(changes), WAIT)  # the cold start
        following = asyncio.ensure_future(anext(changes))  # the watch is set up
        while not (helpers := children_naming(tmp_path)):
            await asyncio.sleep(0.01)
        stop.set()
        with pytest.raises(StopAsyncIteration):
            await asyncio.wait_for(following, WAIT)
        for helper, _argv in helpers:
            assert gone(helper.pid)
    finally:
        await changes.aclose()  # type: ignore[attr-defined]
