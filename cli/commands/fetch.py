"""``wftop __fetch``: print one file of a run, masked, for a wftop on another machine.

The wftop that browses a run of this host runs it over SSH (`wftop.core.remote.fetch`):
``wftop __fetch --session=S --root=R --file=NAME --max-bytes=N -- RUN``. NAME is the run's
``journal.jsonl`` or one of its ``agent-<id>.jsonl`` and nothing else; the file is read from
the run's own folder (a link is not followed), at most N bytes of it, each line masked.
Exit 0, or `CUT_EXIT` when the file was longer (what was printed is its start), or 2 with
one line saying what was wrong.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import NoReturn

from wftop.cli.options import EXIT_OK, EXIT_USAGE, whole_number
from wftop.cli.output import fail
from wftop.core.read.discovery import run_folders_of
from wftop.core.remote.fetch import (
    CUT_EXIT,
    FETCH,
    MAX_BYTES,
    MAX_FETCH_BYTES,
    file_problem,
    read_masked,
)


class OneLineParser(argparse.ArgumentParser):
    """A parser whose refusal is one line (the wftop that asked shows it as it is)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: {message}\n")


def parser() -> argparse.ArgumentParser:
    made = OneLineParser(prog=f"wftop {FETCH}", add_help=False)
    made.add_argument("--session", required=True)
    made.add_argument("--root", required=True)
    made.add_argument("--file", required=True)
    made.add_argument("--max-bytes", type=whole_number(1, MAX_FETCH_BYTES), default=MAX_BYTES)
    made.add_argument("run_id")
    return made


def fetch(argv: list[str]) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit:
        return EXIT_USAGE
    problem = file_problem(args.file)
    if problem is not None:
        fail(problem, prefix=f"wftop {FETCH}")
        return EXIT_USAGE
    folders, _problems = run_folders_of([args.root])
    found = [
        folder
        for folder in folders
        if folder.session_id == args.session and folder.run_id == args.run_id
    ]
    if not found:
        fail(
            f"no run {args.run_id} of session {args.session} in {args.root}",
            prefix=f"wftop {FETCH}",
        )
        return EXIT_USAGE
    path = os.path.join(found[0].path, args.file)
    try:
        data, cut = read_masked(path, args.max_bytes)
    except OSError as error:
        fail(f"{path}: {error.strerror or error}", prefix=f"wftop {FETCH}")
        return EXIT_USAGE
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    return CUT_EXIT if cut else EXIT_OK
