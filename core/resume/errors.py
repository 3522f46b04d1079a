"""Errors raised by ``wftop.core.resume``. One base class, one subclass per failure area."""

from __future__ import annotations

from wftop.core.resume.records import RequestStatus


class ResumeError(Exception):
    """Base class of every error raised by ``wftop.core.resume``."""


class IllegalTransition(ResumeError, ValueError):
    """The state machine has no transition for this (state, event) pair."""


class AttemptsExhausted(IllegalTransition):
    """A transition would start a launch beyond the per-request attempts cap."""


class InvalidIdentifier(ResumeError, ValueError):
    """A session id, run id, agent id, path or flag failed validation."""


class ResumeBusy(ResumeError):
    """Another caller holds the run's resume lock."""

    def __init__(self, message: str, *, holder: str) -> None:
        super().__init__(message)
        self.holder = holder
        """Who holds the lock, as written in the lock file (may be empty)."""


class ResumeInProgress(ResumeError):
    """The run's latest request is launching or running: re-attach instead of launching."""

    def __init__(self, message: str, *, status: RequestStatus) -> None:
        super().__init__(message)
        self.status = status
        """The active request to re-attach to."""


class LaunchError(ResumeError, OSError):
    """The detached runner could not be started or controlled."""


class RelocationError(ResumeError, OSError):
    """A journal could not be copied into the target session."""


class RelocationConflict(RelocationError):
    """The target journal exists and differs from what the relocation would write."""
