"""The exact forecast: what a rehearsal by the installed CLI showed, as a `Forecast`.

A rehearsal (``wftop resume --dry-run --exact``) resumes a copy of the run in a throwaway
config dir, against a mock Messages API that answers every live call at once, and watches
which calls the CLI serves from cache. The CLI follows its own keying order, so this is
right for every shape of script and every CLI version. What it cannot know is what a real
model would answer: a call whose prompt embeds a re-run call's result shows as a miss,
which is the safe side. This module turns what was seen into a `Forecast` (pure; the
rehearsal itself lives beside the mock, in ``wftop.mockapi.rehearsal``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from wftop.core.compared import compared
from wftop.core.forecast.fates import CallFate, Fate, Forecast
from wftop.core.read.journal import JournalFold

FIRST_MISS = re.compile(r"Call (\d+) and every call after it run fresh")
"""The CLI's own log line in the new snapshot naming where reuse ended."""


class RehearsalFailed(RuntimeError):
    """The rehearsal could not say what the CLI would do: no ``claude`` to rehearse with, no
    script, the CLI failed or ran out of time (the message is one line, for the user)."""

    timed_out = False
    """It ran out of time (a longer timeout may do)."""


@compared
@dataclass(frozen=True, eq=False, repr=False)
class Seen:
    """What one rehearsal showed."""

    served: frozenset[str]
    """Agent ids of the results the CLI served from cache (``cached`` rows of the rehearsed
    run's snapshot carry the id of the agent that wrote the result)."""
    calls: int
    """Calls the rehearsed run made (rows of its snapshot)."""
    completed: bool
    """The rehearsed run reached its end (its snapshot says so)."""
    cli_version: str
    first_miss_index: int | None = None
    """``Call N`` of the CLI's log line, where it wrote one."""
    labels_by_index: tuple[tuple[int, str], ...] = ()
    """Call number → label, from the rehearsed snapshot's rows."""


def first_miss_index(logs: Iterable[str]) -> int | None:
    for line in logs:
        found = FIRST_MISS.search(line)
        if found:
            return int(found.group(1))
    return None


def exact_forecast(
    fold: JournalFold, strategy: str, seen: Seen, notes: Sequence[str] = ()
) -> Forecast:
    """The fate of every call the journal knows, as the rehearsal showed it.

    Calls are matched by the agent that wrote their result, not by key: a call whose prompt
    changed gets a new key in the rehearsal, and is a re-run all the same. A result the CLI
    served is cached; any other call of a rehearsal that reached its end ran live (a re-run
    when it had a result); in a rehearsal that did not end, a result not yet served is at
    risk.
    """
    fates = []
    calls = fold.ordered_calls()
    for call in calls:
        had = call.has_result
        if had and call.result_agent_id in seen.served:
            fate, why = Fate.CACHED, "served from cache in the rehearsal"
        elif seen.completed:
            fate, why = (Fate.RERUN, "ran again in the rehearsal") if had else (Fate.LIVE, "ran")
        elif had:
            fate, why = Fate.AT_RISK, "the rehearsal ended before reaching it"
        else:
            fate, why = Fate.LIVE, "not reached in the rehearsal; runs when the script gets there"
        fates.append(CallFate(call.label, call.key, fate, why, had))
    labels = dict(seen.labels_by_index)
    first_miss = labels.get(seen.first_miss_index) if seen.first_miss_index else None
    if first_miss is None:
        first_miss = next((f.label for f in fates if f.fate is Fate.RERUN), None)
    return Forecast(
        strategy=strategy,
        calls=tuple(fates),
        more_live=not seen.completed or seen.calls > len(calls),
        first_miss=first_miss,
        rerun_tokens=None,
        order="rehearsal",
        notes=tuple(notes),
        exact=True,
        cli_version=seen.cli_version,
        unreached_calls=max(0, seen.calls - len(calls)) if seen.completed else None,
    )
