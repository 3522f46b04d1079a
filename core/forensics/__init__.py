"""After a crash: what died in a session, why, and what can be recovered.

A session launches three kinds of background worker (agents, shells, workflows).
This package reads a session transcript and its session folder and reports the
workers that never reported back, the session's termination cause with its
evidence line, and, for workflow runs, what can be salvaged and how often calls
never came back. Nothing here imports a user interface.
"""

from wftop.core.forensics.causes import CLEARS, Verdict
from wftop.core.forensics.receipts import Completion, Launch, WorkerKind
from wftop.core.forensics.report import SessionReport, build_report
from wftop.core.forensics.sessionlist import (
    SessionFile,
    SessionNotFound,
    find_session,
    list_sessions,
    pick_session,
)
from wftop.core.forensics.workers import Action, DeadWorker, Digest, WorkerLiveness
from wftop.core.read.errors import PRIORITY, SIGNATURES, Cause, Signature

__all__ = [
    "CLEARS",
    "PRIORITY",
    "SIGNATURES",
    "Action",
    "Cause",
    "Completion",
    "DeadWorker",
    "Digest",
    "Launch",
    "SessionFile",
    "SessionNotFound",
    "SessionReport",
    "Signature",
    "Verdict",
    "WorkerKind",
    "WorkerLiveness",
    "build_report",
    "find_session",
    "list_sessions",
    "pick_session",
]
