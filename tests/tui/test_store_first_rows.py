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


def test_new_runs_are_held_at_once_as_a_run_at_a_time_would_hold_them(monkeypatch: Any):
    """A store hands the new runs of an application to NeedyRuns at once (a first read:
    1,000 rows a batch), those before a changed run first: what needs a look, and in what
    order, is what putting each run in turn holds."""
    import random

    base, now, window = only_row("killed"), 1_000_000.0, 10_000.0
    failed = only_row("mid-failure").failed_calls
    assert failed
    chosen = random.Random(7)
    statuses = [Status.DEAD, Status.STALLED, Status.COMPLETED, Status.FAILED, Status.DEAD]

    def run(number: int) -> RunRow:
        idle = chosen.choice([None, 5.0, 60.0, 5000.0, 9000.0, 20_000.0, float(number)])
        return replace(
            base,
            run_id=f"wf_{number:08x}-000",
            status=chosen.choice(statuses),
            failed_calls=chosen.choice([(), (), failed]),
            last_activity=None if idle is None else now - idle,
        )

    batches = [[run(number) for number in range(start, start + 300)] for start in (0, 300)]
    later = [run(number) for number in range(600, 700)]
    again = [replace(row, status=chosen.choice(statuses)) for row in batches[0][::7]]
    mixed = [*later[:50], *again, *later[50:]]
    puts: list[str] = []
    put = NeedyRuns.put
    monkeypatch.setattr(
        NeedyRuns, "put", lambda self, ident, row: (puts.append(ident), put(self, ident, row))
    )
    store = Store(App(), lambda _apply: None, settle=lambda: None, give_back=lambda: None)
    for batch in batches:
        store.take(batch)
        store.apply()
    assert puts == []  # no run put one at a time
    store.take(mixed, [row.ident for row in batches[1][::5]])
    store.apply()
    monkeypatch.setattr(NeedyRuns, "put", put)
    one_at_a_time, held = NeedyRuns(), {}
    for batch in [*batches, mixed]:
        for row in batch:
            if held.get(row.ident) != row:
                held[row.ident] = row
                one_at_a_time.put(row.ident, row)
    for row in batches[1][::5]:
        one_at_a_time.drop(row.ident)
    expected = one_at_a_time.within(now, window)
    assert len(expected) > 100
    assert store.needing(now, window) == expected
    assert len(store._needy) == len(one_at_a_time)
