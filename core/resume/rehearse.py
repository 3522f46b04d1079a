"""What rehearses a plan's resume: `Rehearse`, the seam between the plan and the mock.

A rehearsal resumes a copy of the run against the mock Messages API and says which calls the
CLI served from cache (`wftop.core.forecast.exact`). The command line builds one
(``wftop.mockapi.rehearsal.rehearser``) and hands it to the TUI, which cannot import the mock.
"""

from __future__ import annotations

from typing import Protocol

from wftop.core.forecast.fates import Forecast
from wftop.core.resume.plan import Plan


class Rehearse(Protocol):
    """Rehearses the resume of a plan and returns its exact forecast (for the plan's
    strategy), or raises `wftop.core.forecast.exact.RehearsalFailed`."""

    def __call__(self, plan: Plan, /) -> Forecast: ...
