"""The runs list at wide panes: the columns that hold names (NAME, PROJECT, HOST) grow to
their longest cell where there is room, the name first; a narrow pane keeps its columns."""

from __future__ import annotations

import pytest

from tests.tui_kit import build, settle, table
from wftop.core.text.gate import shown
from wftop.tui.widgets.columns import fit
from wftop.tui.widgets.run_table import HOST_COLUMNS, RERUN_COLUMN, RUN_COLUMNS

SHOWN = [*RUN_COLUMNS, RERUN_COLUMN]
"""The columns of the list by default (the re-run tokens shown where there is room)."""


def widths(layout):  # type: ignore[no-untyped-def]
    return {spec.key: width for spec, width in layout}


@pytest.mark.parametrize(
    "wants", [{"name": 8, "project": 25}, {"name": 30, "project": 40}, {"name": 3}]
)
def test_at_60_columns_nothing_changes_whatever_the_names(wants):
    assert fit(SHOWN, 58, wants) == fit(SHOWN, 58)


def test_the_name_is_made_whole_before_the_project_and_a_short_one_gives_room_back():
    short = widths(fit(SHOWN, 98, {"name": 8, "project": 25}))
    assert (short["name"], short["project"]) == (8, 18)  # 4 cells the name did not use
    long = widths(fit(SHOWN, 98, {"name": 30, "project": 25}))
    assert (long["name"], long["project"]) == (12, 14)  # no room: the widths as before
    wide = widths(fit(SHOWN, 198, {"name": 60, "project": 60}))
    assert (wide["name"], wide["project"]) == (60, 60)  # past the name's cap: it is a name


def test_a_host_grows_to_its_name_and_a_narrow_pane_still_keeps_it():
    assert widths(fit(HOST_COLUMNS, 98, {"name": 8, "host": 14, "project": 10}))["host"] == 14
    kept = [spec.key for spec, _ in fit(HOST_COLUMNS, 58, {"name": 8, "host": 30})]
    assert kept == ["status", "name", "host", "parity", "dead"]


async def test_at_200_columns_every_name_and_project_shows_whole(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        runs, rows = table(app), list(app.store.rows.values())
        assert max(len(row.project_name) for row in rows) > 14  # wider than the column was
        for row in rows:
            assert runs.cell_text(row.ident, "project") == shown(row.project_name)
            assert runs.cell_text(row.ident, "name") == shown(row.name or "(unnamed)")


async def test_at_100_columns_a_short_name_leaves_its_room_to_the_project(tui_root, tui_processes):
    app = build(tui_root, tui_processes)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        runs, rows = table(app), list(app.store.rows.values())
        assert {row.name for row in rows} == {"mock-six"}
        for row in rows:
            assert runs.cell_text(row.ident, "name") == "mock-six"
            if row.project_name == "kill-resume/proj":  # 16 cells: cut at 14 before
                assert runs.cell_text(row.ident, "project") == "kill-resume/proj"
        assert "kill-resume/proj" in {row.project_name for row in rows}
        assert "rerun" in runs.visible_columns  # every column still shows


async def test_a_letter_that_lets_every_run_through_measures_none_again(
    tui_root, tui_processes, monkeypatch
):
    """The widest name and project are measured when the rows shown change (20,000 of them
    a few ms): not again for the same rows, nor when a letter typed lets every run through;
    again when a run is marked auto (its name shows it)."""
    from wftop.tui.widgets.run_table import RunTable

    measured: list[int] = []
    real = RunTable.wants

    def wants(self, items, columns):  # type: ignore[no-untyped-def]
        measured.append(len(items))
        return real(self, items, columns)

    monkeypatch.setattr(RunTable, "wants", wants)
    app = build(tui_root, tui_processes)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        runs = table(app)
        measured.clear()
        await pilot.press("slash", *"local")  # every run of this machine's
        await pilot.pause()
        assert len(runs.item_keys) == len(app.store.rows) and measured == []
        first = app.store.rows[runs.item_keys[0]]
        runs.auto = frozenset({(first.run_id, first.root)})
        runs.show([app.store.rows[key] for key in runs.item_keys])
        assert measured == [len(app.store.rows)]
