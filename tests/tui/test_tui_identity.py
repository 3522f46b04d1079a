"""One identity per run: the same run under two roots is two rows, in the TUI as in ``ls``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import TUI_NOW
from tests.tui_kit import SIZE, build, settle, table
from wftop.tui.format import display_path


def _two_roots(tui_root: Path) -> tuple[Path, Path]:
    """``tui_root`` and a backup of it (the same corpus copy, times kept)."""
    backup = tui_root.parent / "claude-backup"
    shutil.copytree(tui_root, backup, symlinks=True)
    return tui_root, backup


def _ls_json(*roots: Path) -> list[dict[str, object]]:
    argv = [sys.executable, "-m", "wftop.cli", "ls", "--json", "--no-default-root", "--no-cache"]
    for root in roots:
        argv += ["--root", str(root)]
    env = {**os.environ, "WFTOP_NOW": str(TUI_NOW)}
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    rows: list[dict[str, object]] = json.loads(done.stdout)
    return rows


async def test_the_tui_and_ls_count_a_run_under_two_roots_alike(tui_root, tui_processes):
    first, backup = _two_roots(tui_root)
    rows = _ls_json(first, backup)
    assert len(rows) == 18
    app = build([first, backup], tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert len(app.store.rows) == len(rows)
        assert len(table(app).item_keys) == len(rows)
        roots = {run.root for run in app.store.rows.values()}
        assert roots == {str(first), str(backup)}
        shown = [
            (app.store.rows[key].root, app.store.rows[key].run_id) for key in table(app).item_keys
        ]
        assert shown == [(row["root"], row["run_id"]) for row in rows]  # in the same order


async def test_the_selection_stays_on_the_run_of_its_root(tui_root, tui_processes):
    first, backup = _two_roots(tui_root)
    app = build([first, backup], tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        keys = table(app).item_keys
        twins = [key for key in keys if app.store.rows[key].run_id == "wf_cd4c7489-d27"]
        assert len(twins) == 2
        in_backup = next(key for key in twins if app.store.rows[key].root == str(backup))
        table(app).move_to_key(in_backup)
        await pilot.press("enter")
        assert app.screen.ident == in_backup  # type: ignore[attr-defined]
        assert app.screen.run.folder.root == str(backup)  # type: ignore[attr-defined]
        shown = str(app.screen.query_one("#run-summary").render())
        assert f"root     {display_path(str(backup))}" in shown


async def test_with_one_root_the_run_screen_does_not_name_it(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        assert "root " not in str(app.screen.query_one("#run-summary").render())
