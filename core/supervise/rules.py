"""What clears each stop cause, and how long the supervisor waits for it: one table.

The kinds are the stop causes of the forensics (`wftop.core.forensics.causes.Cause`), the
resume plan's ``killed`` (a dead run whose session recorded no error), and the failed-call
kinds ``schema`` and ``script_error``. Each kind clears in one of five ways (`Clears`);
`RULES` maps every kind to its way, and a kind it does not know clears `Clears.NEVER`:
the supervisor never resumes by itself what it cannot name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Final


class Clears(StrEnum):
    """How a stop cause clears, as the supervisor waits for it."""

    BACKOFF = "backoff"
    """After a backoff: ``--backoff`` seconds doubling per attempt, capped, jittered, and
    never sooner than the retry the CLI itself had scheduled (``retryInMs``)."""
    RESET = "reset"
    """After the usage limit's reset time, plus `RESET_MARGIN`."""
    CONNECT = "connect"
    """Once a TCP connection to the run's API host succeeds."""
    AT_ONCE = "at_once"
    """Nothing to wait for."""
    NEVER = "never"
    """Only a person clears it: the supervisor notifies and never resumes by itself."""


RULES: Final[Mapping[str, Clears]] = MappingProxyType(
    {
        "rate_limited": Clears.BACKOFF,
        "api_overload": Clears.BACKOFF,
        "api_5xx": Clears.BACKOFF,
        "usage_limit": Clears.RESET,
        "network": Clears.CONNECT,
        "machine_slept": Clears.AT_ONCE,
        "killed": Clears.NEVER,
        "stalled": Clears.NEVER,
        "clean_or_unknown": Clears.NEVER,
        "user_interrupt": Clears.NEVER,
        "auth_expired": Clears.NEVER,
        "context_too_long": Clears.NEVER,
        "schema": Clears.NEVER,
        "script_error": Clears.NEVER,
        "api_error_unclassified": Clears.NEVER,
    }
)
"""Every stop-cause kind and how it clears."""

BACKOFF_DEFAULT: Final = 60.0
"""The first wait, in seconds (``--backoff``)."""
BACKOFF_CAP: Final = 30 * 60.0
"""No backoff waits longer than this."""
JITTER: Final = 0.25
"""Each backoff is its nominal length times a factor in ``1 ± JITTER``."""
RESET_MARGIN: Final = 120.0
"""Seconds after a usage limit's reset before resuming (the reset is the API's clock)."""
USAGE_WINDOW: Final = 5 * 3600.0
"""A usage limit with no reset time recorded is taken to last one five-hour window from its
evidence (as the resume plan's warning does)."""
PROBE_EVERY: Final = 60.0
"""Seconds between two TCP probes of the API host while a ``network`` cause waits."""
ATTEMPTS_DEFAULT: Final = 2
"""Resumes per run and failure before the supervisor stops and notifies (``--attempts``)."""

Jitter = Callable[[str, int], float]
"""``(run, attempt) → factor`` in ``[1 - JITTER, 1 + JITTER]``."""


def clears(kind: str | None) -> Clears:
    """How ``kind`` clears; an unknown kind (or none) never clears by itself."""
    return RULES.get(kind or "", Clears.NEVER)


def seeded_jitter(seed: str = "") -> Jitter:
    """A jitter that is the same for the same run, attempt and seed: a supervisor that
    restarts waits for the same moment it had said, and runs that failed together spread."""

    def factor(run: str, attempt: int) -> float:
        digest = hashlib.sha256(f"{seed}\0{run}\0{attempt}".encode()).digest()
        unit = int.from_bytes(digest[:8], "big") / float(1 << 64)
        return 1.0 - JITTER + 2 * JITTER * unit

    return factor


def backoff_delay(base: float, attempt: int, factor: float) -> float:
    """Seconds to wait before resume number ``attempt + 1`` of one failure.

    ``base`` doubling with each attempt made, times the jitter ``factor``, never more than
    `BACKOFF_CAP` (nor less than 0).
    """
    nominal = base * float(1 << min(max(attempt, 0), 32))
    return max(0.0, min(nominal * factor, BACKOFF_CAP))
