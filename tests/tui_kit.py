"""Helpers shared by the pilot tests of the wftop app: build it, let it load, read its table.

The app is built as the command line builds it (`wftop.tui.start.make_app`); with the tests'
fake process table and fixed clock its engine runs in the test's process, on the app's loop
(`wftop.core.engine.inprocess`), and reads the tree as an engine process would.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from textual import on
from textual.app import App
from textual.screen import Screen

from tests.conftest import TUI_NOW
from wftop.core.config import Config
from wftop.core.model import Status
from wftop.core.row import RunRow
from wftop.tui.app import WftopApp, machine_policy
from wftop.tui.messages import Navigate
from wftop.tui.navigator import Navigator
from wftop.tui.screens.runs import RunsScreen
from wftop.tui.services import Services
from wftop.tui.start import make_app
from wftop.tui.store import FRAME, Store
from wftop.tui.widgets.run_table import RunTable
from wftop.tui.work import Working

SIZE = (100, 30)


def build(root: Path | list[Path], processes, **kwargs) -> WftopApp:  # type: ignore[no-untyped-def]
    config = kwargs.pop("config", Config(bell=False))
    live = kwargs.pop("live", False)
    now = kwargs.pop("now", lambda: TUI_NOW)
    roots = [str(path) for path in (root if isinstance(root, list) else [root])]
    kwargs.setdefault("policy", offline_policy(processes, now, config))
    return make_app(roots, config=config, processes=processes, now=now, live=live, **kwargs)


def offline_policy(processes, now, config):  # type: ignore[no-untyped-def]
    """The machine's resume policy, but it asks no ``claude`` its version (no binary runs in
    a pilot test)."""
    return partial(machine_policy, processes, now, config, version_of=lambda _binary: None)


SETTLE_SECONDS = 60.0
"""How long `settle` waits for every run before it fails (a loaded machine's slowest load of a
test's tree takes seconds)."""


async def settle(  # type: ignore[no-untyped-def]
    pilot, wait: float = SETTLE_SECONDS, clock: Callable[[], float] = time.monotonic
) -> None:
    """Until the app holds every run (and has drawn them); fails, saying what it waited for
    and what the app held, when that takes more than ``wait`` seconds of ``clock``."""
    app = pilot.app
    deadline = clock() + wait
    while not app.store.progress.known:
        if clock() >= deadline:
            raise AssertionError(
                f"settle: the app never held every run (store.progress.known) in {wait:g} s;"
                f" it held {held(app)}"
            )
        await pilot.pause(0.01)
    await pilot.pause(0.05)
    await pilot.pause()


def held(app: App[Any]) -> str:
    """What an app holds, said for a test that waited in vain: its store's rows and progress
    (applied and told), the engine link's trouble, roots missing, the screen, workers that
    failed or are still at work."""
    store = app.store  # type: ignore[attr-defined]
    said = [
        f"{len(store.rows)} rows",
        f"progress {store.progress} (told {store.told})",
        f"{store.applied} applications",
        f"engine link {store.engine or 'up'}",
        f"roots missing {list(store.missing)}",
        f"screen {type(app.screen).__name__}",
    ]
    for worker in app.workers:
        if worker.error is not None:
            said.append(f"worker {worker.name!r} failed: {worker.error!r}")
        elif not worker.is_finished:
            said.append(f"worker {worker.name!r} ({worker.group}) {worker.state.name.lower()}")
    return "; ".join(said)


FOLLOWING = frozenset({"engine", "remote"})
"""Worker groups that follow a stream for as long as the app runs (never finished)."""


async def finished(app: WftopApp) -> None:
    """Until every worker of the app and its screens has ended, but those that follow the
    engine and the hosts."""
    while pending := [
        worker for worker in app.workers if worker.group not in FOLLOWING and not worker.is_finished
    ]:
        await asyncio.gather(*(worker.wait() for worker in pending), return_exceptions=True)


async def drawn(app: App[Any]) -> None:
    """Until the screen has been drawn again, and what was asked to be done after that
    (``call_after_refresh``) before this was asked is done."""
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    app.screen.call_after_refresh(lambda: done.done() or done.set_result(None))
    await done


async def until(pilot, check, what: str = "it", wait: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + wait
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await pilot.pause(0.02)


def table(app: WftopApp) -> RunTable:
    return app.screen.query_one(RunTable)


def rows(app: WftopApp) -> dict[str, RunRow]:
    return app.store.rows


def ident_of(app: WftopApp, run_id: str, status: Status | None = None) -> str:
    return next(
        row.ident
        for row in app.store.rows.values()
        if row.run_id == run_id and (status is None or row.status is status)
    )


def changed(app: WftopApp, *fresh: RunRow) -> None:
    """Hand the store new rows of runs, as the engine would, and apply them now (as the
    next frame would)."""
    app.store.take(fresh)
    app.store.apply()


def removed(app: WftopApp, *idents: str) -> None:
    """The runs went, as the engine would say, applied now."""
    app.store.take((), idents)
    app.store.apply()


def services_for(roots: list[str], processes: Any = None, now: Any = None) -> Services:
    """The services a screen is given, over ``roots``, for a screen tested on its own."""
    from wftop.core.index.details import Details
    from wftop.core.system.procs import FakeProcessTable
    from wftop.tui.styles import Palette

    processes = processes if processes is not None else FakeProcessTable()
    now = now or (lambda: TUI_NOW)
    config = Config(bell=False)
    return Services(
        clock=now,
        palette=Palette(),
        config=config,
        roots=tuple(roots),
        processes=processes,
        details=Details(processes=processes, now=now, stall_window=config.stall_window),
        policy=offline_policy(processes, now, config),
        live=False,
    )


class ScreenHost(Working, App[None]):
    """A bare app showing one screen, with the app's navigator (``asked``: every `Navigate`
    message that reached it, in order; those of ``kept`` types are only recorded)."""

    def __init__(self, make: Callable[[Services], Screen[Any]], services: Services, kept=()):  # type: ignore[no-untyped-def]
        super().__init__()
        self.make = make
        self.services = services
        self.store = Store(self, lambda apply: self.set_timer(FRAME, apply))
        self.navigator = Navigator(self, self.store, services)
        self.kept = tuple(kept)
        self.asked: list[Navigate] = []

    def on_mount(self) -> None:
        self.push_screen(self.make(self.services))

    @on(Navigate)
    def navigate(self, message: Navigate) -> None:
        message.stop()
        self.asked.append(message)
        if not isinstance(message, self.kept):
            self.navigator.go(message)


def runs_host(services: Services | None = None) -> ScreenHost:
    """A bare app showing the runs screen over its store."""
    host = ScreenHost(lambda made: RunsScreen(host.store, made), services or services_for([]))
    return host
