"""A first run that leads somewhere: an empty root's list says where wftop looked and what to
try, whole, at 60 columns as at 100."""

from __future__ import annotations

import shutil

import pytest
from rich.text import Text
from textual.widgets import Static

from tests.corpus import tree
from tests.tui_kit import build, settle, table, until
from wftop.core.system.procs import FakeProcessTable
from wftop.tui.widgets.key_bar import KeyBar


@pytest.mark.parametrize("size", [(60, 20), (100, 30)])
async def test_an_empty_root_names_itself_and_offers_the_demo_and_root(tui_home, size):
    root = tui_home / "claude"
    root.mkdir()
    app = build(root, FakeProcessTable())
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        empty = app.screen.query_one("#runs-empty", Static)
        assert empty.display
        said = str(empty.render())
        assert said == (
            "No Workflow runs under ~/claude yet. Claude Code keeps them in projects/ there;"
            " another config dir: wftop --root DIR. To see wftop at work: wftop demo."
        )
        assert empty.region.height >= (4 if size[0] == 60 else 2)


RUN = "wf_c4e8dc39-03f"
"""The run of corpus tree ``killed``."""
FIRST_RUN = (
    "No ~/.claude here: Claude Code has not run on this machine yet. wftop keeps watching;"
    " runs show up here as they come. Another config dir: wftop --root DIR."
    " To see wftop at work: wftop demo."
)


@pytest.mark.parametrize("size", [(60, 20), (100, 30)])
async def test_no_config_dir_says_where_it_looked_and_its_runs_come_without_a_restart(
    tui_home, size
):
    root = tui_home / ".claude"
    app = build(root, FakeProcessTable(), live=True)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        empty = app.screen.query_one("#runs-empty", Static)
        assert empty.display
        assert str(empty.render()) == FIRST_RUN
        box = empty.content_region  # whole: every wrapped line fits above the key bar
        assert len(Text(FIRST_RUN).wrap(app.console, box.width)) <= box.height
        assert empty.region.bottom < app.screen.query_one(KeyBar).region.y + 1
        root.mkdir()  # Claude Code's first run makes its config dir, then its projects
        await until(pilot, lambda: "No Workflow runs under ~/.claude yet" in str(empty.render()))
        shutil.copytree(tree("killed") / "projects", root / "projects", symlinks=True)
        await until(pilot, lambda: app.store.rows, "the run of the new config dir")
        await until(pilot, lambda: not empty.display, "the list")
        assert [row.run_id for row in app.store.rows.values()] == [RUN]
        assert table(app).item_keys == [next(iter(app.store.rows))]
