"""The run and agent screens on a call whose result is nested 100,000 levels: the call reads
returned, its row shows the start of the value, and the agent's StructuredOutput is the
value's compact text under a note saying it is too deep to lay out."""

from __future__ import annotations

from tests.deep_kit import A4_AGENT, DEEP, RUN_ID, SECRET, deep_tree
from tests.tui.test_tui_snapshots import viewer_ready
from tests.tui_kit import SIZE, build, ident_of, settle, table
from wftop.core.system.procs import FakeProcessTable
from wftop.core.text.redact import Redactor
from wftop.tui.navigator import run_folder
from wftop.tui.screens.agent import AgentScreen
from wftop.tui.screens.run import RunScreen
from wftop.tui.widgets.call_table import CallTable

NOTE = f"nested {DEEP:,} levels deep: too deep to lay out, shown as compact JSON"


async def test_the_run_and_agent_screens_show_a_deep_result(tmp_path, tui_home):
    app = build(deep_tree(tmp_path), FakeProcessTable({}))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table(app).move_to_key(ident_of(app, RUN_ID))
        assert table(app).cell_text(ident_of(app, RUN_ID), "parity").startswith("5/4")
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, RunScreen)
        calls = screen.query_one(CallTable)
        for _ in range(2000):
            if calls.row_count > 5:  # the calls and their phases, made in a worker
                break
            await pilot.pause(0.01)
        rows = {calls.cell_text(key, "label").strip(): key for key in calls.item_keys}
        assert calls.cell_text(rows["a4"], "state").endswith("done")
        assert calls.cell_text(rows["a4"], "preview").startswith("[[[[")
        assert calls.cell_text(rows["a5"], "state").endswith("dead")

        row = app.store.rows[ident_of(app, RUN_ID)]
        agent = AgentScreen(app.services, row, A4_AGENT, "a4", run_folder(row))
        await app.push_screen(agent)
        await viewer_ready(pilot, agent)
        shown = [agent.view.text(row).plain for row in range(agent.view.count)]
        (structured,) = [text for text in shown if "StructuredOutput" in text]
        assert "(nested 100,000 levels deep" in structured
        line = agent.index.read_rows(1, 1)[0]
        detail = agent.render_detail(line, Redactor(), app.services.palette)
        assert detail.plain.splitlines()[1] == f"({NOTE})"
        assert "[[[[" in detail.plain and SECRET not in detail.plain
