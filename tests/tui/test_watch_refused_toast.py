"""A watch the kernel refused under a running TUI: a toast tells it once (the engine then
follows the disk by polling), where other problems the engine meets go to the log alone."""

from __future__ import annotations

import sys

import pytest

from tests.core.test_watch_refused import grant, refusing
from tests.tui_kit import build, until
from wftop.core.engine.inprocess import InProcessConnector
from wftop.core.index import watcher as watching
from wftop.core.system.procs import FakeProcessTable

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux's")


async def test_a_watch_refused_is_a_toast_once(tui_root, tmp_path, monkeypatch):
    grants = grant(tmp_path, 0)  # no inotify watch left at all
    helpers = watching.helper_commands()
    monkeypatch.setattr(watching, "helper_commands", lambda: [refusing(grants), *helpers[1:]])
    engine = InProcessConnector([str(tui_root)], processes=FakeProcessTable())
    app = build(tui_root, FakeProcessTable(), connector=engine)
    async with app.run_test(size=(200, 30)) as pilot:

        def told() -> list[str]:
            return [str(toast.message) for toast in app.toasts if toast.title == "Watch"]

        await until(pilot, lambda: bool(told()), "the toast")
        await pilot.pause(0.3)
        (said,) = told()
        assert said.startswith("cannot watch ") and "no inotify watch left" in said
