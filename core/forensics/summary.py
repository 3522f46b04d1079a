"""A forensic report and the recent-sessions list as plain text and rows, for every surface.

`recent_rows` is the ``--list-sessions`` listing (and the Sessions screen's rows);
`report_text` renders one report from its (already redacted) JSON form, each line gated
(`wftop.core.text.gate`). Both ``wftop scan`` and the TUI use them, so the two never word a
report differently.
"""

from __future__ import annotations

from typing import Any

from wftop.core.forensics.limits import SUMMARY_CHARS, cut
from wftop.core.forensics.report import SessionReport, build_report
from wftop.core.forensics.sessionlist import SessionFile, list_sessions
from wftop.core.model import iso_utc
from wftop.core.read.errors import cause_words, failure_tag
from wftop.core.read.sessions import Liveness, Owner, local_pid_domain, owners_by_session
from wftop.core.system.procs import ProcessTable, default_table
from wftop.core.text.gate import gate_each


def owners(roots: list[str], processes: ProcessTable) -> dict[str, Owner]:
    return owners_by_session(roots, processes, local_pid_domain())


def session_row(session: SessionFile, report: SessionReport) -> dict[str, Any]:
    """One line of ``--list-sessions`` (and of the Sessions screen)."""
    verdict = report.verdict
    return {
        "session_id": session.session_id,
        "root": session.root,
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


def listed_twice(rows: list[dict[str, Any]]) -> bool:
    """One session is listed under two roots (a list then says each row's root: the
    sessions screen and ``scan --list-sessions`` alike)."""
    ids = [row["session_id"] for row in rows]
    return len(ids) != len(set(ids))


def recent_rows(
    roots: list[str], limit: int, processes: ProcessTable | None = None
) -> list[dict[str, Any]]:
    """The newest sessions under the roots with their dead-worker counts and cause."""
    processes = processes or default_table()
    sessions, _ = list_sessions(roots)
    known = owners(roots, processes)
    rows = []
    for session in sessions[: max(0, limit)]:
        owner = known.get(session.session_id, Owner(Liveness.ABSENT))
        report = build_report(session.path, owner=owner, processes=processes)
        rows.append(session_row(session, report))
    return rows


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
    unreadable = [w for w in data["workers"] if w.get("unreadable_reason")]
    if unreadable:
        lines += ["", "UNREADABLE (launched; its run's journal cannot be read)"]
        for worker in unreadable:
            lines.append(f"  {worker['kind']:<9}{worker['id']}  {worker['unreadable_reason']}")
    reported = [
        w
        for w in data["workers"]
        if w["status"] is not None and not w["succeeded"] and not w.get("unreadable_reason")
    ]
    if reported:
        lines += ["", "REPORTED, NOT SUCCEEDED"]
        for worker in reported:
            summary = cut(worker["summary"] or worker["description"] or "-", SUMMARY_CHARS)
            lines.append(f"  {worker['kind']:<9}{worker['id']}  {worker['status']}: {summary}")
            failed = worker.get("failures") or []
            if failed:
                named = ", ".join(
                    f"{failure_tag(f['label'] or '?', f['kind'])} ({cause_words(f['kind'])})"
                    for f in failed
                )
                lines.append(f"      failed:   {named}")
            threw = worker.get("threw")
            if threw:
                said = (threw["evidence"] or "").split(": ", 1)[-1]
                lines.append(f"      threw:    {cut(said, SUMMARY_CHARS)}")
    term = data["termination"]
    lines += ["", "TERMINATION", f"  cause:     {cause_words(term['cause'])}"]
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
    return gate_each(lines)
