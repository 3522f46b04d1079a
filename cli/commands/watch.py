"""``wftop watch [--notify] [--json]``: what happens to runs, as it happens, with no TUI.

It follows the engine serving the roots (`wftop.core.engine`: the shared one, started if
none runs) and prints one line per event worth telling (`wftop.core.notify.events`: a run
died, stalled, ended partial or failed, a resume ended), ``--json`` one JSON object per
line. ``--notify`` also sends each event on the channels (``WFTOP_NOTIFY``, the config's
``[notifications]``, else what the environment offers), once across every wftop process of
the user and not again within the cooldown. Runs already dead when it started are never
told. SIGINT or SIGTERM ends it (exit 0). It runs well as a service: docs/commands.md
shows a systemd user unit and a launchd agent.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import time
from typing import TYPE_CHECKING, Any

from wftop.cli.options import EXIT_OK, EXIT_USAGE, config_or_exit, roots_or_exit
from wftop.cli.output import fail

if TYPE_CHECKING:
    from wftop.core.notify.events import Event
    from wftop.core.notify.notifier import Notifier

PREFIX = "wftop watch"


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "watch", help="print what happens to runs as it happens (--notify: and tell you)"
    )
    parser.add_argument(
        "--notify",
        action="store_true",
        help="also send each event on the notification channels (WFTOP_NOTIFY, the config)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per event")
    parser.set_defaults(command="watch")


def terminal_writer() -> Any:
    """Writes bytes to this process's terminal (``/dev/tty``); None without one (a service)."""
    try:
        fd = os.open("/dev/tty", os.O_WRONLY | os.O_NOCTTY)
    except OSError:
        return None

    def write(data: bytes) -> None:
        os.write(fd, data)

    return write


def event_line(event: Event, as_json: bool) -> bytes:
    """One event as printed: ``<time> <title>: <text>``, or its JSON object."""
    from wftop.core.model import iso_utc
    from wftop.core.notify.payload import clean
    from wftop.core.text.jsonout import dumps_masked

    if as_json:
        return dumps_masked(event.to_json()) + b"\n"
    return f"{iso_utc(event.at)} {clean(event.title)}: {clean(event.text)}\n".encode()


def failure_line(text: str, at: float) -> bytes:
    """An engine that failed and stopped reading, as ``--json`` prints it: shaped as an
    event (``event``: ``engine_failed``), its text naming the engine's log."""
    from wftop.core.model import iso_utc
    from wftop.core.text.jsonout import dumps_masked

    payload = {
        "event": "engine_failed",
        "title": "Engine failed",
        "text": text,
        "severity": "error",
        "at": iso_utc(at),
    }
    return dumps_masked(payload) + b"\n"


def run(args: argparse.Namespace) -> int:
    from wftop.core.notify.settings import SettingsError
    from wftop.core.notify.setup import make_notifier
    from wftop.core.resume.store import state_dir

    config = config_or_exit()
    roots = roots_or_exit(args) if config is not None else None
    if config is None or roots is None:
        return EXIT_USAGE
    notifier: Notifier | None = None
    if args.notify:
        try:
            made = make_notifier(
                config.notifications,
                env=os.environ,
                write=terminal_writer(),
                state=None if args.read_only else state_dir(),
                report=lambda line: fail(line, prefix=PREFIX),
                bell=config.bell,
            )
        except SettingsError as error:
            fail(str(error))
            return EXIT_USAGE
        notifier = made.notifier
        for note in made.notes:
            fail(note, prefix=PREFIX)
        names = ", ".join(notifier.names) or "no channel"
        fail(f"notifying on {names}", prefix=PREFIX)
    stall = config.stall_window if args.stall_window is None else args.stall_window
    cache = not (getattr(args, "no_cache", False) or args.read_only)
    try:
        return asyncio.run(_watch(roots, stall, cache, args.json, notifier))
    finally:
        if notifier is not None:
            notifier.close()


async def _watch(
    roots: list[str], stall: float, cache: bool, as_json: bool, notifier: Notifier | None
) -> int:
    from wftop.core.engine.link import open_link
    from wftop.core.notify.watch import RowEvents, follow

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(number, stop.set)

    def tell(event: Event) -> None:
        write_line(event_line(event, as_json))
        if notifier is not None:
            notifier.submit(event)

    def failed(text: str) -> None:
        if as_json:
            write_line(failure_line(text, time.time()))

    def write_line(data: bytes) -> None:
        try:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        except BrokenPipeError:
            stop.set()

    link = open_link(roots, stall, cache=cache)
    updates = link.updates()
    try:
        await follow(
            updates,
            RowEvents(time.time()),
            clock=time.time,
            tell=tell,
            say=lambda line: fail(line, prefix=PREFIX),
            stop=stop,
            failed=failed,
        )
    finally:
        await link.close()
        await updates.aclose()
    return EXIT_OK
