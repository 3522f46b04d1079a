"""What the runs list made for one choice of the filters is kept while the runs stay the same:
the runs let through and their sums (`RunListView.chosen`), the widths of the names shown
(`FittedTable._wanted`), so that a filter typed again, or ``esc`` back to every run, costs
what drawing costs."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from textual.app import App, ComposeResult

from tests.tui.test_tui_units import counted_sums, only_row
from wftop.core.row import RunRow
from wftop.tui.format import rows_cost_total
from wftop.tui.runlist import KEPT_MOST, RunListView
from wftop.tui.styles import Palette
from wftop.tui.widgets.run_table import RunTable


def some_rows() -> list[RunRow]:
    rows = [only_row(name) for name in ("killed", "clean", "mid-failure", "resumed")]
    twins = [
        replace(row, run_id=f"{row.run_id}-{at}", name=f"n{at}") for at, row in enumerate(rows)
    ]
    return [*rows, *twins]


def test_a_filter_chosen_again_while_the_runs_stay_tries_no_run_and_sums_nothing(monkeypatch):
    sums = counted_sums(monkeypatch)
    rows = some_rows()
    view = RunListView()
    view.chosen(rows)
    view.status = "dead"
    dead = view.chosen()
    assert dead and len(dead) < len(rows)
    cost = view.cost_total()
    view.status, view.text = None, "mock"
    view.cost_total()
    view.status, view.text = None, ""
    view.cost_total()
    tried, summed = view.passes, len(sums)
    view.status = "dead"
    assert view.chosen() == dead and view.cost_total() == cost
    view.status, view.text = None, "mock"
    assert view.chosen() == [row for row in view.by_activity() if view.matches(row)]
    assert (view.passes, len(sums)) == (tried, summed)
    # a run changed: what was kept for the other filters is made again, and says so
    revived = replace(dead[0], status=rows[1].status, in_flight=())
    view.shift((), [revived], ())
    view.text, view.status = "", "dead"
    assert view.chosen() == [row for row in view.by_activity() if view.matches(row)]
    assert revived.ident not in {row.ident for row in view.chosen()}
    assert view.passes > tried and view.cost_total() == rows_cost_total(view.chosen())
    # and no more than a few are kept
    for at in range(KEPT_MOST + 1):
        view.text = f"word{at}"
        view.chosen()
    view.text = "word0"  # the oldest, let go
    tried = view.passes
    view.chosen()
    assert view.passes == tried + len(rows)


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield RunTable(Palette(), lambda: 0.0)


async def test_the_widths_of_a_list_shown_again_are_not_measured_again(monkeypatch):
    measured: list[int] = []
    real = RunTable.wants

    def wants(self: RunTable, items: list[Any], columns: list[str]) -> dict[str, int]:
        measured.append(len(items))
        return real(self, items, columns)

    monkeypatch.setattr(RunTable, "wants", wants)
    rows = some_rows()
    every, few = list(rows), rows[:3]
    app = Host()
    async with app.run_test(size=(100, 30)):
        runs = app.query_one(RunTable)
        measured.clear()  # laid out with no rows
        runs.show(every)
        runs.show(few)
        runs.show(every)
        runs.show(few)
        assert measured == [len(every), len(few)]
        runs.forget_widths()  # the runs changed: the lists kept hold runs as they were
        runs.show(every)
        assert measured == [len(every), len(few), len(every)]
        assert runs.item_keys == [row.ident for row in every]
