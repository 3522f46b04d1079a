"""``python -m wftop.core.engine``: run an engine (views start it; see `wftop.core.engine`).

``--stdio``: serve the one view at the other end of stdin and stdout. ``--socket PATH``:
serve every view that connects to PATH, and go when none has listened for ``--linger``
seconds. The roots, stall window and rows cache are the view's. ``--log PATH``: where a
failure's traceback is appended (the fatal ``problem`` every view is told names it).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from functools import partial
from typing import TYPE_CHECKING

from wftop.core.engine.engine import Engine
from wftop.core.engine.serve import SocketServer, bind, serve_stdio
from wftop.core.index.rowcache import rows_cache_path
from wftop.core.stall import DEFAULT_STALL_WINDOW
from wftop.core.system.statedir import state_dir

if TYPE_CHECKING:
    from wftop.core.cost.spendbook import SpendBook

LINGER = 60.0
"""Seconds a shared engine stays with no view (one started again soon finds it warm)."""
FIRST_VIEW = 5.0
"""Seconds a shared engine waits, its first rows out after kept ones, for the view that
started it to connect before it reads its live index (`Engine`'s ``first_view``)."""


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m wftop.core.engine")
    how = parser.add_mutually_exclusive_group(required=True)
    how.add_argument("--stdio", action="store_true", help="serve one view over stdin/stdout")
    how.add_argument("--socket", metavar="PATH", help="serve every view connecting to PATH")
    parser.add_argument("--root", action="append", default=[], help="a root (repeatable)")
    parser.add_argument("--stall-window", type=float, default=DEFAULT_STALL_WINDOW)
    parser.add_argument("--no-cache", action="store_true", help="neither use nor write it")
    parser.add_argument("--linger", type=float, default=LINGER)
    parser.add_argument("--log", metavar="PATH", help="append a failure's traceback here")
    return parser.parse_args(argv)


def engine_of(args: argparse.Namespace) -> Engine:
    """The engine the command line asks for."""
    return Engine(
        args.root,
        stall_window=args.stall_window,
        cache=None if args.no_cache else rows_cache_path(),
        debounce_ms=int(os.environ.get("WFTOP_WATCH_DEBOUNCE_MS", "15")),
        step_ms=int(os.environ.get("WFTOP_WATCH_STEP_MS", "15")),
        log=args.log,
        spend_book=None if args.no_cache else partial(spend_book_of, args.root),
        first_view=0.0 if args.stdio else FIRST_VIEW,
    )


def spend_book_of(roots: list[str]) -> SpendBook | None:
    """The spend book in the state dir (`wftop.core.cost.spendbook.book_for`), its module
    imported when the engine opens it: once its kept rows are out."""
    from wftop.core.cost.spendbook import book_for

    return book_for(state_dir(), roots)


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    engine = engine_of(args)
    if args.stdio:
        return asyncio.run(serve_stdio(engine))
    try:
        listener = bind(args.socket)
    except OSError as error:
        print(f"wftop engine: {args.socket}: cannot listen ({error.strerror})", file=sys.stderr)
        return 3
    # Whoever started this engine waits for this line; nothing else goes to stdout.
    sys.stdout.write("listening\n")
    sys.stdout.flush()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    inode = os.stat(args.socket).st_ino
    try:
        return asyncio.run(SocketServer(engine, args.linger).serve(listener))
    finally:
        try:
            if os.stat(args.socket).st_ino == inode:
                os.unlink(args.socket)
        except OSError:
            pass


if __name__ == "__main__":
    raise SystemExit(main())
