"""The store: what came in is applied once a frame, rows and progress together."""

from __future__ import annotations

from textual.app import App

from tests.tui.test_tui_units import only_row
from wftop.tui.store import Progress, Store


def test_every_run_is_held_once_the_store_says_the_first_read_ended():
    frames: list[object] = []
    store = Store(App(), frames.append)
    rows = [only_row("killed"), only_row("clean")]
    store.take(rows)
    store.progressed(Progress(2, 2, loaded=True))
    assert len(frames) == 1  # one application asked for, whatever came in
    assert not store.progress.loaded and store.told.loaded and store.rows == {}
    change = store.apply()
    assert store.progress.loaded and sorted(store.rows) == sorted(row.ident for row in rows)
    assert change.progress and len(change.added) == 2
