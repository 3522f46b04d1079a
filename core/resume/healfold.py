"""The fold of a run's healed copy, as a plan's surgical forecast reads it (`healed_journal`).

The heal drops the ``failed`` lines of the calls `wftop.core.resume.relocate.heal_plan`
picks. Where each such call failed once, on its own last line, the copy's fold is the
run's own fold with those lines taken out (`derived_heal`): the calls that failed are in
flight, each line after a dropped one is numbered one up per line dropped before it, and
nothing else changes, because a call folds from its own lines alone. Two things of a fold
depend on lines of other calls, and are derived only where the fold says enough of them:
the order of the calls in flight (each taken in at its first ``started`` line where no
``result`` or ``failed`` line came between its attempts) and the last agent a line named
(a line after the last dropped one names it). Elsewhere the journal is read again and its
lines folded as the copy numbers them (`wftop.core.resume.relocate.healed_fold`): a failed
run of 100,000 calls read and folded twice, about 0.6 s of its plan.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left

from wftop.core.read.journal import Call, CallState, JournalFold
from wftop.core.read.journalfile import journal_fold
from wftop.core.read.jsonl import read_all
from wftop.core.resume.relocate import HealPlan, heal_plan, healed_fold


def healed_journal(path: str) -> tuple[JournalFold, set[int]]:
    """`healed_fold` of the journal at ``path``: its own fold (`journal_fold`, read once while
    the plan lasts) when the heal drops no line, which is what a fold of the copy gives then;
    else the copy's, derived from that fold where it can be (`derived_heal`), else folded from
    the journal's lines read again (its results packed as that fold's are: a plan's, as
    parsed), the heal decided from that fold."""
    fold = journal_fold(path)
    plan = heal_plan(fold)
    if not plan.drop_keys:
        return fold, set()
    derived = derived_heal(fold, plan)
    if derived is not None:
        return derived
    return healed_fold(read_all(path).records, packs=fold.packs, plan=plan)


def derived_heal(fold: JournalFold, plan: HealPlan) -> tuple[JournalFold, set[int]] | None:
    """What `healed_fold` gives for the records of ``fold`` under ``plan``, made from the
    fold alone (its calls shared where the heal leaves them as they were); None where the
    fold does not say it (see the module's docstring)."""
    calls = fold.calls
    dropped = [calls[key] for key in plan.drop_keys]
    for call in dropped:  # its one failed line is its last: the line's number is known
        if call.failures_seen != 1 or call.state is not CallState.FAILED:
            return None
    drop = sorted(call.last_line for call in dropped)
    latest = max(calls.values(), key=_last_line)
    if latest.last_line <= drop[-1] or not _names_agent(latest):
        return None  # the last agent named may be a dropped line's
    opened: list[tuple[int, str]] = []
    for key in fold.open_keys:  # each taken in at its first attempt, or its only one
        call = calls[key]
        if len(call.attempt_lines) > 1 and (call.results_seen or call.failures_seen):
            return None  # taken in again at an attempt after a result or failure: which one
        opened.append((call.attempt_lines[0], key))
    opened += [(call.attempt_lines[0], call.key) for call in dropped]  # no line between
    opened.sort()
    made = dict(calls)
    first = drop[0]
    for key, call in calls.items():
        if call.last_line >= first:  # a dropped line or one after it
            made[key] = _renumbered(call, drop, key in plan.drop_keys)
    healed = JournalFold(
        calls=made,
        started_lines=fold.started_lines,
        result_lines=fold.result_lines,
        failed_lines=fold.failed_lines - len(drop),
        other_lines=fold.other_lines,
        restore_state=fold.restore_state,
        keyless_lines=fold.keyless_lines,
        last_agent_id=fold.last_agent_id,
        open_keys=dict.fromkeys(key for _line, key in opened),
        failed_keys={key: None for key in fold.failed_keys if key not in plan.drop_keys},
        unlabelled=dict(fold.unlabelled),
        rerun_agent_ids=list(fold.rerun_agent_ids),
        packs=fold.packs,
        # The calls it did not make again are the run's: a change (a name given) copies
        # the call first, as in a snapshot of the run's fold.
        _shared=True,
        _own={key for key, call in made.items() if call is not calls[key]},
    )
    return healed, set(drop)


def _last_line(call: Call) -> int:
    return call.last_line


def _names_agent(call: Call) -> bool:
    """Whether the call's last line names an agent (a fold's last agent is a line's that
    does): its last attempt's ``started`` line, or its ``result`` line."""
    if call.state is CallState.IN_FLIGHT:
        return bool(call.agent_ids and call.agent_ids[-1])
    if call.state is CallState.DONE:
        return bool(call.result_agent_id)
    return False  # a failed line's agent is not kept


def _renumbered(call: Call, drop: list[int], healed: bool) -> Call:
    """``call`` numbered as in the copy without the lines ``drop``; ``healed``: its failed
    line is one of them, and it is in flight from its last attempt."""
    attempts = tuple(line - bisect_left(drop, line) for line in call.attempt_lines)
    first = call.first_line - bisect_left(drop, call.first_line)
    if not healed:
        last = call.last_line - bisect_left(drop, call.last_line)
        return dataclasses.replace(call, first_line=first, last_line=last, attempt_lines=attempts)
    return dataclasses.replace(
        call,
        first_line=first,
        last_line=attempts[-1],
        attempt_lines=attempts,
        state=CallState.IN_FLIGHT,
        failed=False,
        failures_seen=0,
    )
