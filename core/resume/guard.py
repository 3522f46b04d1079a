"""The guard: reasons not to resume a run now.

The real CLI refuses nothing: a second ``--resume`` of a live session starts a second
orchestrator on the same journal, and agents run twice. So wftop refuses, with the
reason, unless the user forces it; identifiers that fail validation are refused
even then.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from wftop.core.model import Run, Status
from wftop.core.procs import ProcessTable
from wftop.core.resume.errors import InvalidIdentifier
from wftop.core.resume.ids import validate_run_id, validate_session_id
from wftop.core.sessions import Liveness, processes_resuming

QUIET_SECONDS = 60.0
"""A run whose journal or agent transcripts grew this recently may still be alive."""


@dataclass(frozen=True)
class Verdict:
    ok: bool
    reason: str
    """``ok``, or why the resume is refused."""
    forceable: bool = True

    def allows(self, force: bool) -> bool:
        return self.ok or (force and self.forceable)


OK = Verdict(True, "ok")


def check(
    run: Run,
    *,
    processes: ProcessTable,
    now: float,
    script_path: str | None,
    cwd: str | None,
    fresh: bool = False,
) -> Verdict:
    """The first reason that refuses the resume, or `OK`.

    A fresh relaunch (a new run of the same script) may follow a completed or a
    superseded run; everything else applies to it too.
    """
    try:
        validate_session_id(run.session_id)
        validate_run_id(run.run_id)
    except InvalidIdentifier as error:
        return Verdict(False, str(error), forceable=False)
    journal_problems = [p for p in run.problems if p.path == run.folder.journal and p.line == 0]
    if journal_problems:
        return Verdict(False, f"journal unreadable: {journal_problems[0]}")
    if run.status is Status.SUPERSEDED and not fresh:
        return Verdict(False, f"superseded: the run continued in session {run.superseded_by}")
    if run.status is Status.COMPLETED and not run.failed_labels and not fresh:
        return Verdict(False, "completed with no failed calls: nothing to resume")
    owner = run.owner
    if owner.liveness is Liveness.ALIVE and owner.entry is not None:
        return Verdict(
            False, f"live owner: pid {owner.entry.pid} still runs session {run.session_id}"
        )
    if owner.liveness is Liveness.UNKNOWN and owner.entry is not None:
        why = owner.why or "wftop cannot tell whether it is alive"
        return Verdict(False, f"owner pid {owner.entry.pid} may still run the session: {why}")
    resuming = processes_resuming(run.session_id, processes)
    if resuming:
        return Verdict(False, f"process {resuming[0]} is already resuming session {run.session_id}")
    if run.last_activity is not None and now - run.last_activity < QUIET_SECONDS:
        ago = max(0, int(now - run.last_activity))
        return Verdict(
            False,
            f"the journal or an agent transcript grew {ago} s ago "
            f"(less than {int(QUIET_SECONDS)} s): the run may still be alive",
        )
    if not script_path:
        return Verdict(False, "no script path: the snapshot and the session transcript name none")
    if not os.path.isfile(script_path):
        return Verdict(False, f"script not found: {script_path}")
    if not cwd:
        return Verdict(False, "the session's working directory is unknown (no transcript record)")
    if not os.path.isdir(cwd):
        return Verdict(False, f"the session's working directory is gone: {cwd}")
    return OK
