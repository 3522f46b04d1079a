"""What the TUI has imported when every run is known, started as the command starts it
(`wftop.tui.start.make_app`, the shared engine): not the resume guard or launcher (a plan's
key), the fetch of a remote run's files (a remote run opened), psutil (the process table,
read when a run is), what reads a run's journal, snapshot, failures and spend (its engine
reads them; a view reads rows), what reads the supervisor's marks where it has no state
file (no run was ever marked), the resume store's locks and records (the marks and the
notifications keep their files as the store does, without it), the run model (a row's
status and its words are `wftop.core.status`'s), or the error signatures and the process
registry (a row's cause and owner's liveness are `wftop.core.read.verdicts`'s), none of
which drawing the list needs.
Looked at as the store applies the change that says every run is known: before anything the
list's first frame starts (the run screen readied a second later imports the readers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.corpus import copy_tree
from tests.tui.test_start_early import started

LATER = (
    "wftop.core.resume.guard",
    "wftop.core.resume.launcher",
    "wftop.core.remote.fetch",
    "wftop.core.remote.rows",
    "psutil",
    "wftop.core.cost.runs",
    "wftop.core.read.failures",
    "wftop.core.read.journal",
    "wftop.core.read.snapshot",
    "wftop.core.supervise.state",
    "wftop.core.supervise.audit",
    "wftop.core.supervise.decide",
    "wftop.core.resume.lock",
    "wftop.core.resume.records",
    "wftop.core.model",
    "wftop.core.read.errors",
    "wftop.core.read.sessions",
)

LISTED = rf"""
import asyncio, json, sys

from wftop.core.config import Config
from wftop.tui.start import make_app

app = make_app([sys.argv[1]], config=Config(bell=False, notify=False, default_root=False))
apply, found = app.store.apply, []


def applied():
    change = apply()
    if not found and app.store.progress.loaded and app.store.rows:
        found.append([name for name in {LATER!r} if name in sys.modules])
    return change


app.store.apply = applied


async def main():
    async with app.run_test(size=(100, 30)):
        while not found:
            await asyncio.sleep(0.005)
        print(json.dumps(found[0]))


asyncio.run(main())
"""


@pytest.mark.usefixtures("short_state_dir")  # the engine's socket fits sun_path
def test_the_list_is_drawn_without_what_only_a_later_key_needs(tmp_path: Path) -> None:
    assert started(LISTED, copy_tree("killed", tmp_path)) == []
