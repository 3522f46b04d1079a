"""``wftop ls --watch --json``: the engine's runs as change sets, one JSON line each.

The first line is every run (``added``), once the engine has told them all; each later
line is one change set, ``{"seq": n, "added": [...], "changed": [...], "removed": [...]}``,
runs in the ``ls --json`` shape (newest activity first) and removed runs as their idents,
``<session>/<runId>@<root>`` (`wftop.core.read.runfolder.run_ident`). This is the stream a
remote host is read by over ssh, unchanged for whoever reads it.

The runs come from the engine (`wftop.core.engine`): the shared one for these roots,
started if none runs. If it dies, a line on stderr says so, a new one is started, and the
next line says what changed meanwhile (no run lost, none twice). Problems the engine meets
go to stderr too. Each line is flushed as it is written. SIGINT or SIGTERM ends the stream
(exit 0).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import signal
import sys
from collections.abc import Iterable
from typing import Any

from wftop.cli.options import EXIT_OK, EXIT_USAGE
from wftop.cli.output import fail
from wftop.core.engine.feed import Delta
from wftop.core.engine.link import EngineLink, EngineLost, open_link
from wftop.core.engine.protocol import ProblemSeen
from wftop.core.engine.until import until_stopped
from wftop.core.model import DEFAULT_STALL_WINDOW
from wftop.core.row import RunRow
from wftop.core.text.jsonout import dumps
from wftop.core.text.redact import Redactor, redact_value


def stream(args: argparse.Namespace, roots: list[str]) -> int:
    if not args.json:
        fail("--watch streams JSON lines; add --json")
        return EXIT_USAGE
    stall = DEFAULT_STALL_WINDOW if args.stall_window is None else args.stall_window
    cache = not (args.no_cache or getattr(args, "read_only", False))
    return asyncio.run(_follow(open_link(roots, stall, cache=cache)))


async def _follow(link: EngineLink) -> int:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(number, stop.set)
    updates = link.updates()
    seq = 0
    try:
        async for update in until_stopped(updates, stop):
            if isinstance(update, EngineLost):
                fail(f"{update.why}; starting another engine")
            elif isinstance(update, ProblemSeen):
                fail(update.text)
            elif isinstance(update, Delta) and (seq or update.complete):
                if seq == 0:
                    # The index holds a large, long-lived and acyclic heap: keep the cyclic
                    # GC from walking it again and again.
                    gc.freeze()
                    write(line_of(1, link.rows.values(), (), ()))
                    seq = 1
                elif not update.empty:
                    seq += 1
                    write(line_of(seq, update.added, update.changed, update.removed))
    except BrokenPipeError:
        # The reader went away (``| head``): that ends the stream, not an error.
        with contextlib.suppress(OSError):
            sys.stdout = None
    finally:
        await link.close()
        with contextlib.suppress(RuntimeError, StopAsyncIteration):
            await updates.aclose()
    return EXIT_OK


def newest_first(rows: Iterable[RunRow]) -> list[RunRow]:
    """Newest activity first, then run id, session and root (as ``ls`` orders)."""
    return sorted(
        rows, key=lambda row: (-(row.last_activity or 0.0), row.run_id, row.session_id, row.root)
    )


def line_of(
    seq: int, added: Iterable[RunRow], changed: Iterable[RunRow], removed: Iterable[str]
) -> bytes:
    """One change set as a JSON line, secrets in labels and names masked (the paths and
    the idents made of them kept real; a path that is not UTF-8 reads ``\\xNN``, as in
    ``ls --json``)."""
    redactor = Redactor.for_json()
    payload: dict[str, Any] = {
        "seq": seq,
        "added": [redact_value(row.to_json(), redactor) for row in newest_first(added)],
        "changed": [redact_value(row.to_json(), redactor) for row in newest_first(changed)],
        "removed": sorted(removed),
    }
    return dumps(payload) + b"\n"


def write(line: bytes) -> None:
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()
