"""What a resume will replay from cache and what it will run live, before anything is spent.

The CLI's cache is positional with a sticky miss (spec C.5): walking the calls in
the order the resumed script keys them, a call whose key holds a result is served
from cache until the first miss; a call that was merely in flight when the run
stopped (started, neither failed nor demoted) re-runs without ending reuse; any
other miss (failed, demoted, keyless, re-keyed) ends reuse, and every later call
runs live even when it had a result.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from wftop.core.agent_transcript import agent_prompt, agent_tokens
from wftop.core.journal import Call, JournalFold
from wftop.core.launchinfo import chain_family, first_parallel_call, writer_version
from wftop.core.model import Run


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
    """Calls the journal has never seen will also run (the script had not returned)."""
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
            "calls": [
                {"label": c.label, "fate": c.fate.value, "reason": c.reason} for c in self.calls
            ],
        }

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
    """Raw prompt per call key, where known."""
    tokens: dict[str, int] = field(default_factory=dict)
    """Tokens of earlier attempts per call key, where known."""


def keying_order(run: Run) -> tuple[list[Call], str]:
    """Calls in the order the resumed script will key them.

    The snapshot's ``index`` is the call number in invocation order; without one the
    order of first appearance in the journal stands in (exact for sequential and
    ``parallel()`` shapes, approximate for pipelines).
    """
    calls = run.fold.ordered_calls()
    if run.snapshot is None or not run.snapshot.rows:
        return calls, "journal"
    index_of = {row.agent_id: row.index for row in run.snapshot.rows if row.agent_id}
    positions = {}
    for call in calls:
        known = [index_of[agent] for agent in call.agent_ids if agent in index_of]
        if call.result_agent_id in index_of:
            known.append(index_of[call.result_agent_id])
        positions[call.key] = min(known) if known else None
    if any(position is None for position in positions.values()):
        return calls, "journal"
    return sorted(calls, key=lambda call: (positions[call.key] or 0, call.order)), "snapshot"


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


def reads_results_of(prompt: str, calls: Iterable[Call]) -> bool:
    """Whether a prompt embeds a string value returned by any of the calls."""
    leaves: set[str] = set()
    for call in calls:
        if call.has_result:
            _string_leaves(call.result, leaves)
    return any(leaf in prompt for leaf in leaves)


def _miss_reason(call: Call, rerunning: list[Call], facts: ForecastInput) -> str | None:
    """Why a call's journal key will not match the key the resume computes, if it will not."""
    if call.keyless:
        return "an old line without a key never matches"
    if facts.chain_differs_from is not None and call.order >= facts.chain_differs_from_order:
        return "written by a CLI whose key chain differs from here on"
    rekeyed = _rekeyed_by(call, rerunning, facts)
    if rekeyed:
        return f"its prompt reads results of {rekeyed}'s group, which re-runs"
    return None


def predict(facts: ForecastInput, strategy: str) -> Forecast:
    """Walk the calls in keying order the way the CLI's cache does."""
    sticky = False
    first_miss: str | None = None
    fates: list[CallFate] = []
    rerunning: list[Call] = []
    for call in facts.order:
        reason = _miss_reason(call, rerunning, facts)
        had = call.has_result
        if had and reason is None and not sticky:
            fates.append(CallFate(call.label, call.key, Fate.CACHED, "result in the journal", had))
            continue
        rerunning.append(call)
        in_flight = reason is None and not had and not call.failed and not call.demoted
        if sticky:
            fate = Fate.RERUN if had else Fate.LIVE
            fates.append(CallFate(call.label, call.key, fate, f"after {first_miss}", had))
        elif in_flight and call.agent_ids:
            why = "in flight when it stopped"
            fates.append(CallFate(call.label, call.key, Fate.LIVE_IN_FLIGHT, why, had))
        else:
            sticky, first_miss = True, call.label
            why = reason or ("failed" if call.failed else "demoted by a newer attempt")
            fates.append(CallFate(call.label, call.key, Fate.LIVE_ENDS_REUSE, why, had))
    more_live = not facts.script_returned or (
        facts.agent_count is not None and facts.agent_count > len(facts.order)
    )
    notes = []
    if facts.order_source == "journal" and len(facts.order) > 1:
        notes.append("call order taken from the journal: exact for sequential and parallel shapes")
    wasted = [fate.key for fate in fates if fate.had_result and fate.fate is not Fate.CACHED]
    known = [facts.tokens[key] for key in wasted if key in facts.tokens]
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


def _rekeyed_by(call: Call, rerunning: list[Call], facts: ForecastInput) -> str | None:
    """The re-running call whose new result this call's prompt likely embeds.

    A call that re-runs may return something new; a later call whose prompt embeds
    the results of that call's group (its phase) then gets a new key. The prompt is
    compared with the string values the group's other calls returned.
    """
    prompt = facts.prompts.get(call.key)
    if not prompt:
        return None
    for earlier in rerunning:
        if earlier.phase is not None and earlier.phase == call.phase:
            continue
        group = [
            other
            for other in facts.fold.ordered_calls()
            if other is not call and (other.phase == earlier.phase or other is earlier)
        ]
        if reads_results_of(prompt, group):
            return earlier.label
    return None


def chain_differs(writer: tuple[int, int, int] | None, runner: tuple[int, int, int] | None) -> bool:
    """Whether the resuming CLI keys parallel calls differently from the journal's writer."""
    if writer is None or runner is None or writer == runner:
        return False
    families = {chain_family(writer), chain_family(runner)}
    return families != {"linear"} and families != {"slots"}


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
    facts = ForecastInput(
        fold=fold,
        order=order,
        order_source=source,
        script_returned=snapshot is not None,
        agent_count=snapshot.agent_count if snapshot else None,
    )
    if cli_version is not None and chain_differs(writer_version(run), cli_version):
        first = first_parallel_call(run)
        if first is not None:
            facts.chain_differs_from, facts.chain_differs_from_order = first
    if read_transcripts:
        rows = {row.agent_id: row for row in run.snapshot.rows} if run.snapshot else {}
        for call in order:
            agent = call.result_agent_id or (call.agent_ids[-1] if call.agent_ids else None)
            if not agent:
                continue
            path = os.path.join(run.folder.path, f"agent-{agent}.jsonl")
            prompt = agent_prompt(path)
            row = rows.get(agent)
            if prompt is None and row is not None and row.prompt_preview:
                prompt = row.prompt_preview
            if prompt:
                facts.prompts[call.key] = prompt
            spent = 0
            for attempt in call.agent_ids:
                used = agent_tokens(os.path.join(run.folder.path, f"agent-{attempt}.jsonl"))
                spent += used or 0
            facts.tokens[call.key] = spent
    return facts
