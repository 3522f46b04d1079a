"""``wftop scan``: after a crash, what died in a session, why, and what to do about it.

Every field is built as JSON first, passed whole through the redactor, and only
then printed or turned into text, so nothing reaches the terminal unmasked.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from wftop.cli.options import (
    DIR_VALUES,
    EXIT_OK,
    EXIT_USAGE,
    FILE_VALUES,
    completes,
    roots_or_exit,
    whole_number,
)
from wftop.cli.output import fail, print_json
from wftop.core.forensics.limits import CWD_CHARS, MAX_LISTED_SESSIONS, RECENT_SESSIONS
from wftop.core.forensics.masking import redaction_json, redaction_line
from wftop.core.forensics.report import build_report, root_of
from wftop.core.forensics.sessionlist import (
    SessionFile,
    SessionNotFound,
    find_session,
    list_sessions,
    pick_session,
)
from wftop.core.forensics.summary import listed_twice, owners, recent_rows, report_text
from wftop.core.read.errors import cause_words
from wftop.core.read.roots import resolve_roots
from wftop.core.read.sessions import Liveness, Owner
from wftop.core.system.procs import default_table
from wftop.core.text.cuts import cut_start
from wftop.core.text.gate import gate, gate_each
from wftop.core.text.redact import Redactor, redact_tree


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "scan", help="what died in a session, why it stopped, and what can be recovered"
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--previous",
        action="store_true",
        help="the session before the newest one of the directory (after a crash)",
    )
    session = which.add_argument(
        "--session", metavar="PATH", help="a session transcript, folder or id"
    )
    completes(session, FILE_VALUES)
    which.add_argument(
        "--list-sessions", action="store_true", help="recent sessions with dead workers and cause"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    cwd = parser.add_argument(
        "--cwd", metavar="DIR", help="the directory whose sessions to pick (default: here)"
    )
    completes(cwd, DIR_VALUES)
    parser.add_argument(
        "--limit",
        type=whole_number(1, MAX_LISTED_SESSIONS),
        default=RECENT_SESSIONS,
        metavar="N",
        help=f"sessions listed by --list-sessions (default {RECENT_SESSIONS})",
    )
    parser.set_defaults(command="scan")


def sessions_table(rows: list[dict[str, Any]]) -> str:
    """The recent sessions; the root first when one session is listed under two roots (which
    copy is which). The CWD is cut at its start, as it is shown: its end names the project."""
    twice = listed_twice(rows)
    width = max([len("ROOT"), *(len(gate(row["root"])) for row in rows)]) if twice else 0
    lead = f"{'ROOT':<{width}} " if twice else ""
    lines = [f"{lead}{'LAST WRITE':<20} {'SESSION':<10} {'DEAD':>4}/{'ALL':<4} {'CAUSE':<22} CWD"]
    for row in rows:
        when = (row["last_write"] or "-")[:19].replace("T", " ")
        cwd = row["cwd"] or row["project"]
        root = f"{gate(row['root']):<{width}} " if twice else ""
        lines.append(
            f"{root}{when:<20} {row['session_id'][:8]:<10} {row['dead']:>4}/{row['launched']:<4} "
            f"{cause_words(row['cause']):<22} {cut_start(gate(cwd), CWD_CHARS)}"
        )
    return gate_each(lines)


def choose(args: argparse.Namespace, roots: list[str]) -> str:
    """The transcript to examine, from the flags; raises `SessionNotFound`."""
    sessions, _ = list_sessions(roots)
    if args.session:
        found = find_session(sessions, args.session)
        return found.path if isinstance(found, SessionFile) else found
    cwd = os.path.abspath(args.cwd or os.getcwd())
    return pick_session(sessions, cwd, previous=args.previous, roots=roots).path


def run(args: argparse.Namespace) -> int:
    direct = bool(args.session) and (os.sep in args.session or args.session.endswith(".jsonl"))
    if direct:
        extra = resolve_roots(args.root, include_default=not args.no_default_root)
        roots: list[str] | None = [root for root in extra if os.path.isdir(root)]
    else:
        roots = roots_or_exit(args)
    if roots is None:
        return EXIT_USAGE
    redactor = Redactor.for_json() if args.json else Redactor()  # JSON keeps the real paths
    if args.list_sessions:
        rows = redact_tree(recent_rows(roots, args.limit), redactor)
        if args.json:
            print_json({"sessions": rows, "redaction": redaction_json(redactor)})
        else:
            print(sessions_table(rows))
            print(redaction_line(redactor))
        return EXIT_OK
    try:
        transcript = choose(args, roots)
    except SessionNotFound as error:
        fail(redactor(str(error)))
        return EXIT_USAGE
    processes = default_table()
    session_id = os.path.basename(transcript)[: -len(".jsonl")]
    owner_roots = list(dict.fromkeys([*roots, root_of(transcript)]))
    owner = owners(owner_roots, processes).get(session_id, Owner(Liveness.ABSENT))
    report = build_report(transcript, owner=owner, processes=processes)
    data = redact_tree(report.to_json(), redactor)
    if args.json:
        data["redaction"] = redaction_json(redactor)
        print_json(data)
    else:
        print(report_text(data))
        print(redaction_line(redactor))
    return EXIT_OK
