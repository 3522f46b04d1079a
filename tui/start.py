"""`make_app`: the wftop App over some roots, the factory the command line and the tests share."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from wftop.core.config import Config
from wftop.tui.collector import StartPause

if TYPE_CHECKING:  # imported for types alone: the engine starts before them
    from wftop.core.engine.channel import Connector
    from wftop.core.notify.notifier import Notifier
    from wftop.core.remote.link import RemoteHub
    from wftop.core.resume.policy import ResumePolicy
    from wftop.core.resume.rehearse import Rehearse
    from wftop.core.system.procs import ProcessTable
    from wftop.tui.app import WftopApp


def make_app(
    roots: list[str],
    *,
    config: Config | None = None,
    processes: ProcessTable | None = None,
    now: Callable[[], float] = time.time,
    live: bool = True,
    read_only: bool = False,
    rehearse: Rehearse | None = None,
    banner: tuple[str, str] | None = None,
    read_only_reason: str = "",
    remote: RemoteHub | None = None,
    connector: Connector | None = None,
    policy: Callable[[], ResumePolicy] | None = None,
    notifier: Notifier | None = None,
) -> WftopApp:
    """The wftop App over ``roots``: a view of the engine for these roots.

    The engine is the one shared by every view of this user (started on demand), unless a
    ``connector`` says otherwise; with a fake ``processes`` table or a fixed clock ``now``
    (tests), the engine runs in this process with them
    (`wftop.core.engine.inprocess.InProcessConnector`), following the disk while ``live``.
    ``rehearse`` is what the resume plan rehearses with (the command line's, as the TUI
    cannot import the mock); None: it shows the estimate only. ``banner``,
    ``read_only_reason``, ``policy`` and ``notifier``: see `WftopApp`. An app of the
    shared engine (or a pipe's) starts with the cyclic collector paused
    (`wftop.tui.collector.StartPause`).
    """
    config = config or Config()
    if connector is None and (processes is not None or now is not time.time or not live):
        from wftop.core.engine.inprocess import InProcessConnector

        connector = InProcessConnector(
            roots, processes=processes, now=now, stall_window=config.stall_window, follow=live
        )
    pause = None
    if connector is None:
        pause = StartPause()  # from before the app's imports until every run is drawn
        connector = engine_started(roots, config)
    from wftop.tui.app import WftopApp  # Textual: the engine starts meanwhile

    return WftopApp(
        roots,
        config=config,
        connector=connector,
        processes=processes,
        now=now,
        live=live,
        read_only=read_only,
        rehearse=rehearse,
        banner=banner,
        read_only_reason=read_only_reason,
        remote=remote,
        policy=policy,
        notifier=notifier,
        pause=pause,
    )


def engine_started(roots: list[str], config: Config) -> Connector:
    """The connector to the engine for ``roots``, its engine started first where a shared
    one is to be started (`wftop.core.engine.early.started_early`): before the app imports
    the engine's stream, its rows or Textual, so that the engine's start (its imports, rows
    cache and walk) overlaps the app's own on a second CPU. A view of its own engine over
    pipes starts it when it connects."""
    from wftop.core.engine.early import started_early

    early = started_early(roots, config.stall_window)
    from wftop.core.engine.link import connector_for  # the stream and its rows: meanwhile

    return connector_for(roots, config.stall_window, early=early)
