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
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from wftop.core.forecast.costrange import CostRange
from wftop.core.forecast.keyorder import (
    Span,
    chain_differs,
    doubts,
    journal_spans,
    keying_order,
    snapshot_spans,
)
from wftop.core.forecast.launchinfo import first_parallel_call, writer_version
from wftop.core.model import Run
from wftop.core.read.agent_transcript import agent_prompt, agent_tokens, transcript_path
from wftop.core.read.deepjson import DeepJson
from wftop.core.read.journal import Call, CallState, JournalFold
from wftop.core.read.snapshot import AgentRow


class Fate(StrEnum):
    CACHED = "cached"
    LIVE_IN_FLIGHT = "live_in_flight"
    """Re-runs, but does not end reuse (it was running when the run stopped)."""
    LIVE_ENDS_REUSE = "live_ends_reuse"
    """The first miss: re-runs and every later call runs live."""
    RERUN = "rerun"
    """Had a result, re-runs anyway because reuse already ended: wasted work."""
    LIVE = "live"
    """Had no result and reuse already ended."""
    AT_RISK = "at_risk"
    """Has a result, but the forecast cannot be sure the CLI will serve it from cache."""


REKEYED = "its prompt reads results of"
"""How the reason of a call re-keyed by a re-run result begins."""

LIVE_FATES = frozenset({Fate.LIVE_IN_FLIGHT, Fate.LIVE_ENDS_REUSE, Fate.RERUN, Fate.LIVE})
"""The fates of calls that will run (and be paid for) again."""


@dataclass(frozen=True)
class CallFate:
    label: str
    key: str
    fate: Fate
    reason: str
    had_result: bool = False
    """The journal held a result for this call (re-running it repeats finished work)."""


@dataclass(frozen=True)
class Forecast:
    strategy: str
    calls: tuple[CallFate, ...]
    more_live: bool
    """Calls the journal has never seen may also run (the script had not returned, or a
    failed call re-runs and the calls its failure skipped run after it)."""
    first_miss: str | None
    rerun_tokens: int | None
    """Tokens the earlier attempts of the wasted re-runs cost (None when unknown)."""
    order: str
    """How the keying order was known: ``snapshot``, ``journal`` or ``rehearsal``."""
    notes: tuple[str, ...] = ()
    exact: bool = False
    """Rehearsed: the installed CLI itself served these calls from cache (or ran them)."""
    cli_version: str | None = None
    """The CLI build that rehearsed (exact forecasts only)."""
    unreached_calls: int | None = None
    """How many calls the journal never saw the script makes (a rehearsal that ran to its
    end counts them); None when unknown."""
    cost: CostRange | None = None
    """What its calls will cost, low to high (`wftop.core.forecast.costs`), once priced."""

    def labels(self, *fates: Fate) -> list[str]:
        return [call.label for call in self.calls if call.fate in fates]

    @property
    def cached(self) -> list[str]:
        return self.labels(Fate.CACHED)

    @property
    def live(self) -> list[str]:
        return self.labels(*LIVE_FATES)

    @property
    def at_risk(self) -> list[str]:
        """Calls with a result that may be served from cache, or may run again."""
        return self.labels(Fate.AT_RISK)

    @property
    def rerun(self) -> list[str]:
        """Live calls that already had a result: finished work done again."""
        return [c.label for c in self.calls if c.had_result and c.fate in LIVE_FATES]

    def to_json(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "exact": self.exact,
            "cli_version": self.cli_version,
            "cached": self.cached,
            "live": self.live,
            "at_risk": [
                {"label": c.label, "reason": c.reason} for c in self.calls if c.fate is Fate.AT_RISK
            ],
            "rerun": self.rerun,
            "more_live": self.more_live,
            "first_miss": self.first_miss,
            "rerun_tokens": self.rerun_tokens,
            "order": self.order,
            "notes": list(self.notes),
            **(self.cost.to_json() if self.cost is not None else {}),
            "calls": [
                {"label": c.label, "fate": c.fate.value, "reason": c.reason} for c in self.calls
            ],
        }

    @property
    def provenance(self) -> str:
        """Which forecast this is, as the plan marks it: ``estimate`` (from the journal), or
        ``exact, rehearsed with claude 2.1.332``."""
        if not self.exact:
            return "estimate"
        return f"exact, rehearsed with claude {self.cli_version or '(unknown version)'}"

    def summary(self) -> str:
        """``8 live (7 re-runs of finished work, ≈ 1,234 tokens)``; a range where calls are at
        risk: ``2–5 live …``."""
        risky = len(self.at_risk)
        text = f"{_span(len(self.live), risky)} live"
        if self.more_live:
            text += " + calls not yet reached"
        if self.rerun:
            tokens = f", ≈ {self.rerun_tokens:,} tokens" if self.rerun_tokens else ""
            text += f" ({len(self.rerun)} re-runs of finished work{tokens})"
        return f"{text}, {_span(len(self.cached), risky)} from cache"


def _span(sure: int, risky: int) -> str:
    """``3``, or ``3–5`` when ``risky`` calls may fall either way."""
    return f"{sure}–{sure + risky}" if risky else str(sure)


@dataclass
class ForecastInput:
    """The facts a forecast needs, gathered from a run (kept separate for tests)."""

    fold: JournalFold
    order: list[Call]
    order_source: str
    script_returned: bool
    agent_count: int | None
    chain_differs_from: str | None = None
    """Label of the first call from which an older CLI's keys no longer match."""
    chain_differs_from_order: int = 0
    prompts: dict[str, str] = field(default_factory=dict)
    """Raw prompt per call key, where known (more are read from `transcripts` when asked)."""
    tokens: dict[str, int] = field(default_factory=dict)
    """Tokens of earlier attempts per call key, where known (more as `prompts`)."""
    transcripts: CallTranscripts | None = None
    """Where a call's prompt and tokens are read from, the first time the walk asks: only the
    calls walked after one that re-runs need a prompt, only the re-runs their tokens (a run
    of 100,000 calls has 100,000 transcripts)."""
    _leaves: dict[str | None, Leaves] = field(default_factory=dict, repr=False)
    damaged: JournalFold | None = None
    """The journal as the damaged run left it, when the resume reads another (a healed copy)."""
    spans: Mapping[str, Span] = field(default_factory=dict)
    """When each call was keyed and ended in the damaged run (journal lines when empty)."""
    errored: set[str] = field(default_factory=set)
    """Keys of calls the snapshot says failed although the journal has no ``failed`` line."""

    def prompt_of(self, call: Call) -> str | None:
        if call.key not in self.prompts and self.transcripts is not None:
            self.prompts[call.key] = self.transcripts.prompt(call) or ""
        return self.prompts.get(call.key) or None

    def tokens_of(self, key: str) -> int | None:
        if key not in self.tokens and self.transcripts is not None:
            call = self.fold.calls.get(key)
            spent = self.transcripts.tokens(call) if call is not None else None
            if spent is not None:
                self.tokens[key] = spent
        return self.tokens.get(key)

    def group_leaves(self, phase: str | None) -> Leaves:
        """The string values the calls of ``phase`` returned (a prompt holding one reads
        them)."""
        if phase not in self._leaves:
            counts: dict[str, int] = {}
            for other in self.fold.ordered_calls():
                if other.phase == phase and other.has_result:
                    for leaf in leaves_of(other):
                        counts[leaf] = counts.get(leaf, 0) + 1
            self._leaves[phase] = Leaves(counts)
        return self._leaves[phase]


class CallTranscripts:
    """A run's agent transcripts, read for one call when a forecast asks."""

    def __init__(self, run: Run) -> None:
        self.folder = run.folder.path
        self._snapshot = run.snapshot
        self._rows: dict[str, AgentRow] | None = None

    def prompt(self, call: Call) -> str | None:
        """The raw prompt of the call's latest agent (its transcript, else the snapshot's
        preview of it)."""
        agent = call.result_agent_id or (call.agent_ids[-1] if call.agent_ids else None)
        if not agent:
            return None
        path = transcript_path(self.folder, agent)
        prompt = agent_prompt(path) if path else None
        if prompt is None:
            if self._rows is None:
                rows = self._snapshot.rows if self._snapshot is not None else ()
                self._rows = {row.agent_id: row for row in rows}
            row = self._rows.get(agent)
            if row is not None and row.prompt_preview:
                prompt = row.prompt_preview
        return prompt

    def tokens(self, call: Call) -> int | None:
        """What every attempt of the call used (None for a call no agent ran)."""
        agent = call.result_agent_id or (call.agent_ids[-1] if call.agent_ids else None)
        if not agent:
            return None
        spent = 0
        for attempt in call.agent_ids:
            found = transcript_path(self.folder, attempt)
            spent += (agent_tokens(found) if found else None) or 0
        return spent


class Leaves:
    """String values returned by a group of calls, each with how many calls returned it."""

    MANY = 4096
    """Past this many values, a prompt is searched by its pieces of each value's length
    rather than for each value."""

    def __init__(self, counts: dict[str, int]) -> None:
        self.counts = counts
        self.lengths = sorted({len(leaf) for leaf in counts})

    def found_in(self, prompt: str, own: Collection[str] = ()) -> bool:
        """Whether ``prompt`` holds a value some call besides the one that returned ``own``
        returned."""
        counts = self.counts
        if len(counts) <= self.MANY:
            return any(leaf in prompt for leaf, n in counts.items() if n > (leaf in own))
        for length in self.lengths:
            for start in range(len(prompt) - length + 1):
                piece = prompt[start : start + length]
                n = counts.get(piece, 0)
                if n and n > (piece in own):
                    return True
        return False


def leaves_of(call: Call) -> set[str]:
    found: set[str] = set()
    _string_leaves(call.result, found)
    return found


def _string_leaves(value: Any, found: set[str]) -> None:
    if isinstance(value, str):
        if 2 <= len(value) <= 200:
            found.add(value)
    elif isinstance(value, dict):
        for item in value.values():
            _string_leaves(item, found)
    elif isinstance(value, list):
        for item in value:
            _string_leaves(item, found)
    elif isinstance(value, DeepJson):
        found.update(text for text in value.strings() if 2 <= len(text) <= 200)


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
    fates, misses, late, first_miss = _walk(facts, spans)
    quiet = _quiet_failures(facts)
    fates = _doubt(fates, misses, late, quiet, facts, spans)
    failed = any(call.state is CallState.FAILED for call in facts.order)
    more_live = (
        not facts.script_returned
        or (facts.agent_count is not None and facts.agent_count > len(facts.order))
        or failed
        or bool(quiet)
    )
    notes = []
    risky = sum(1 for fate in fates if fate.fate is Fate.AT_RISK)
    if risky:
        notes.append(
            f"{risky} calls at risk: the journal cannot tell whether the resume serves them "
            "from cache; a rehearsal of the resume says for sure"
        )
    if facts.script_returned and (failed or quiet):
        notes.append("a failed call re-runs: calls its failure skipped may run after it")
    wasted = [fate.key for fate in fates if fate.had_result and fate.fate in LIVE_FATES]
    spent = [facts.tokens_of(key) for key in wasted]
    known = [tokens for tokens in spent if tokens is not None]
    rerun_tokens = sum(known) if wasted and len(known) == len(wasted) else None
    return Forecast(
        strategy=strategy,
        calls=tuple(fates),
        more_live=more_live,
        first_miss=first_miss,
        rerun_tokens=rerun_tokens,
        order=facts.order_source,
        notes=tuple(notes),
    )


def _walk(
    facts: ForecastInput, spans: Mapping[str, Span]
) -> tuple[list[CallFate], list[str], set[str], str | None]:
    """The CLI's walk in the given order: fates, the calls that end reuse themselves (in
    order), those of them re-keyed by a re-run result, and the first of them."""
    sticky = False
    first_miss: str | None = None
    fates: list[CallFate] = []
    misses: list[str] = []
    late: set[str] = set()
    rerunning = Rerunning(spans)
    cached, plain = Fate.CACHED, facts.chain_differs_from is None
    for call in facts.order:
        if plain and not rerunning and not call.keyless:
            reason = None  # what `_miss_reason` says of such a call, without asking it
        else:
            reason = _miss_reason(call, rerunning, facts, spans)
        had = call.has_result
        if had and reason is None and not sticky:
            fates.append(CallFate(call.label, call.key, cached, "result in the journal", had))
            continue
        rerunning.add(call)
        in_flight = reason is None and not had and not call.failed and not call.demoted
        in_flight = in_flight and bool(call.agent_ids)
        if not in_flight and not (had and reason is None):
            misses.append(call.key)
        if reason and reason.startswith(REKEYED):
            late.add(call.key)
        if sticky:
            fate = Fate.RERUN if had else Fate.LIVE
            fates.append(CallFate(call.label, call.key, fate, f"after {first_miss}", had))
        elif in_flight:
            why = "in flight when it stopped"
            fates.append(CallFate(call.label, call.key, Fate.LIVE_IN_FLIGHT, why, had))
        else:
            sticky, first_miss = True, call.label
            why = reason or ("failed" if call.failed else "demoted by a newer attempt")
            fates.append(CallFate(call.label, call.key, Fate.LIVE_ENDS_REUSE, why, had))
    return fates, misses, late, first_miss


def _quiet_failures(facts: ForecastInput) -> list[str]:
    """Calls that failed in the damaged run but that the resume reads as in flight (a healed
    ``failed`` line, or none written): they re-run without ending reuse."""
    damaged = facts.damaged or facts.fold
    found = []
    for call in facts.order:
        before = damaged.calls.get(call.key)
        failed = before is not None and before.state is CallState.FAILED
        if call.state is CallState.IN_FLIGHT and (failed or call.key in facts.errored):
            found.append(call.key)
    return found


def _doubt(
    fates: list[CallFate],
    misses: list[str],
    late: set[str],
    quiet: list[str],
    facts: ForecastInput,
    spans: Mapping[str, Span],
) -> list[CallFate]:
    """Put at risk each walked fate of a call with a result that the timeline cannot back."""
    sure = [fate for fate in fates if fate.had_result and fate.key not in misses]
    reasons = doubts(
        spans,
        {call.key: call.label for call in facts.order},
        cached=[fate.key for fate in sure if fate.fate is Fate.CACHED],
        rerun=[fate.key for fate in sure if fate.fate is Fate.RERUN],
        misses=misses,
        late=late,
        quiet=quiet,
        live=[fate.key for fate in fates if fate.fate is not Fate.CACHED],
    )
    return [
        replace(fate, fate=Fate.AT_RISK, reason=reasons[fate.key]) if fate.key in reasons else fate
        for fate in fates
    ]


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


def gather(
    run: Run,
    fold: JournalFold | None = None,
    *,
    read_transcripts: bool = True,
    cli_version: tuple[int, int, int] | None = None,
) -> ForecastInput:
    """Collect a run's forecast facts (reads agent transcripts of re-run candidates lazily).

    Args:
        fold: the fold the resume will read (a healed one for the surgical strategy).
        cli_version: the build that will resume; when its key chain differs from the
            writer's, calls from the first parallel one on are predicted to miss.
    """
    fold = fold or run.fold
    order, source = keying_order(run)
    by_key = {call.key: call for call in fold.ordered_calls()}
    order = [by_key[call.key] for call in order if call.key in by_key]
    snapshot = run.snapshot if run.snapshot_current else None
    errored = snapshot.errored_agent_ids() if snapshot else set()
    facts = ForecastInput(
        fold=fold,
        order=order,
        order_source=source,
        script_returned=snapshot is not None,
        agent_count=snapshot.agent_count if snapshot else None,
        damaged=None if fold is run.fold else run.fold,
        spans=snapshot_spans(run.fold, snapshot.raw_rows) if snapshot else {},
        errored={call.key for call in order if set(call.agent_ids[-1:]) & errored},
    )
    if cli_version is not None and chain_differs(writer_version(run), cli_version):
        first = first_parallel_call(run)
        if first is not None:
            facts.chain_differs_from, facts.chain_differs_from_order = first
    if read_transcripts:
        facts.transcripts = CallTranscripts(run)
    return facts
