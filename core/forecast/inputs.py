"""The facts a forecast reads from a run: the calls in the order the resume keys them, when
each was keyed and ended, what they returned, and (read only when the walk asks) their
prompts and the tokens their earlier attempts spent (`gather`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from wftop.core.compared import compared
from wftop.core.forecast.keyorder import (
    Span,
    Timeline,
    chain_differs,
    journal_spans,
    keying_order,
    snapshot_spans,
)
from wftop.core.forecast.launchinfo import first_parallel_call, writer_version
from wftop.core.model import Run
from wftop.core.read.agent_transcript import agent_prompt, agent_tokens, transcript_path
from wftop.core.read.deepjson import DeepJson
from wftop.core.read.journal import Call, JournalFold
from wftop.core.read.snapshot import AgentRow


@compared
@dataclass(eq=False, repr=False)
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
    timelines: list[tuple[Mapping[str, Span], Timeline]] = field(
        default_factory=list, repr=False, compare=False
    )
    """The timelines made of spans (`timeline_of`); the forecasts of a plan share the list
    and their spans (`share_timelines`)."""

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

    def timeline_of(self, spans: Mapping[str, Span]) -> Timeline:
        """``Timeline(spans)``, made once for these very spans: its orderings sort every call
        (100,000 took 0.45 s), and a plan's forecasts of one run share them."""
        for made, timeline in self.timelines:
            if made is spans:
                return timeline
        timeline = Timeline(spans)
        self.timelines.append((spans, timeline))
        return timeline

    def share_timelines(self, other: ForecastInput) -> None:
        """Take ``other``'s spans and timelines: facts gathered from the same run's spans (a
        healed fold's, whose damaged run is ``other``'s), their forecasts walked in turn."""
        self.spans = other.spans = other.spans or journal_spans(other.damaged or other.fold)
        self.timelines = other.timelines

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
    if fold is not run.fold:  # the calls of the fold read, in that order
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
        errored={call.key for call in order if call.agent_ids and call.agent_ids[-1] in errored}
        if errored
        else set(),
    )
    if cli_version is not None and chain_differs(writer_version(run), cli_version):
        first = first_parallel_call(run)
        if first is not None:
            facts.chain_differs_from, facts.chain_differs_from_order = first
    if read_transcripts:
        facts.transcripts = CallTranscripts(run)
    return facts
