"""Helpers shared by the pilot tests of the wftop app: build it, let it load, read its table."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import TUI_NOW
from wftop.core.model import Status
from wftop.tui.app import WftopApp
from wftop.tui.config import Config
from wftop.tui.start import make_app
from wftop.tui.widgets.run_table import RunTable

SIZE = (100, 30)


def build(root: Path | list[Path], processes, **kwargs) -> WftopApp:  # type: ignore[no-untyped-def]
    config = kwargs.pop("config", Config(bell=False))
    live = kwargs.pop("live", False)
    roots = [str(path) for path in (root if isinstance(root, list) else [root])]
    app = make_app(
        roots, config=config, processes=processes, now=lambda: TUI_NOW, live=live, **kwargs
    )
    return offline(app)


def offline(app: WftopApp) -> WftopApp:
    """The app's resume plan asks no ``claude`` its version (no binary runs in a pilot test)."""
    from functools import partial

    from wftop.tui.screens.plan import machine_policy

    app.resume_policy = partial(machine_policy, app, version_of=lambda _binary: None)
    return app


async def settle(pilot) -> None:  # type: ignore[no-untyped-def]
    for _ in range(2000):
        if pilot.app.loaded:
            break
        await pilot.pause(0.01)
    await pilot.pause()


async def until(pilot, condition, tries: int = 1000) -> None:  # type: ignore[no-untyped-def]
    """Let the app run until ``condition()`` holds (10 ms a try)."""
    for _ in range(tries):
        if condition():
            return
        await pilot.pause(0.01)
    raise AssertionError("not reached")


def table(app: WftopApp) -> RunTable:
    return app.screen.query_one(RunTable)


def ident_of(app: WftopApp, run_id: str, status: Status | None = None) -> str:
    return next(
        run.ident
        for run in app.runs.values()
        if run.run_id == run_id and (status is None or run.status is status)
    )
