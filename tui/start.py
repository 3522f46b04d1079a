"""`make_app`: the wftop App over some roots, the factory the command line and the tests share."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from wftop.core.resume.rehearse import Rehearse
from wftop.core.system.procs import ProcessTable
from wftop.tui.config import Config

if TYPE_CHECKING:
    from wftop.core.remote.link import RemoteHub
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
) -> WftopApp:
    """The wftop App over ``roots``, with the live index.

    The newest runs start being read in a thread before Textual is imported, so
    the first screen has rows as soon as it is up. ``rehearse`` is what the resume plan
    rehearses with (the command line's, as the TUI cannot import the mock); None: it shows
    the estimate only. ``banner`` and ``read_only_reason``: see `WftopApp`.
    """
    from concurrent.futures import ThreadPoolExecutor

    from wftop.tui.source import open_index, preview_runs

    config = config or Config()
    index = open_index(roots, processes=processes, now=now, stall_window=config.stall_window)
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="wftop-preview")
    preview = pool.submit(preview_runs, index)
    pool.shutdown(wait=False)
    from wftop.tui.app import WftopApp

    return WftopApp(
        index,
        config=config,
        now=now,
        live=live,
        read_only=read_only,
        preview=preview,
        rehearse=rehearse,
        banner=banner,
        read_only_reason=read_only_reason,
        remote=remote,
    )
