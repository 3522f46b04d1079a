"""What a run's calls spent, from their agents' transcripts.

A call's spend is the sum over its attempts (each ``started`` line's agent, whose
transcript lives in the run folder); a run's is the sum over its calls. The orchestrator
session's own turns (its transcript, beside the session folder) are the session's, apart:
a session may launch several runs and talk in between.

An attempt whose transcript is missing or unreadable adds no tokens; one that returned is
counted as missing (`wftop.core.cost.gone`): the figures are then a lower bound, and every
surface says so.

A run is read here by what its spend is read from (`SpentRun`: its folder and its journal's
fold), never by the run model's type: the run model names what a run spent (`Spend`), so
cost imports nothing of it.
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from dataclasses import dataclass
from typing import Protocol

from wftop.core.cost.gone import missing
from wftop.core.cost.tokens import MISSING, NOTHING, Spend, exact_total, total
from wftop.core.cost.usage import Spends
from wftop.core.read.agent_transcript import transcript_path
from wftop.core.read.journal import Call, JournalFold
from wftop.core.read.runfolder import RunFolder


class SpentRun(Protocol):
    """What of a run its spend is read from (`wftop.core.model.Run` is one)."""

    @property
    def folder(self) -> RunFolder: ...

    @property
    def fold(self) -> JournalFold: ...


@dataclass(frozen=True)
class RunSpend:
    calls: dict[str, Spend]
    """By call key, in the journal's order."""
    total: Spend

    def of(self, call: Call) -> Spend:
        return self.calls.get(call.key, NOTHING)


def attempts_spend(
    folder: str,
    agent_ids: Iterable[str],
    spends: Spends | None = None,
    returned: Container[str] = (),
) -> list[Spend]:
    """What each of the agents ``agent_ids`` of run folder ``folder`` spent: those whose
    transcript can be read, and `MISSING` for each that is `wftop.core.cost.gone.missing`
    (it is of ``returned``, the agents that returned)."""
    spends = spends or Spends()
    found = []
    for agent_id in agent_ids:
        path = transcript_path(folder, agent_id)
        spent = spends.of(path) if path else None
        if spent is not None:
            found.append(spent)
        elif path and missing(folder, agent_id, returned):
            found.append(MISSING)
    return found


def agents_spend(
    folder: str,
    agent_ids: Iterable[str],
    spends: Spends | None = None,
    returned: Container[str] = (),
) -> Spend:
    """What the agents ``agent_ids`` of run folder ``folder`` spent, together (see
    `attempts_spend`)."""
    return total(attempts_spend(folder, agent_ids, spends, returned))


def calls_spend(folder: str, calls: Iterable[Call], spends: Spends | None = None) -> RunSpend:
    """Every call's spend (``calls`` of run folder ``folder``) and their sum (every attempt's,
    added exactly: `exact_total`)."""
    spends = spends or Spends()
    found: dict[str, Spend] = {}
    every: list[Spend] = []
    for call in calls:
        attempts = attempts_spend(folder, call.agent_ids, spends, call.returned_agent_ids)
        found[call.key] = total(attempts)
        every += attempts
    return RunSpend(found, exact_total(every))


def run_spend(run: SpentRun, spends: Spends | None = None) -> RunSpend:
    """Every call's spend and the run's."""
    return calls_spend(run.folder.path, run.fold.ordered_calls(), spends)


def session_spend(run: SpentRun, spends: Spends | None = None) -> Spend | None:
    """What the run's session spent on its own turns; None when its transcript is gone."""
    return (spends or Spends()).of(run.folder.transcript)
