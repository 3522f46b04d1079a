"""The guard: reasons not to resume a run now.

The real CLI refuses nothing: a second ``--resume`` of a live session starts a second
orchestrator on the same journal, and agents run twice. So wftop refuses, with the
reason, unless the user forces it; identifiers that fail validation are refused
even then.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from wftop.core.compared import compared
from wftop.core.model import Run, Status
from wftop.core.read.sessions import Liveness, processes_resuming
from wftop.core.resume.errors import InvalidIdentifier
from wftop.core.resume.ids import validate_run_id, validate_session_id
from wftop.core.system.procs import ProcessTable

QUIET_SECONDS = 60.0
"""A run whose journal or agent transcripts grew this recently may still be alive."""


@compared
@dataclass(frozen=True, eq=False, repr=False)
class Verdict:
    ok: bool
    reason: str
    """``ok``, or why the resume is refused."""
    forceable: bool = True
    fix: str = ""
    """How to clear the refusal (empty when ``ok``)."""
    risk: str = ""
    """What ``--force`` risks, for a refusal it may override."""

    def allows(self, force: bool) -> bool:
        return self.ok or (force and self.forceable)

    def advice(self) -> list[str]:
        """The lines a refused plan shows under its reason: the fix, and what forcing risks."""
        if self.ok:
            return []
        lines = [f"fix: {self.fix}"] if self.fix else []
        if self.forceable:
            lines.append(f"--force: {self.risk or RISK_DEFAULT}")
        else:
            lines.append("--force cannot override this")
        return lines


OK = Verdict(True, "ok")

NOTHING_TO_RESUME = "completed with no failed calls: nothing to resume"
"""A finished run has nothing a resume could do: refused even with ``--force``."""

RISK_DEFAULT = "resumes anyway; the check that refused is skipped"
RISK_TWICE = (
    "starts a second orchestrator on the same journal if the run is alive: "
    "its agents run (and are paid for) twice"
)


def refuse(reason: str, fix: str, risk: str = "", *, forceable: bool = True) -> Verdict:
    return Verdict(False, reason, forceable, fix, risk)


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
        return refuse(
            str(error),
            "none from wftop: the id read from disk is not one the CLI writes",
            forceable=False,
        )
    if run.journal_missing and not fresh:
        return refuse(
            f"the journal is not on disk ({run.folder.journal}): nothing to resume",
            "none for a resume (the CLI refuses it too: nothing can come from its cache); "
            "R (or --strategy fresh) runs the script again from the start",
            forceable=False,
        )
    if run.unreadable_reason is not None:
        return refuse(
            f"journal unreadable: {run.unreadable_reason}",
            f"make {run.folder.journal} readable by you",
            "the CLI reads the journal too: a resume may run every call again",
        )
    if run.status is Status.SUPERSEDED and not fresh:
        return refuse(
            f"superseded: the run continued in session {run.superseded_by}",
            f"resume the copy in session {run.superseded_by} instead",
            "resumes this older copy: calls its continuation already made run again",
        )
    if run.status is Status.COMPLETED and not run.failed_labels and not fresh:
        return refuse(
            NOTHING_TO_RESUME,
            "nothing to fix; R (or --strategy fresh) runs the script again from the start",
            forceable=False,
        )
    owner = run.owner
    if owner.liveness is Liveness.ALIVE and owner.entry is not None:
        pid = owner.entry.pid
        return refuse(
            f"live owner: pid {pid} still runs session {run.session_id}",
            f"end that Claude Code session (or `kill {pid}`), then plan again",
            RISK_TWICE,
        )
    if owner.liveness is Liveness.UNKNOWN and owner.entry is not None:
        pid = owner.entry.pid
        why = owner.why or "wftop cannot tell whether it is alive"
        return refuse(
            f"owner pid {pid} may still run the session: {why}",
            f"make sure pid {pid} is not Claude Code running session {run.session_id} "
            "(end it if it is), then plan again",
            RISK_TWICE,
        )
    resuming = processes_resuming(run.session_id, processes)
    if resuming:
        return refuse(
            f"process {resuming[0]} is already resuming session {run.session_id}",
            f"let it finish, or stop it (`kill {resuming[0]}`), then plan again",
            RISK_TWICE,
        )
    if run.last_activity is not None and now - run.last_activity < QUIET_SECONDS:
        ago = max(0, int(now - run.last_activity))
        wait = int(QUIET_SECONDS) - ago
        return refuse(
            f"the journal or an agent transcript grew {ago} s ago "
            f"(less than {int(QUIET_SECONDS)} s): the run may still be alive",
            f"wait {wait} s; the plan checks again",
            RISK_TWICE,
        )
    if not script_path:
        return refuse(
            "no script path: the snapshot and the session transcript name none",
            "none from wftop: without its script the run cannot be resumed",
            forceable=False,
        )
    if not os.path.isfile(script_path):
        return refuse(
            f"script not found: {script_path}",
            f"put the run's script back at {script_path} (where the run was started from)",
            forceable=False,
        )
    if not cwd:
        return refuse(
            "the session's working directory is unknown (no transcript record)",
            "none from wftop: the session transcript records no working directory",
            forceable=False,
        )
    if not os.path.isdir(cwd):
        return refuse(
            f"the session's working directory is gone: {cwd}",
            f"recreate {cwd} (the agents' tools run there)",
            forceable=False,
        )
    return OK
