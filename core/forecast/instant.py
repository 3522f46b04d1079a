"""What a resume will replay from cache and what it will run live, before anything is spent.

The CLI's cache is positional with a sticky miss (spec C.5): walking the calls in
the order the resumed script keys them, a call whose key holds a result is served
from cache until the first miss; a call that was merely in flight when the run
stopped (started, neither failed nor demoted) re-runs without ending reuse; any
other miss (failed, demoted, keyless, re-keyed) ends reuse, and every later call
runs live even when it had a result.

The instant forecast (`predict`) walks the journal's calls that way, then says *at risk*
wherever the journal cannot be sure: the resume keys hits without waiting, so around a
miss among concurrent calls its order is not the journal's (`wftop.core.forecast.keyorder`), and a
call keyed after a failure that the resume re-runs without ending reuse may embed that
failure's new result, or follow calls the failure had skipped. It never says ``cached``
for a call it is not sure of; a rehearsal (`wftop.core.forecast.exact`) settles the rest.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from wftop.core.compared import compared
from wftop.core.forecast.fates import (
    LIVE_FATES,
    REKEYED,
    CallFate,
    Fate,
    Forecast,
    seed_lists,
)
from wftop.core.forecast.inputs import ForecastInput, leaves_of
from wftop.core.forecast.keyorder import (
    Span,
    doubts,
    journal_spans,
)
from wftop.core.read.journal import Call, CallState

FROM_CACHE = "result in the journal"
"""The reason of a call the walk serves from cache."""


def _miss_reason(
    call: Call, rerunning: Rerunning, facts: ForecastInput, spans: Mapping[str, Span]
) -> str | None:
    """Why a call's journal key will not match the key the resume computes, if it will not."""
    if call.keyless:
        return "an old line without a key never matches"
    if facts.chain_differs_from is not None and call.order >= facts.chain_differs_from_order:
        return "written by a CLI whose key chain differs from here on"
    rekeyed = _rekeyed_by(call, rerunning, facts, spans)
    if rekeyed:
        return f"{REKEYED} {rekeyed}'s group, which re-runs"
    return None


def predict(facts: ForecastInput, strategy: str) -> Forecast:
    """Walk the calls in keying order the way the CLI's cache does, then put every call the
    journal cannot be sure of at risk (never ``cached``)."""
    spans = facts.spans or journal_spans(facts.damaged or facts.fold)
    walked = _walk(facts, spans)
    quiet = _quiet_failures(facts, walked.unsure)
    walked = _doubt(walked, quiet, facts, spans)
    failed_state = CallState.FAILED
    failed = any(call.state is failed_state for call in walked.unsure)
    more_live = (
        not facts.script_returned
        or (facts.agent_count is not None and facts.agent_count > len(facts.order))
        or failed
        or bool(quiet)
    )
    notes = []
    risky = len(walked.by_fate.get(Fate.AT_RISK, ()))
    if risky:
        notes.append(
            f"{risky} calls at risk: the journal cannot tell whether the resume serves them "
            "from cache; a rehearsal of the resume says for sure"
        )
    if facts.script_returned and (failed or quiet):
        notes.append("a failed call re-runs: calls its failure skipped may run after it")
    wasted = [fate.key for fate in walked.uncached if fate.had_result and fate.fate in LIVE_FATES]
    spent = [facts.tokens_of(key) for key in wasted]
    known = [tokens for tokens in spent if tokens is not None]
    rerun_tokens = sum(known) if wasted and len(known) == len(wasted) else None
    calls = tuple(walked.fates)
    seed_lists(calls, walked.by_fate, walked.uncached)
    return Forecast(
        strategy=strategy,
        calls=calls,
        more_live=more_live,
        first_miss=walked.first_miss,
        rerun_tokens=rerun_tokens,
        order=facts.order_source,
        notes=tuple(notes),
    )


@compared
@dataclass(slots=True, eq=False, repr=False)
class Walked:
    """What the walk (`_walk`) found, and what the forecast asks of its fates, made as it
    walked (a plan asked each of 100,000 fates again for each)."""

    fates: list[CallFate]
    misses: list[str]
    """The calls that end reuse themselves, in order."""
    late: set[str]
    """Those of them re-keyed by a re-run result."""
    first_miss: str | None
    by_fate: dict[Fate, list[str]]
    """The labels by fate (as `wftop.core.forecast.fates.seed_lists` takes them)."""
    uncached: list[CallFate]
    """The fates that are not cached, in order."""
    unsure: list[Call]
    """The calls the walk did not serve from cache, in order: every call of the journal
    whose latest attempt did not return among them (a call holds a result only when its
    latest line is its ``result``)."""


def _walk(facts: ForecastInput, spans: Mapping[str, Span]) -> Walked:
    """The CLI's walk in the given order (`Walked`)."""
    sticky = False
    first_miss: str | None = None
    fates: list[CallFate] = []
    cached_labels: list[str] = []
    by_fate: dict[Fate, list[str]] = {}
    uncached: list[CallFate] = []
    misses: list[str] = []
    late: set[str] = set()
    rerunning = Rerunning(spans)
    cached, plain = Fate.CACHED, facts.chain_differs_from is None
    make = object.__new__
    busy = False  # whether `rerunning` holds a call yet
    for call in facts.order:
        if plain and not busy and not call.keyless:
            reason = None  # what `_miss_reason` says of such a call, without asking it
        else:
            reason = _miss_reason(call, rerunning, facts, spans)
        had = call.has_result
        if had and reason is None and not sticky:
            # Its fields set here, not by `CallFate`'s __init__ (a frame and five arguments:
            # a third of making a fate, and a plan makes one for each of 100,000 calls).
            made = make(CallFate)
            made.label = label = call.label
            made.key, made.fate, made.reason, made.had_result = call.key, cached, FROM_CACHE, had
            fates.append(made)
            cached_labels.append(label)
            continue
        rerunning.add(call)
        busy = True
        in_flight = reason is None and not had and not call.failed and not call.demoted
        in_flight = in_flight and bool(call.agent_ids)
        if not in_flight and not (had and reason is None):
            misses.append(call.key)
        if reason and reason.startswith(REKEYED):
            late.add(call.key)
        if sticky:
            fate = Fate.RERUN if had else Fate.LIVE
            made = CallFate(call.label, call.key, fate, f"after {first_miss}", had)
        elif in_flight:
            why = "in flight when it stopped"
            made = CallFate(call.label, call.key, Fate.LIVE_IN_FLIGHT, why, had)
        else:
            sticky, first_miss = True, call.label
            why = reason or ("failed" if call.failed else "demoted by a newer attempt")
            made = CallFate(call.label, call.key, Fate.LIVE_ENDS_REUSE, why, had)
        fates.append(made)
        uncached.append(made)
        by_fate.setdefault(made.fate, []).append(made.label)
    if cached_labels:
        by_fate[cached] = cached_labels
    return Walked(fates, misses, late, first_miss, by_fate, uncached, rerunning.calls)


def _quiet_failures(facts: ForecastInput, unsure: Iterable[Call]) -> list[str]:
    """Calls that failed in the damaged run but that the resume reads as in flight (a healed
    ``failed`` line, or none written): they re-run without ending reuse. Looked for among
    the calls the walk did not serve from cache (``unsure``: every call in flight is)."""
    damaged = facts.damaged or facts.fold
    found = []
    in_flight, failed, errored = CallState.IN_FLIGHT, CallState.FAILED, facts.errored
    for call in unsure:
        if call.state is not in_flight:
            continue
        before = damaged.calls.get(call.key)
        if (before is not None and before.state is failed) or call.key in errored:
            found.append(call.key)
    return found


def _doubt(
    walked: Walked, quiet: list[str], facts: ForecastInput, spans: Mapping[str, Span]
) -> Walked:
    """Put at risk each walked fate of a call with a result that the timeline cannot back
    (its fates, labels by fate and uncached fates made again where any is)."""
    fates, misses = walked.fates, walked.misses
    if not misses and not quiet:
        return walked  # nothing ends reuse, so nothing re-runs after it either (`doubts`)
    sure = [fate for fate in fates if fate.had_result and fate.key not in misses]
    reasons = doubts(
        spans,
        {call.key: call.label for call in facts.order},
        cached=[fate.key for fate in sure if fate.fate is Fate.CACHED],
        rerun=[fate.key for fate in sure if fate.fate is Fate.RERUN],
        misses=misses,
        late=walked.late,
        quiet=quiet,
        live=[fate.key for fate in fates if fate.fate is not Fate.CACHED],
        timeline=facts.timeline_of(spans),
    )
    if not reasons:
        return walked
    doubted: list[CallFate] = []
    by_fate: dict[Fate, list[str]] = {}
    uncached: list[CallFate] = []
    cached = Fate.CACHED
    for fate in fates:
        if fate.key in reasons:
            fate = replace(fate, fate=Fate.AT_RISK, reason=reasons[fate.key])
        doubted.append(fate)
        if fate.fate is not cached:
            uncached.append(fate)
        by_fate.setdefault(fate.fate, []).append(fate.label)
    return replace(walked, fates=doubted, by_fate=by_fate, uncached=uncached)


class Rerunning:
    """The calls the walk re-runs so far, by phase, with the earliest end among each phase's
    first ones: a later call asks each phase once (a binary search), not every call."""

    def __init__(self, spans: Mapping[str, Span]) -> None:
        self.calls: list[Call] = []
        self._spans = spans
        self._phases: dict[str | None, tuple[list[int], list[float]]] = {}

    def __bool__(self) -> bool:
        return bool(self.calls)

    def add(self, call: Call) -> None:
        span = self._spans.get(call.key)
        end = span.earliest_end if span is not None else None
        places, lows = self._phases.setdefault(call.phase, ([], []))
        low = math.inf if end is None else end
        places.append(len(self.calls))
        lows.append(min(low, lows[-1]) if lows else low)
        self.calls.append(call)

    def phases(self) -> Iterable[str | None]:
        return self._phases

    def first_ended(self, phase: str | None, by: float) -> int | None:
        """The place of the first re-running call of ``phase`` that had ended by ``by``."""
        places, lows = self._phases[phase]
        found = bisect.bisect_left(lows, -by, key=lambda low: -low)
        return places[found] if found < len(lows) else None


def _rekeyed_by(
    call: Call, rerunning: Rerunning, facts: ForecastInput, spans: Mapping[str, Span]
) -> str | None:
    """The re-running call whose new result this call's prompt likely embeds.

    A call that re-runs may return something new; a later call keyed after it ended whose
    prompt embeds the results of that call's group (its phase) then gets a new key. The
    prompt is compared with the string values the group's other calls returned.
    """
    if not rerunning:
        return None
    span = spans.get(call.key)
    if span is None:
        return None
    prompt = facts.prompt_of(call)
    if not prompt:
        return None
    best: int | None = None
    for phase in rerunning.phases():
        if phase is not None and phase == call.phase:
            continue
        place = rerunning.first_ended(phase, span.keyed)
        if place is None or (best is not None and place >= best):
            continue
        own = leaves_of(call) if call.phase == phase and call.has_result else set()
        if facts.group_leaves(phase).found_in(prompt, own):
            best = place
    return rerunning.calls[best].label if best is not None else None
