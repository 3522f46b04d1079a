"""The TUI starts its engine before it imports Textual, the engine's stream and rows, or
anything it needs only later: the engine's start overlaps the TUI's own, and the view
connects to the engine it started."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import copy_tree

TOP = Path(__file__).parents[2]

pytestmark = pytest.mark.usefixtures("short_state_dir")  # the engine's socket fits sun_path

MAKE = r"""
import json, subprocess, sys

started = []
Popen = subprocess.Popen


class Seen(Popen):
    def __init__(self, argv, *args, **kwargs):
        started.append({
            "argv": list(argv),
            "textual": "textual" in sys.modules,
            "rehearsal": "wftop.core.resume.rehearse" in sys.modules,
            "stream": [name for name in ("wftop.core.engine.protocol", "wftop.core.row")
                       if name in sys.modules],
            "metadata": "importlib.metadata" in sys.modules,
            "later": [name for name in ("wftop.core.model", "wftop.core.resume.store", "tomllib")
                      if name in sys.modules],
        })
        super().__init__(argv, *args, **kwargs)


subprocess.Popen = Seen

from wftop.core.config import Config
from wftop.tui.start import make_app

app = make_app([sys.argv[1]], config=Config(bell=False, notify=False, default_root=False))
connector = app.link.connector
started[-1]["pid"] = connector.started.pid if connector.started is not None else None
print(json.dumps(started))
"""


def started(script: str, root: Path) -> Any:
    """What ``script``, a TUI made over ``root`` in a process of its own, printed (JSON)."""
    env = {**os.environ, "PYTHONPATH": str(TOP)}  # the state dir: `short_state_dir`
    env["WFTOP_ENGINE_LINGER"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", script, str(root)],
        capture_output=True,
        text=True,
        env=env,
        cwd=TOP,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_tui_starts_its_engine_before_it_imports_textual_or_the_rehearsal(tmp_path):
    said = started(MAKE, copy_tree("killed", tmp_path))
    (engine,) = [seen for seen in said if "wftop.core.engine" in seen["argv"]]
    try:
        assert engine["textual"] is False
        assert engine["rehearsal"] is False  # a type of make_app's, not needed to start it
        assert engine["stream"] == []  # the engine's stream and its rows: meanwhile
        assert engine["metadata"] is False  # the install's metadata: 20-30 ms, not needed
        # nor the run model, the resume store (for the state dir) or a TOML parser (the
        # settings are given): what the app imports before its engine starts, halved
        assert engine["later"] == []
        assert "--socket" in engine["argv"]
    finally:
        if engine.get("pid"):
            with contextlib.suppress(ProcessLookupError):
                os.kill(engine["pid"], signal.SIGTERM)


PAUSED = r"""
import asyncio, gc, json, sys

passes = []
gc.callbacks.append(lambda phase, info: phase == "start" and passes.append(info["generation"]))

from wftop.core.config import Config
from wftop.tui.start import make_app

passes.clear()  # from here: the app's imports, its engine's rows
app = make_app([sys.argv[1]], config=Config(bell=False, notify=False, default_root=False))


async def main():
    async with app.run_test(size=(100, 30)) as pilot:
        while not (app.store.progress.loaded and app.store.rows):
            await asyncio.sleep(0.005)
        listed = list(passes)
        while not gc.isenabled():
            await asyncio.sleep(0.01)
        print(json.dumps({"listed": listed, "runs": len(app.store.rows),
                          "frozen": gc.get_freeze_count()}))


asyncio.run(main())
"""


def test_the_tui_lists_its_runs_with_the_cyclic_collector_paused(tmp_path):
    # the modules and the rows of a start: many objects, few cycles, that the collector's
    # passes walked again and again while the list waited (a third of the app's CPU at
    # 20,000 runs); collection resumes once every run is drawn, what the start built frozen
    said = started(PAUSED, copy_tree("killed", tmp_path))
    assert said["runs"] and said["listed"] == []  # no pass of the collector until listed
    assert said["frozen"] > 10_000  # what the start built: out of its sight, not walked


CLI = r"""
import json, subprocess, sys

Popen = subprocess.Popen


class Seen(Popen):
    def __init__(self, argv, *args, **kwargs):
        if "wftop.core.engine" in argv:  # what the command line imported by then; no engine
            print(json.dumps(sorted(sys.modules)))
            raise SystemExit(0)
        super().__init__(argv, *args, **kwargs)


subprocess.Popen = Seen

from wftop.cli.main import main

main(["--no-default-root", "--root", sys.argv[1]])
"""


def test_wftop_starts_its_engine_before_it_imports_a_command_textual_or_the_rehearsal(tmp_path):
    # `wftop` alone read its line with every command's parser (their modules: 0.16 s of
    # CPU), checked the default keys with Textual's names and imported the rehearsal, all
    # before the TUI started its engine
    imported = started(CLI, copy_tree("killed", tmp_path))
    assert [
        name
        for name in imported
        if name.startswith(("wftop.cli.commands.", "textual"))
        or name == "wftop.core.resume.rehearse"
    ] == []


def test_wftop_with_no_other_host_starts_its_engine_before_it_imports_the_remote_links(tmp_path):
    # the links to other hosts and their thread pool (18 modules, 16 ms of the 107 ms of CPU
    # the command took to start its engine) were imported to find there were no hosts
    imported = started(CLI, copy_tree("killed", tmp_path))
    assert [
        name
        for name in imported
        if name.startswith(("wftop.cli.remote", "wftop.core.remote", "concurrent.futures"))
    ] == []
