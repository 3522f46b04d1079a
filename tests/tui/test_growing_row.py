"""A run appending lines, as the runs screen sees it: each change of its row redraws that
row's line, not every line of the table, nor the header when it says the same (counted: the
lines the table draws, the header's updates)."""

from __future__ import annotations

from dataclasses import replace

from textual.widgets import Static

from tests.tui.test_runs_loading import many
from tests.tui_kit import runs_host, until
from wftop.core.model import Status
from wftop.tui.store import Progress
from wftop.tui.widgets.run_table import RunTable


async def test_a_row_that_changed_in_place_redraws_its_line_alone():
    host, runs = runs_host(), many(30)
    async with host.run_test(size=(100, 30)) as pilot:
        store = host.store
        store.take(runs)
        store.progressed(Progress(30, 30, loaded=True))
        store.apply()  # now, not a frame later: a loaded machine's frame comes after a pause
        await until(pilot, lambda: len(host.screen.query_one(RunTable).item_keys) == 30, "30 runs")
        table = host.screen.query_one(RunTable)
        drawn: list[int] = []
        render_line = table.render_line
        table.render_line = lambda y: drawn.append(y) or render_line(y)  # type: ignore[method-assign]
        table.refresh()  # its first paint, whenever the machine comes to it, is this one
        await until(pilot, lambda: bool(drawn), "the table drawn")
        await pilot.pause()
        drawn.clear()
        header = host.screen.query_one("#runs-header", Static)
        said: list[object] = []
        update = header.update
        header.update = lambda *args, **kwargs: said.append(args) or update(*args, **kwargs)  # type: ignore[method-assign]
        for started in (40, 41, 42):
            grown = replace(runs[3], started=started, calls=started)
            store.take([grown])
            store.apply()
            await pilot.pause()
            assert table.item_keys == [run.ident for run in runs]  # it kept its place
            assert drawn == [4]  # the header's line, then runs[0..2]: its own line alone
            assert f"{started}" in table.cell_text(grown.ident, "parity")
            assert said == []  # the same counts, the same cost
            drawn.clear()
        store.take([replace(runs[5], status=Status.COMPLETED)])
        store.apply()
        await pilot.pause()
        assert len(said) == 1 and "1 completed" in str(header.render())
