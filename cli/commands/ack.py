"""``wftop ack``: mark runs seen, so that they leave the status line and the title.

``wftop ack RUN…`` marks those runs (by run id, or by the ident ``<session>/<runId>@<root>``)
and ``wftop ack --all`` every run that needs you now (as ``wftop status`` counts them). A run
is marked in the state it is in (`wftop.core.notify.acks`): when it changes (resumed, dead
again) it needs you again. The marks live in the state dir, shared with every TUI.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from wftop.cli.options import EXIT_OK, EXIT_USAGE
from wftop.cli.output import fail
from wftop.core.notify.acks import Acks, needs_you
from wftop.core.text.gate import shown


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "ack", help="mark runs seen: they leave the status line until they change again"
    )
    parser.add_argument(
        "run_id", metavar="RUN_ID", nargs="*", help="run ids (or idents) to mark seen"
    )
    parser.add_argument(
        "--all", action="store_true", help="mark every run that needs you now (as status counts)"
    )
    parser.set_defaults(command="ack")


def run(args: argparse.Namespace) -> int:
    from wftop.cli.commands.status import read_runs
    from wftop.core.resume.store import state_dir

    if bool(args.run_id) == bool(args.all):
        fail("ack: name runs (RUN_ID …) or pass --all, not both")
        return EXIT_USAGE
    now = time.time()
    found = read_runs(args, now)
    if found is None:
        return EXIT_USAGE
    config, roots, _counts, runs = found
    if args.all:
        chosen = [
            run
            for run in runs
            if needs_you(run.shown, run.last_activity, now, config.attention_window)
        ]
    else:
        named = set(args.run_id)
        chosen = [run for run in runs if run.run_id in named or run.ident in named]
        missing = named - {run.run_id for run in chosen} - {run.ident for run in chosen}
        if missing:
            first = sorted(missing)[0]
            fail(f"no run {first} under {', '.join(roots)}")
            return EXIT_USAGE
    book = Acks(state_dir())
    try:
        fresh = book.ack(chosen, now)
    except OSError as error:
        fail(f"cannot write the state dir ({error})")
        return EXIT_USAGE
    if args.all and not chosen:
        print("nothing needs you")
        return EXIT_OK
    for item in chosen:
        print(f"{shown(item.run_id)}: seen ({item.shown})")
    if fresh != len(chosen):
        print(f"{len(chosen) - fresh} of them had been marked seen already")
    return EXIT_OK
