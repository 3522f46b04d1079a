"""A shared engine walks its roots in a forked child once its kept rows are out: its loop
answers a view that connects meanwhile at once (its hello, the kept rows, ``kept``).

The engine runs in a process of its own, as a shared one does: a walk forks only where no
other thread runs, and a test's process may hold threads other tests left."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.core.test_engine import WAIT, until
from tests.corpus import copy_tree
from wftop.cli.main import main
from wftop.core.engine import protocol as wire
from wftop.core.index.rowcache import rows_cache_path
from wftop.core.version import package_version

TOP = Path(__file__).parents[2]

HOLD = 5.0
"""Seconds the walk is held at most, until the test lets it go."""

ENGINE = rf"""
import asyncio, sys, time
from pathlib import Path

from wftop.core.engine.engine import Engine
from wftop.core.engine.serve import SocketServer, bind
from wftop.core.index.rowcache import RowCache
from wftop.core.system.procs import FakeProcessTable

root, cache, socket, go, walked = sys.argv[1:]
walking = Path(walked).with_name("walking")
listed = RowCache.run_names


def held(self, *args):  # the walk, wherever it runs, waits for `go` as it lists a session
    walking.touch()
    until = time.monotonic() + {HOLD!r}
    while not Path(go).exists() and time.monotonic() < until:
        time.sleep(0.01)
    Path(walked).touch()
    return listed(self, *args)


RowCache.run_names = held
engine = Engine([root], processes=FakeProcessTable(), cache=Path(cache))
listener = bind(socket)
print("listening", flush=True)
sys.exit(asyncio.run(SocketServer(engine, 60.0).serve(listener)))
"""


async def read_until_listable(reader: asyncio.StreamReader, seen: list[Any]) -> Any:
    """The messages read until the view may list the runs (``kept``, or the snapshot's final
    rows: returned), each added to ``seen``."""
    while True:
        line = await asyncio.wait_for(reader.readline(), WAIT)
        assert line, "the engine closed before the runs were listable"
        message = wire.decode(line)
        seen.append(message)
        if isinstance(message, wire.Kept) or (isinstance(message, wire.Rows) and message.final):
            return message


async def test_a_view_that_connects_while_the_walk_goes_on_is_answered_before_it_ends(
    tmp_path, short_state_dir
):
    root = copy_tree("killed", tmp_path)
    assert main(["ls", "--json", "--no-default-root", "--root", str(root)]) == 0  # keeps rows
    go, walked = tmp_path / "go", tmp_path / "walked"
    socket = str(short_state_dir / "engine.sock")
    argv = [str(root), str(rows_cache_path()), socket, str(go), str(walked)]
    engine = subprocess.Popen(
        [sys.executable, "-c", ENGINE, *argv],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(TOP)},
        cwd=TOP,
    )
    try:
        assert engine.stdout is not None and engine.stdout.readline() == b"listening\n"
        await until(lambda: (tmp_path / "walking").exists())  # kept rows out, the walk held
        reader, writer = await asyncio.open_unix_connection(socket, limit=wire.MAX_LINE)
        writer.write(wire.ask_line("rows", package_version()))
        seen: list[Any] = []
        listable = await read_until_listable(reader, seen)
        assert not walked.exists()  # hello, the kept rows and kept came during the walk
        assert isinstance(listable, wire.Kept) and isinstance(seen[0], wire.Hello)
        assert any(message.rows for message in seen if isinstance(message, wire.Rows))
        go.touch()
        final = await read_until_listable(reader, seen)
        assert walked.exists() and final.final
        writer.close()
    finally:
        go.touch()
        engine.terminate()
        engine.wait(WAIT)
