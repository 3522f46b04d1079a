"""What the plan weighs beside its forecasts: the hazards of a resume, the forecast of a
fresh relaunch, and the strategy it recommends (`wftop.core.resume.plan`)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from wftop.core.compared import compared
from wftop.core.forecast.fates import CallFate, Fate, Forecast
from wftop.core.forecast.launchinfo import writer_version
from wftop.core.model import Run
from wftop.core.resume.launcher import Strategy


@compared
@dataclass(frozen=True, eq=False, repr=False)
class Hazard:
    code: str
    message: str


def hazards(
    run: Run,
    has_args: bool,
    launch_source: str,
    script_path: str | None,
    cli_version: tuple[int, int, int] | None,
) -> list[Hazard]:
    found = []
    if run.fold.keyless_lines:
        found.append(
            Hazard(
                "keyless_journal",
                f"{run.fold.keyless_lines} old journal lines have "
                "no key: those calls can never be served from cache",
            )
        )
    writer = writer_version(run)
    if writer and cli_version and writer != cli_version:
        found.append(
            Hazard(
                "cli_version",
                "journal written by {} and resumed by {}: keys from the "
                "first parallel call on may not match".format(
                    ".".join(map(str, writer)), ".".join(map(str, cli_version))
                ),
            )
        )
    if launch_source == "none":
        found.append(
            Hazard(
                "args_unknown",
                "no snapshot and no launch record: if the run had "
                "args, a resume without them changes every prompt that reads them",
            )
        )
    if script_path and not os.path.isfile(script_path):
        found.append(Hazard("script_missing", f"script not found: {script_path}"))
    if not os.path.isfile(run.folder.transcript):
        found.append(
            Hazard(
                "transcript_missing",
                "the owner session's transcript is gone: "
                "--resume would fail, the run must move to a new session",
            )
        )
    if run.fold.restore_state == "partial":
        found.append(Hazard("partial_restore", "the journal was being restored and is incomplete"))
    return found


def fresh_forecast(run: Run, strategy: str = Strategy.FRESH.value) -> Forecast:
    """A fresh relaunch serves nothing from cache: every call runs again. So would any
    strategy of a run whose journal is not on disk (which the guard refuses)."""
    why = "no journal on disk: no cache" if run.journal_missing else "fresh relaunch: no cache"
    calls = tuple(
        CallFate(call.label, call.key, Fate.LIVE, why, call.has_result)
        for call in run.fold.ordered_calls()
    )
    return Forecast(strategy, calls, True, None, None, "journal")


def recommend(
    default: Forecast, surgical: Forecast, *, owner_clear: bool, transcript_gone: bool
) -> Strategy:
    """The strategy the plan recommends: ``surgical`` where it runs fewer calls and no owner
    may still be writing; else ``relocate`` where the owner's transcript is gone; else
    ``resume-owner``. On a tie the owner session wins: it sends the owner's conversation again,
    so it reads the prompt cache while that is warm (`wftop.core.forecast.cachewarm`; relocate and
    surgical start a new conversation, which nothing has cached), and the owner's conversation
    receives the result."""
    if len(surgical.live) < len(default.live) and owner_clear:
        return Strategy.SURGICAL
    return Strategy.RELOCATE if transcript_gone else Strategy.RESUME_OWNER
