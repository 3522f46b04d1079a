"""``--exact``: a plan's forecast rehearsed by the installed CLI, for ``wftop resume`` and the
TUI's plan.

The rehearsal lives beside the mock (`wftop.mockapi.rehearsal`); it is imported when a
rehearsal is asked for, so ``wftop`` and the TUI start without loading the mock. The TUI
cannot import the mock at all: it gets a `Rehearse` callable from here (`tui_rehearser`).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wftop.cli.options import seconds

if TYPE_CHECKING:
    from wftop.core.config import Config
    from wftop.core.forecast.fates import Forecast
    from wftop.core.resume.plan import Plan
    from wftop.core.resume.rehearse import Rehearse

EXIT_NO_EXACT = 6
"""``--exact`` could not rehearse (no ``claude``, no script, the CLI failed or ran out of
time): the plan printed holds the estimate."""
DEFAULT_TIMEOUT_S = 120.0


def add_exact_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--exact",
        action="store_true",
        help="rehearse the resume with the installed claude against a local mock (no tokens, "
        "nothing written outside a temporary dir) and show the exact forecast",
    )
    parser.add_argument(
        "--exact-timeout",
        type=seconds,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help=f"give up the rehearsal after this long (default {DEFAULT_TIMEOUT_S:.0f})",
    )


def rehearser(claude: str | None, timeout: float = DEFAULT_TIMEOUT_S) -> Rehearse:
    """Rehearses with ``claude`` (the configured binary, else what a resume would find);
    the mock is imported at the first call."""

    def run(plan: Plan, /) -> Forecast:
        from wftop.mockapi import rehearsal

        return rehearsal.rehearser(rehearsal.rehearsal_cli(claude), timeout=timeout)(plan)

    return run


def tui_rehearser(config: Config, *, read_only: bool) -> Rehearse | None:
    """What the TUI's plan rehearses with; None when resuming is off or the config says
    ``exact_forecast = false``."""
    if read_only or not config.exact_forecast:
        return None
    return rehearser(config.claude)


@dataclass(frozen=True)
class Rehearsed:
    """A plan after ``--exact``: with the exact forecast, or as it was and why."""

    plan: Plan
    error: str | None
    timed_out: bool
    seconds: float

    def to_json(self) -> dict[str, Any]:
        """The ``rehearsal`` field of ``wftop resume --dry-run --exact --json``."""
        return {"exact": self.error is None, "error": self.error, "seconds": round(self.seconds, 2)}

    def error_line(self) -> str | None:
        """The one line that says why there is no exact forecast."""
        if self.error is None:
            return None
        hint = " (--exact-timeout SECONDS allows longer)" if self.timed_out else ""
        return f"wftop: no exact forecast: {self.error}{hint}; the plan shows the estimate"


def rehearse_plan(
    plan: Plan, rehearse: Rehearse, clock: Callable[[], float] = time.monotonic
) -> Rehearsed:
    from wftop.core.forecast.exact import RehearsalFailed

    began = clock()
    try:
        forecast = rehearse(plan)
    except RehearsalFailed as error:
        return Rehearsed(plan, str(error), error.timed_out, clock() - began)
    return Rehearsed(plan.with_forecast(forecast), None, False, clock() - began)
