"""A view's first rows (5,000 at a cached start) are taken by its feed and its store without
comparing each new run with the nothing held before, and held as needing a look or not by
their shown status alone."""

from __future__ import annotations

from dataclasses import fields, replace
from types import SimpleNamespace
from typing import Any

from textual.app import App

from tests.tui.test_tui_units import only_row
from wftop.core.engine.feed import RowFeed
from wftop.core.model import PARTIAL, Status
from wftop.core.row import RunRow
from wftop.tui.needy import NeedyRuns, needs_a_look
from wftop.tui.store import Store


class Compared(RunRow):
    """A row that counts the times it is compared."""

    __slots__ = ()
    times: list[int] = [0]

    def __eq__(self, other: object) -> bool:
        Compared.times[0] += 1
        return super().__eq__(other)

    __hash__ = RunRow.__hash__


def compared(row: RunRow) -> Compared:
    return Compared(**{item.name: getattr(row, item.name) for item in fields(row) if item.init})


def test_a_run_first_seen_is_taken_without_a_comparison_and_a_changed_one_with_one():
    rows = [compared(only_row(name)) for name in ("killed", "clean", "mid-failure")]
    Compared.times[0] = 0
    feed = RowFeed()
    delta = feed.snapshot(rows, final=True)
    store = Store(App(), lambda _apply: None)
    store.take(rows)
    change = store.apply()
    assert Compared.times[0] == 0
    assert delta is not None and delta.added == tuple(rows) and change.added == tuple(rows)
    again = compared(replace(rows[0], calls=rows[0].calls + 1))
    assert feed.change([again, rows[1]], []).changed == (again,)  # type: ignore[union-attr]
    store.take([again, rows[1]])
    assert store.apply().changed == (again,)
    assert Compared.times[0] == 4  # each run held before, once in the feed and the store


def test_a_run_needs_a_look_by_its_shown_status_alone():
    looked = {"stalled", "dead", PARTIAL}
    for word in [*(status.value for status in Status), PARTIAL, "odd"]:
        assert needs_a_look(SimpleNamespace(shown_status=word)) is (word in looked), word  # type: ignore[arg-type]
    needy, held = NeedyRuns(), 0
    for name in ("killed", "clean", "mid-failure"):
        row: Any = only_row(name)
        needy.put(row.ident, row)
        held += row.shown_status in looked
        assert len(needy) == held
    assert held
