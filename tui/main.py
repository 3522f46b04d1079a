"""``wftop`` without a command: read the config, pick the roots, build and run the app.

`make_app` is the factory the command line and the tests share.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from core.discovery import RootError, check_root, resolve_roots
from core.procs import ProcessTable
from tui.config import Config, ConfigError, load_config

EXIT_USAGE = 2


def make_app(
    roots: list[str],
    *,
    config: Config | None = None,
    processes: ProcessTable | None = None,
    now: Callable[[], float] = time.time,
    live: bool = True,
    read_only: bool = False,
    poll_interval: float | None = None,
):  # type: ignore[no-untyped-def]
    """The wftop App over ``roots``, with the live index (or its polling stand-in).

    The newest runs start being read in a thread before Textual is imported, so
    the first screen has rows as soon as it is up.
    """
    from concurrent.futures import ThreadPoolExecutor

    from tui.source import open_index, preview_runs

    config = config or Config()
    index = open_index(
        roots,
        processes=processes,
        now=now,
        stall_window=config.stall_window,
        poll_interval=poll_interval or config.poll_interval,
    )
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="wftop-preview")
    preview = pool.submit(preview_runs, index)
    pool.shutdown(wait=False)
    from tui.app import WftopApp

    return WftopApp(index, config=config, now=now, live=live, read_only=read_only, preview=preview)


def pick_roots(args: argparse.Namespace, config: Config) -> list[str]:
    """Config roots and ``--root`` dirs, plus the default root unless switched off.

    Raises:
        RootError: an explicitly named root cannot be read.
    """
    extra = list(config.roots) + list(args.root)
    include_default = config.default_root and not args.no_default_root
    explicit = resolve_roots(extra, include_default=False)
    usable = []
    for root in resolve_roots(extra, include_default=include_default):
        try:
            check_root(root)
        except RootError:
            if root in explicit or not explicit:
                raise
            continue
        usable.append(root)
    return usable


def run_tui(args: argparse.Namespace) -> int:
    try:
        config = load_config()
        roots = pick_roots(args, config)
    except (ConfigError, RootError) as error:
        print(f"wftop: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.stall_window is not None:
        from dataclasses import replace

        config = replace(config, stall_window=args.stall_window)
    app = make_app(roots, config=config, read_only=args.read_only)
    app.run(mouse=config.mouse and not args.no_mouse)
    return int(app.return_code or 0)
