"""The two words a run's row says of what was read: why a call failed or a session stopped
(`Cause`) and whether a session's owner lives (`Liveness`).

A view decodes them in every row it lists, so they live here, apart from what finds them:
the signatures of the errors the CLI wrote (`wftop.core.read.errors`) and the registry of
live processes (`wftop.core.read.sessions`), whose data classes a view has no use for
before a run is opened. Both modules name them too.
"""

from __future__ import annotations

from enum import StrEnum


class Cause(StrEnum):
    """Why a session stopped or a call failed (``docs/forensics.md``, in its order)."""

    MACHINE_SLEPT = "machine_slept"
    AUTH_EXPIRED = "auth_expired"
    USAGE_LIMIT = "usage_limit"
    CONTEXT_TOO_LONG = "context_too_long"
    RATE_LIMITED = "rate_limited"
    API_OVERLOAD = "api_overload"
    API_5XX = "api_5xx"
    NETWORK = "network"
    STALLED = "stalled"
    USER_INTERRUPT = "user_interrupt"
    SCHEMA = "schema"
    """A call's agent ended without the structured output its schema asked for."""
    SCRIPT_ERROR = "script_error"
    """The workflow's script threw: the run failed, and the calls it left open with it."""
    API_ERROR_UNCLASSIFIED = "api_error_unclassified"
    CLEAN_OR_UNKNOWN = "clean_or_unknown"


class Liveness(StrEnum):
    ALIVE = "alive"
    DEAD = "dead"
    """A registry file exists but its process is gone (or the pid was recycled)."""
    UNKNOWN = "unknown"
    """The local process table cannot tell: the file was written on another machine or pid
    namespace, the table cannot read the pid, or no start can be compared."""
    ABSENT = "absent"
    """No registry file names the session."""
