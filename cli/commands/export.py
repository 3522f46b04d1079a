"""``wftop export``: salvage a run when a resume cannot help.

One document with every completed call's result (from the journal) and the last
assistant text of each call that died, redacted before it is printed.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from wftop.cli.options import EXIT_OK, EXIT_USAGE, add_run_id, roots_or_exit
from wftop.cli.output import fail, print_json
from wftop.core.forensics.masking import NOTE, redaction_json
from wftop.core.forensics.salvage import RunNotFound, find_run, salvage, to_markdown
from wftop.core.text.redact import Redactor, redact_tree


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "export", help="salvage a run: completed results and the last words of calls that died"
    )
    add_run_id(parser)
    parser.add_argument("--format", choices=["md", "json"], default="md", help="default: md")
    parser.set_defaults(command="export")


def run(args: argparse.Namespace) -> int:
    roots = roots_or_exit(args)
    if roots is None:
        return EXIT_USAGE
    try:
        folder, others = find_run(args.run_id, roots)
    except RunNotFound as error:
        fail(str(error))
        return EXIT_USAGE
    found = salvage(folder, others)
    redactor = Redactor.for_json() if args.format == "json" else Redactor()  # JSON: real paths
    if args.format == "json":
        data = redact_tree(found.to_json(), redactor)
        data["redaction"] = redaction_json(redactor)
        print_json(data)
    else:
        sys.stdout.write(to_markdown(found, redactor))
        masked = redactor.summary() or "nothing masked"
        sys.stdout.write(f"\n---\nRedaction: {masked} ({NOTE}).\n")
    for problem in found.problems:
        fail(redactor(str(problem)))
    return EXIT_OK
