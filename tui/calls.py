"""A run's calls as rows for the run screen, and the parity explained in words.

Pure: joins the journal fold (keys, attempts, results) with the snapshot's
agent rows (tokens, tool calls, duration, cached, error) by agent id, and names
each attempt: the latest one carries the call's state; earlier ones are orphan
``started`` lines (the agent never returned) that a later attempt respawned. `Built`
holds a run's rows with what they were made from (`Inputs`), so the run screen makes them
again only when one of those changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import orjson

from wftop.core.calls import CallView, State, call_states, dominant_failure, open_state
from wftop.core.cost.tokens import Spend
from wftop.core.cost.usage import Spends
from wftop.core.model import PARTIAL, Run, Status
from wftop.core.read.agent_transcript import AgentUsage, transcript_path
from wftop.core.read.deepjson import dumps
from wftop.core.read.errors import cause_words
from wftop.core.read.failures import Failure
from wftop.core.read.journal import Call, CallState
from wftop.core.read.lineverdict import ELIDED
from wftop.core.read.snapshot import AgentRow
from wftop.core.text.gate import gate, shown
from wftop.core.text.redact import redact
from wftop.tui.format import count, one_line

STATE_GLYPHS = {
    "done": "✔",
    "failed": "✗",
    "running": "░",
    "dead": "✖",
    "cached": "↺",
    "orphan": "↳",
}


@dataclass(frozen=True)
class PhaseRow:
    title: str
    calls: int
    folded: bool = False

    @property
    def key(self) -> str:
        return f"phase:{self.title}"


@dataclass(frozen=True, slots=True)
class CallRow:
    key: str
    label: str
    state: str
    """A call's `wftop.core.calls.State` (done, failed, running, dead, cached); an earlier
    attempt's done, failed or orphan."""
    attempts: int
    agent_id: str
    duration_ms: int | None = None
    tokens: int | None = None
    tool_calls: int | None = None
    preview: str = ""
    attempt: int = 0
    """0 for the call itself; n for its n-th (earlier) attempt."""
    spend: Spend | None = None
    """What this attempt's agent spent, from its transcript (None: not read yet)."""


PREVIEW_SCAN = 4096
"""Characters of a result masked for its preview: the 200 shown and room for a secret that
starts among them to be whole (a result may be megabytes; the preview is one line)."""


def _preview(value: object) -> str:
    """One line of a result: ``value`` is `Call.packed_result` (an object or array as its
    compact JSON, which is what the preview shows of it, so it is not parsed)."""
    if value is None:
        return ""
    if value == ELIDED:
        return "(result not kept in the run list: J shows its journal line)"
    if isinstance(value, str):
        text = value
    elif isinstance(value, bytes):  # a character cut at the end is left out
        text = value[: 4 * PREVIEW_SCAN].decode("utf-8", "ignore")
    else:
        try:
            text = orjson.dumps(value).decode()
        except TypeError:  # a part nested too deep, held as its text (or not JSON at all)
            try:
                text = dumps(value).decode()
            except TypeError:
                text = repr(value)
    line = one_line(redact(text[:PREVIEW_SCAN]))
    if len(text) > PREVIEW_SCAN and not line.endswith("…"):
        line = one_line(line + " …")
    return gate(line)


def failure_preview(failure: Failure) -> str:
    """A failed call's result cell: its kind in words, and what says so."""
    said = (failure.evidence or "nothing recorded why").split(": ", 1)[-1]
    return gate(one_line(redact(f"{cause_words(failure.kind)} · {said}")))


def _facts(row: AgentRow | None, used: AgentUsage | None) -> tuple[int | None, ...]:
    """(time in ms, tokens, tool calls) of an agent: from the snapshot's progress row, else
    from what its transcript says (`wftop.core.read.usage`), else unknown."""
    source = row if row is not None else used
    if source is None:
        return (None, None, None)
    return (source.duration_ms, source.tokens, source.tool_calls)


def agent_spends(run: Run, spends: Spends) -> dict[str, Spend]:
    """What each agent of the run spent, from its transcript (read off the UI loop; ``spends``
    keeps what it read, so a run read again reads only the transcripts that changed)."""
    found = {}
    for call in run.fold.ordered_calls():
        for agent_id in call.agent_ids:
            path = transcript_path(run.folder.path, agent_id)
            spent = spends.of(path) if path else None
            if spent is not None:
                found[agent_id] = spent
    return found


def usage_wanted(run: Run) -> list[str]:
    """The agents of a run whose time and tokens only their transcripts can tell (no
    progress row in a snapshot), oldest first."""
    rows = {row.agent_id for row in run.snapshot.rows} if run.snapshot else set()
    wanted = (agent_id for call in run.fold.ordered_calls() for agent_id in call.agent_ids)
    return [agent_id for agent_id in wanted if agent_id and agent_id not in rows]


def call_rows(
    run: Run,
    usage: Mapping[str, AgentUsage] | None = None,
    spends: Mapping[str, Spend] | None = None,
) -> list[PhaseRow | CallRow]:
    """Phase headers, then each call, then its earlier attempts, in journal order.

    Time, tokens and tool calls come from the snapshot's progress rows, else from ``usage``
    (agent id → what its transcript says, read off the UI loop: `usage_wanted`); dollars
    from ``spends`` (agent id → what its transcript's messages cost, read off the loop too).
    Labels,
    phase titles and previews are masked (`wftop.core.text.redact`) and gated
    (`wftop.core.text.gate`) before they are cut.
    """
    usage, spends = usage or {}, spends or {}
    by_agent = {row.agent_id: row for row in run.snapshot.rows} if run.snapshot else {}
    phases: dict[str, list[CallView]] = {}
    for view in call_states(run):
        phases.setdefault(view.call.phase or "(no phase)", []).append(view)
    rows: list[PhaseRow | CallRow] = []
    for title, members in phases.items():
        if len(phases) > 1 or title != "(no phase)":
            rows.append(PhaseRow(shown(title), len(members)))
        for view in members:
            call = view.call
            latest = call.agent_ids[-1] if call.agent_ids else ""
            row = by_agent.get(latest)
            state = view.state.value
            if view.failure is not None:
                preview = failure_preview(view.failure)
            elif call.has_result:
                preview = _preview(call.packed_result)
            elif row is not None and (row.error or row.result_preview):
                preview = gate(one_line(redact(row.error or row.result_preview or "")))
            else:
                preview = ""
            took, tokens, tools = _facts(row, usage.get(latest))
            rows.append(
                CallRow(
                    key=f"call:{call.key}",
                    label=shown(call.label),
                    state=state,
                    attempts=call.attempts,
                    agent_id=latest,
                    duration_ms=took,
                    tokens=tokens,
                    tool_calls=tools,
                    preview=preview,
                    spend=spends.get(latest),
                )
            )
            if len(call.agent_ids) < 2:  # as nearly always: no earlier attempt
                continue
            for number, (agent_id, kind) in enumerate(earlier_attempts(call), start=1):
                took, tokens, tools = _facts(by_agent.get(agent_id), usage.get(agent_id))
                rows.append(
                    CallRow(
                        key=f"attempt:{call.key}:{number}",
                        label=f"try {number}",
                        state={"returned": "done"}.get(kind, kind),
                        attempts=number,
                        agent_id=agent_id,
                        duration_ms=took,
                        tokens=tokens,
                        tool_calls=tools,
                        preview=ATTEMPT_NOTES[kind],
                        attempt=number,
                        spend=spends.get(agent_id),
                    )
                )
    return rows


ATTEMPT_NOTES = {
    "failed": "failed; a later attempt took over",
    "returned": "returned; a resume ran the call again (a re-run: its tokens spent twice)",
    "orphan": "started, never returned; respawned by a later attempt",
}


def earlier_attempts(call: Call) -> list[tuple[str, str]]:
    """(agent id, ``returned``, ``failed`` or ``orphan``) of each attempt before the latest.

    ``returned``: the attempt returned and a later one re-ran the call. The fold counts
    failed lines per call, not per attempt: the failures not carried by the latest attempt
    are given to the earliest attempts that did not return.
    """
    returned = set(call.returned_agent_ids)
    own = 1 if call.state is CallState.FAILED else 0
    failures = max(0, call.failures_seen - own)
    out = []
    for agent_id in call.agent_ids[:-1]:
        if agent_id and agent_id in returned:
            out.append((agent_id, "returned"))
        elif failures:
            failures -= 1
            out.append((agent_id, "failed"))
        else:
            out.append((agent_id, "orphan"))
    return out


def parity_lines(run: Run) -> list[str]:
    """The started / returned / failed line counts, and what accounts for the gap."""
    fold = run.fold
    views = call_states(run)
    calls = [view.call for view in views]
    orphans = sum(kind == "orphan" for call in calls for _, kind in earlier_attempts(call))
    states = [view.state.value for view in views]
    done = states.count("done")
    failed = states.count("failed")
    open_calls = [view.label for view in views if view.state in (State.RUNNING, State.DEAD)]
    counted = f"{len(calls)} calls: {done} done"
    if failed:
        counted += f", {failed} failed"
    if open_calls:
        counted += f", {len(open_calls)} open"
    lines = [
        f"parity   {fold.started_lines} started · {fold.result_lines} returned · "
        f"{fold.failed_lines} failed lines → {counted}"
        if not run.journal_missing
        else f"parity   no journal lines → {counted}"
    ]
    gap = []
    if orphans:
        gap.append(f"{orphans} orphan started line{'s' * (orphans != 1)} (respawned later)")
    if open_calls:
        word = "dead worker" if open_state(run) is State.DEAD else "running"
        gap.append(f"{word}: {', '.join(open_calls)}")
    # a result line per attempt that returned; any more repeats one (a re-run's is its own)
    extra_results = fold.result_lines - sum(len(set(call.returned_agent_ids)) for call in calls)
    if extra_results > 0:
        gap.append(f"{extra_results} repeated result line{'s' * (extra_results != 1)}")
    if fold.keyless_lines:
        gap.append(f"{fold.keyless_lines} lines without key (old CLI; matched by agent id)")
    if gap:
        lines.append("gap      " + " · ".join(gap))
    return lines


def partial_line(run: Run) -> list[str]:
    """For a run that completed with failed calls (``partial``): which, and what resumes them."""
    if run.shown_status != PARTIAL:
        return []
    failed = run.failed_labels
    return [
        f"partial  completed with {len(failed)} failed call{'s' * (len(failed) != 1)}: "
        f"{', '.join(failed)} · r: the plan forecasts what each strategy runs again"
    ]


def fold_phases(rows: list[PhaseRow | CallRow], folded: set[str]) -> list[PhaseRow | CallRow]:
    """``rows`` without the calls of the phases whose key is in ``folded`` (``enter`` on a
    phase row folds it); a folded phase's row says so."""
    if not folded:
        return rows
    out: list[PhaseRow | CallRow] = []
    hiding = False
    for row in rows:
        if isinstance(row, PhaseRow):
            hiding = row.key in folded
            out.append(PhaseRow(row.title, row.calls, folded=True) if hiding else row)
        elif not hiding:
            out.append(row)
    return out


def rerun_line(run: Run) -> list[str]:
    """The calls a resume ran again after they had returned, and the tokens that cost."""
    again = [call.label for call in run.fold.ordered_calls() if call.started_after_result]
    if not again:
        return []
    spent = run.rerun_tokens
    tokens = "tokens unknown (no transcript)" if spent is None else f"{count(spent)} tokens"
    plural = "s" * (len(again) != 1)
    return [
        f"re-runs  {len(again)} call{plural} ran again after returning "
        f"({', '.join(again)}): {tokens} spent twice"
    ]


def shape_lines(run: Run) -> list[str]:
    """What the script threw (a failed run), where the calls come from when the journal is
    not on disk, and why it cannot be read when it is there and cannot."""
    lines = []
    if run.unreadable_reason is not None:
        lines.append(f"journal  unreadable: {run.unreadable_reason}; its calls are unknown")
    if run.journal_missing:
        source = "the snapshot's rows" if run.snapshot is not None else "the agents' sidecars"
        lines.append(f"journal  not on disk: the calls are {source}; nothing to resume")
    if run.status is Status.FAILED:
        thrown = dominant_failure(replace(run, failures=()))
        if thrown is not None and thrown.evidence:
            lines.append("threw    " + one_line(redact(thrown.evidence.split(": ", 1)[-1])))
    return lines


def call_facts(run: Run) -> list[str]:
    """The lines of the summary that count the calls: parity, failures, re-runs, and what
    the script threw."""
    return [*parity_lines(run), *partial_line(run), *rerun_line(run), *shape_lines(run)]


@dataclass(frozen=True, eq=False)
class Inputs:
    """What a run's rows are made from; the same inputs are the same objects (a `Run` compared
    field by field would compare its whole fold)."""

    run: Run
    usage: Mapping[str, AgentUsage] | None
    folded: frozenset[str]
    spends: Mapping[str, Spend] | None = None
    """What each agent spent (`agent_spends`), once read."""

    def same(self, other: Inputs | None) -> bool:
        return (
            other is not None
            and self.run is other.run
            and self.usage is other.usage
            and self.folded == other.folded
            and self.spends is other.spends
        )


@dataclass(frozen=True)
class Built:
    """A run's call rows and call counts, and what they were made from."""

    inputs: Inputs
    rows: list[PhaseRow | CallRow]
    facts: list[str]

    @property
    def run(self) -> Run:
        return self.inputs.run

    @classmethod
    def of(cls, inputs: Inputs) -> Built:
        rows = call_rows(inputs.run, inputs.usage, inputs.spends)
        rows = fold_phases(rows, set(inputs.folded))
        return cls(inputs, rows, call_facts(inputs.run))
