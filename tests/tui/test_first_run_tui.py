"""A first run that leads somewhere: an empty root's list says where wftop looked and what to
try, whole, at 60 columns as at 100."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from tests.tui_kit import build, settle
from wftop.core.system.procs import FakeProcessTable


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
