"""``wftop scan``: after a crash, what died in a session, why, and what to do about it.

Every field is built as JSON first, passed whole through the redactor, and only
then printed or turned into text, so nothing reaches the terminal unmasked.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import orjson

from core.discovery import resolve_roots
from core.forensics.index import (
    SessionFile,
    SessionNotFound,
    find_session,
    list_sessions,
    pick_session,
)
from core.forensics.limits import RECENT_SESSIONS, SUMMARY_CHARS, cut
from core.forensics.masking import redaction_json, redaction_line
from core.forensics.report import SessionReport, build_report, root_of
from core.model import iso_utc
from core.procs import ProcessTable, ProcFs
from core.redact import Redactor, redact_tree
from core.sessions import Liveness, Owner, local_pid_domain, owners_by_session

EXIT_OK, EXIT_USAGE = 0, 2


def add_parser(subparsers: Any) -> None:
    from tui.cli import add_root_option

    parser = subparsers.add_parser(
        "scan", help="what died in a session, why it stopped, and what can be recovered"
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--previous",
        action="store_true",
        help="the session before the newest one of the directory (after a crash)",
    )
    which.add_argument("--session", metavar="PATH", help="a session transcript, folder or id")
    which.add_argument(
        "--list-sessions", action="store_true", help="recent sessions with dead workers and cause"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "--cwd", metavar="DIR", help="the directory whose sessions to pick (default: here)"
    )
    parser.add_argument(
        "--limit",
        type=int,
        default=RECENT_SESSIONS,
        metavar="N",
        help=f"sessions listed by --list-sessions (default {RECENT_SESSIONS})",
    )
    add_root_option(parser)
    parser.set_defaults(command="scan")


def owners(roots: list[str], processes: ProcessTable) -> dict[str, Owner]:
    return owners_by_session(roots, processes, local_pid_domain())


def session_row(session: SessionFile, report: SessionReport) -> dict[str, Any]:
    """One line of ``--list-sessions`` (and of the Sessions screen)."""
    verdict = report.verdict
    return {
        "session_id": session.session_id,
        "transcript": session.path,
        "project": session.project,
        "cwd": report.cwd,
        "last_write": iso_utc(session.mtime),
        "owner": report.owner.liveness.value,
        "launched": len(report.workers),
        "dead": len(report.dead),
        "cause": verdict.cause.value,
        "evidence": verdict.evidence,
    }


def recent_rows(
    roots: list[str], limit: int, processes: ProcessTable | None = None
) -> list[dict[str, Any]]:
    """The newest sessions under the roots with their dead-worker counts and cause."""
    processes = processes or ProcFs()
    sessions, _ = list_sessions(roots)
    known = owners(roots, processes)
    rows = []
    for session in sessions[: max(0, limit)]:
        owner = known.get(session.session_id, Owner(Liveness.ABSENT))
        report = build_report(session.path, owner=owner, processes=processes)
        rows.append(session_row(session, report))
    return rows


def _print_json(payload: Any) -> None:
    sys.stdout.buffer.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n")


def sessions_table(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'LAST WRITE':<20} {'SESSION':<10} {'DEAD':>4}/{'ALL':<4} {'CAUSE':<22} CWD"]
    for row in rows:
        when = (row["last_write"] or "-")[:19].replace("T", " ")
        cwd = row["cwd"] or row["project"]
        lines.append(
            f"{when:<20} {row['session_id'][:8]:<10} {row['dead']:>4}/{row['launched']:<4} "
            f"{row['cause']:<22} {cut(cwd, 60)}"
        )
    return "\n".join(lines)


def worker_text(worker: dict[str, Any]) -> list[str]:
    where = worker["output"] or "-"
    place = "durable" if worker["output_durable"] else "temp, a reboot deletes it"
    if not worker["output_exists"]:
        place += ", missing"
    action = worker["action"]
    if worker["kind"] == "workflow" and worker["run_id"] and action.startswith("re-spawn the"):
        action += f": wftop resume {worker['run_id']}"
    lines = [
        f"  {worker['kind']:<9}{worker['id']}  {cut(worker['description'] or '-', SUMMARY_CHARS)}",
        f"      liveness: {worker['liveness']} ({worker['liveness_reason']})",
        f"      output:   {where} ({place})",
        f"      got:      {worker['digest']} ({worker['digest_detail']})",
        f"      action:   {action}",
    ]
    if worker["prompt"]:
        lines.append(f"      prompt:   {cut(worker['prompt'], SUMMARY_CHARS)} (whole in --json)")
    return lines


def report_text(data: dict[str, Any]) -> str:
    """The report as text, from its (already redacted) JSON form."""
    lines = [
        f"session {data['session_id']}",
        f"  transcript: {data['transcript']}",
        f"  cwd:        {data['cwd'] or '-'}",
        f"  last write: {data['last_write'] or '-'}   owner process: {data['owner']}",
        f"  workers:    {data['launched']} launched in the background, "
        f"{data['reported']} reported back, {len(data['dead_workers'])} never did",
    ]
    if data["dead_workers"]:
        lines += ["", "DEAD WORKERS (launched, never reported back)"]
        for worker in data["dead_workers"]:
            lines += worker_text(worker)
    reported = [w for w in data["workers"] if w["status"] not in (None, "completed")]
    if reported:
        lines += ["", "REPORTED, NOT SUCCEEDED"]
        for worker in reported:
            summary = cut(worker["summary"] or worker["description"] or "-", SUMMARY_CHARS)
            lines.append(f"  {worker['kind']:<9}{worker['id']}  {worker['status']}: {summary}")
    term = data["termination"]
    lines += ["", "TERMINATION", f"  cause:     {term['cause']}"]
    if term["evidence"]:
        origin = " (in a dead worker's transcript)" if term["from_worker"] else ""
        lines.append(f"  evidence:  {term['evidence']}{origin}")
    if term["note"]:
        lines.append(f"  note:      {term['note']}")
    if term["also_seen"]:
        lines.append(f"  also seen: {', '.join(term['also_seen'])}")
    lines.append(f"  clears:    {term['clears']}")
    for problem in data["problems"]:
        lines.append(f"  unreadable: {problem}")
    return "\n".join(lines)


def choose(args: argparse.Namespace, roots: list[str]) -> str:
    """The transcript to examine, from the flags; raises `SessionNotFound`."""
    sessions, _ = list_sessions(roots)
    if args.session:
        found = find_session(sessions, args.session)
        return found.path if isinstance(found, SessionFile) else found
    cwd = os.path.abspath(args.cwd or os.getcwd())
    return pick_session(sessions, cwd, previous=args.previous).path


def run(args: argparse.Namespace) -> int:
    from tui.commands.ls import roots_or_exit

    direct = bool(args.session) and (os.sep in args.session or args.session.endswith(".jsonl"))
    if direct:
        extra = resolve_roots(args.root, include_default=not args.no_default_root)
        roots: list[str] | None = [root for root in extra if os.path.isdir(root)]
    else:
        roots = roots_or_exit(args)
    if roots is None:
        return EXIT_USAGE
    redactor = Redactor()
    if args.list_sessions:
        rows = redact_tree(recent_rows(roots, args.limit), redactor)
        if args.json:
            _print_json({"sessions": rows, "redaction": redaction_json(redactor)})
        else:
            print(sessions_table(rows))
            print(redaction_line(redactor))
        return EXIT_OK
    try:
        transcript = choose(args, roots)
    except SessionNotFound as error:
        print(f"wftop: {redactor(str(error))}", file=sys.stderr)
        return EXIT_USAGE
    processes = ProcFs()
    session_id = os.path.basename(transcript)[: -len(".jsonl")]
    owner_roots = list(dict.fromkeys([*roots, root_of(transcript)]))
    owner = owners(owner_roots, processes).get(session_id, Owner(Liveness.ABSENT))
    report = build_report(transcript, owner=owner, processes=processes)
    data = redact_tree(report.to_json(), redactor)
    if args.json:
        data["redaction"] = redaction_json(redactor)
        _print_json(data)
    else:
        print(report_text(data))
        print(redaction_line(redactor))
    return EXIT_OK
