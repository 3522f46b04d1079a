"""The words of a resume request: its states, the events that move it, the active states.

`wftop.core.resume.machine` says which event moves which state where; the records of a
run's resume log (`wftop.core.resume.records`) and the errors (`wftop.core.resume.errors`)
name states without needing those rules, so the words live below both.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class ResumeState(StrEnum):
    """Where one resume request stands."""

    PLANNED = "planned"
    PREFLIGHT = "preflight"
    BLOCKED = "blocked"
    CONFIRMED = "confirmed"
    RELOCATING = "relocating"
    LAUNCHING = "launching"
    RUNNING = "running"
    COMPLETED = "completed"
    COMPLETED_WITH_FAILURES = "completed_with_failures"
    FAILED = "failed"
    STOPPED = "stopped"
    LOST = "lost"
    LAUNCH_FAILED = "launch_failed"
    FALLBACK = "fallback"

    @property
    def word(self) -> str:
        """The state as text output and the TUI say it (``launch failed``); JSON and the
        state dir keep the value (``launch_failed``)."""
        return self.value.replace("_", " ")


class ResumeEvent(StrEnum):
    """What can happen to a resume request."""

    BEGIN_PREFLIGHT = "begin_preflight"
    """The plan is shown and the guard runs."""
    GUARD_REFUSED = "guard_refused"
    USER_CONFIRMED = "user_confirmed"
    RELOCATE = "relocate"
    """Start copying the journal into the target session."""
    RELOCATED = "relocated"
    """The copy is in place; the launch starts (counts as a launch)."""
    RELOCATION_FAILED = "relocation_failed"
    LAUNCH = "launch"
    """Start the process (counts as a launch)."""
    SPAWNED = "spawned"
    """The process exists; carries its pid. Stays in ``launching``."""
    STARTED = "started"
    """The CLI was seen to relaunch the workflow."""
    LAUNCH_ERROR = "launch_error"
    """The process could not start, or exited before the workflow was relaunched."""
    FALL_BACK = "fall_back"
    EXITED_OK = "exited_ok"
    EXITED_WITH_FAILURES = "exited_with_failures"
    EXITED_FAILED = "exited_failed"
    STOPPED_BY_USER = "stopped_by_user"
    PROCESS_VANISHED = "process_vanished"
    """The process is gone and left no exit code."""


ACTIVE_STATES: Final = frozenset({ResumeState.LAUNCHING, ResumeState.RUNNING})
"""Post-launch states that may own a live process: a new request must re-attach."""
