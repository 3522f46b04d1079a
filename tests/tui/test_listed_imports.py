"""What the TUI has imported when its list is first drawn, started as the command starts it
(`wftop.tui.start.make_app`, the shared engine): not the resume guard or launcher (a plan's
key), the fetch of a remote run's files (a remote run opened) or psutil (the process table,
read when a run is), none of which drawing the list needs."""

from __future__ import annotations

from pathlib import Path

from tests.corpus import copy_tree
from tests.tui.test_start_early import started

LATER = (
    "wftop.core.resume.guard",
    "wftop.core.resume.launcher",
    "wftop.core.remote.fetch",
    "wftop.core.remote.rows",
    "psutil",
)

LISTED = rf"""
import asyncio, json, sys

from wftop.core.config import Config
from wftop.tui.start import make_app

app = make_app([sys.argv[1]], config=Config(bell=False, notify=False, default_root=False))


async def main():
    async with app.run_test(size=(100, 30)):
        while not (app.store.progress.loaded and app.store.rows):
            await asyncio.sleep(0.005)
        print(json.dumps([name for name in {LATER!r} if name in sys.modules]))


asyncio.run(main())
"""


def test_the_list_is_drawn_without_what_only_a_later_key_needs(tmp_path: Path) -> None:
    assert started(LISTED, copy_tree("killed", tmp_path), tmp_path) == []
