"""What the supervisor is handed from the machine (`Seams`: clock, jitter, probe, day,
environment, rehearsal, sleep, echo; tests hand in fakes), and a launch it follows to its end.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from wftop.core.model import Run
from wftop.core.resume.plan import Plan
from wftop.core.resume.request import Request
from wftop.core.supervise.audit import AuditLine
from wftop.core.supervise.decide import (
    UsdRange,
)
from wftop.core.supervise.ledger import local_day
from wftop.core.supervise.probe import Probe, tcp_probe
from wftop.core.supervise.rules import Jitter, seeded_jitter

FOLLOW_EVERY = 0.5
"""Seconds between two polls of a launch being followed."""


@dataclass
class Followed:
    """A launch the supervisor follows to its end."""

    run: Run
    request: Request
    cause: str | None
    forecast: UsdRange | None


@dataclass
class Seams:
    """What the supervisor is handed from the machine (tests hand in fakes)."""

    clock: Callable[[], float] = time.time
    jitter: Jitter = field(default_factory=seeded_jitter)
    probe: Probe = tcp_probe
    day: Callable[[float], tuple[float, float]] = local_day
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    rehearse: Callable[[Plan], Plan] | None = None
    """The plan with its forecast rehearsed (exact), or as it was when none can run."""
    sleep: Callable[[float], None] = time.sleep
    echo: Callable[[AuditLine], None] = lambda _line: None
    """Shown each line as it is written (``--once`` prints them)."""
