"""The engine process killed under a running TUI: the TUI says so, starts another, and shows
every run once when the new engine has read them."""

from __future__ import annotations

import os
import signal

from tests.tui_kit import SIZE, settle, table, until
from wftop.core.config import Config
from wftop.tui.start import make_app


async def test_an_engine_killed_with_sigkill_is_said_and_another_shows_every_run_once(
    tui_root, monkeypatch
):
    monkeypatch.setenv("WFTOP_ENGINE", "pipe")  # an engine process of this view's own
    app = make_app([str(tui_root)], config=Config(bell=False), live=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = dict(app.store.rows)
        assert len(before) == 9 and sorted(table(app).item_keys) == sorted(before)
        assert app.link.hello is not None
        first = app.link.hello.pid
        os.kill(first, signal.SIGKILL)
        await until(pilot, lambda: app.engine_lost == 1, "the engine's loss said")
        assert any(toast.title == "Engine lost" for toast in app.toasts)
        header = app.screen.query_one("#runs-header")
        await until(pilot, lambda: "engine lost" in str(header.render()), "the header told")
        await until(
            pilot,
            lambda: app.link.hello is not None and app.link.hello.pid != first,
            "another engine",
        )
        await until(pilot, lambda: not app.store.engine, "the engine back")
        assert any(toast.title == "Engine back" for toast in app.toasts)
        await pilot.pause(0.2)
        keys = table(app).item_keys
        assert sorted(app.store.rows) == sorted(before)  # none lost
        assert sorted(keys) == sorted(before) and len(set(keys)) == len(keys)  # none twice
        for ident, row in before.items():  # the same runs, read again by the new engine
            assert app.store.rows[ident].run_id == row.run_id
