"""Salvage a run when a resume cannot help: every completed call's result from the
journal, and the last assistant text of each call that died, in one document."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from wftop.core.calls import State, call_states, error_json
from wftop.core.cost.runs import calls_spend
from wftop.core.cost.tokens import NOTHING, Spend
from wftop.core.cost.usage import Spends
from wftop.core.forensics.limits import LAST_TEXT_CHARS, MAX_WORKER_TRANSCRIPT_BYTES
from wftop.core.index.coldpass import ColdPass, SessionFacts
from wftop.core.index.reader import RunReader
from wftop.core.model import Run
from wftop.core.read.agent_transcript import agent_id_problem, transcript_path
from wftop.core.read.deepjson import compact, depth_note, dumps, layout
from wftop.core.read.discovery import find_run_folders
from wftop.core.read.errors import cause_words
from wftop.core.read.failures import Failure
from wftop.core.read.jsonl import Problem, read_all
from wftop.core.read.lineverdict import DEFAULT_MAX_LINE_BYTES
from wftop.core.read.runfolder import RunFolder
from wftop.core.system.procs import ProcessTable
from wftop.core.text.gate import gate, gate_lines
from wftop.core.text.redact import redact


class RunNotFound(Exception):
    """No run folder with that id under the roots."""


@dataclass(frozen=True)
class SalvagedCall:
    label: str
    phase: str | None
    state: str
    """The call's `wftop.core.calls.State`: done, cached, failed, dead or running."""
    attempts: int
    agent_id: str | None
    result: Any = None
    """The journal's result, for a call that returned."""
    last_text: str | None = None
    """The last assistant text of the latest attempt, for a call that did not."""
    transcript: str | None = None
    """The latest attempt's transcript, when there is one on disk."""
    failure: Failure | None = None
    spend: Spend = NOTHING
    """What its attempts spent, from their transcripts."""

    @property
    def result_note(self) -> str | None:
        """Why the result is written compact (it nests too deep to lay out), or None."""
        return depth_note(self.result)

    def to_json(self) -> dict[str, Any]:
        return {
            **self.spend.to_json(),
            "label": self.label,
            "phase": self.phase,
            "state": self.state,
            "attempts": self.attempts,
            "agent_id": self.agent_id,
            "result": compact(self.result),
            "result_note": self.result_note,
            "error": None if self.failure is None else error_json(self.failure),
            "last_text": self.last_text,
            "transcript": self.transcript,
        }


@dataclass
class Salvage:
    run_id: str
    session_id: str
    journal: str | None
    """None when the run's journal is not on disk."""
    name: str | None
    snapshot_status: str | None
    status: str = ""
    """The run's status as ``ls`` shows it (``partial`` for one that completed with failures)."""
    unreadable_reason: str | None = None
    """Why its journal cannot be read (``status: unreadable``): nothing is salvaged."""
    calls: list[SalvagedCall] = field(default_factory=list)
    also_in: list[str] = field(default_factory=list)
    """Other sessions holding a copy of the same run id."""
    problems: list[Problem] = field(default_factory=list)
    spend: Spend = NOTHING
    """What every call's attempts spent."""
    session_spend: Spend | None = None
    """What the session's own turns spent (None: its transcript is gone)."""

    @property
    def returned(self) -> int:
        return sum(1 for call in self.calls if call.state in RETURNED)

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "session_id": self.session_id,
            "journal": self.journal,
            "name": self.name,
            "status": self.status,
            "unreadable_reason": self.unreadable_reason,
            "snapshot_status": self.snapshot_status,
            "returned": self.returned,
            **self.spend.to_json(),
            "session_cost_usd": None
            if self.session_spend is None
            else self.session_spend.to_json()["cost_usd"],
            "calls": [call.to_json() for call in self.calls],
            "also_in_sessions": self.also_in,
            "problems": [str(problem) for problem in self.problems],
        }


RETURNED = (State.DONE.value, State.CACHED.value)


def last_assistant_text(path: str) -> str | None:
    """The text of the newest assistant record that has any, cut to a bounded length."""
    try:
        if os.path.getsize(path) > MAX_WORKER_TRANSCRIPT_BYTES:
            return None
    except OSError:
        return None
    last = None
    for _, record in read_all(path).records:
        if record.get("type") != "assistant" or record.get("isApiErrorMessage") is True:
            continue
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        parts = []
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                if block["text"].strip():
                    parts.append(block["text"])
            elif block.get("type") == "tool_use" and block.get("name") == "StructuredOutput":
                parts.append(dumps(block.get("input")).decode())
        if parts:
            last = "\n".join(parts)
    if last is None:
        return None
    return last if len(last) <= LAST_TEXT_CHARS else last[:LAST_TEXT_CHARS] + "…"


def find_run(run_id: str, roots: list[str]) -> tuple[RunFolder, list[RunFolder]]:
    """The copy of a run with the newest journal, and the other copies."""
    found: list[RunFolder] = []
    for root in roots:
        folders, _ = find_run_folders(root)
        found.extend(folder for folder in folders if folder.run_id == run_id)
    if not found:
        raise RunNotFound(f"no run {run_id} under the roots")

    def mtime(folder: RunFolder) -> float:
        try:
            return os.path.getmtime(folder.journal)
        except OSError:
            return 0.0

    found.sort(key=lambda folder: (-mtime(folder), folder.path))
    return found[0], found[1:]


def read_run(
    folder: RunFolder, others: list[RunFolder], processes: ProcessTable | None = None
) -> Run:
    """The run of ``folder`` as every surface reads it, with every result kept whole."""
    cold = ColdPass.of([folder.root], [folder, *others], processes=processes)
    facts = SessionFacts()
    context = cold.context(facts)
    reader = RunReader(folder, keep_bytes=DEFAULT_MAX_LINE_BYTES, keep_total=None)
    reader.refresh(owner_alive=context.owner(folder).may_be_alive, listing=facts.scripts)
    return reader.run(context)


def salvage(
    folder: RunFolder,
    others: list[RunFolder] | None = None,
    processes: ProcessTable | None = None,
) -> Salvage:
    run = read_run(folder, others or [], processes)
    snapshot = run.snapshot
    result = Salvage(
        run_id=folder.run_id,
        session_id=folder.session_id,
        journal=None if run.journal_missing else folder.journal,
        name=run.name,
        snapshot_status=snapshot.status if snapshot else None,
        status=run.shown_status,
        unreadable_reason=run.unreadable_reason,
        also_in=[other.session_id for other in others or []],
        problems=list(run.problems),
    )
    spends = Spends()
    spent = calls_spend(folder.path, run.fold.ordered_calls(), spends)
    result.spend = spent.total
    result.session_spend = spends.of(folder.transcript)
    for view in call_states(run):
        call = view.call
        agent_id = call.agent_ids[-1] if call.agent_ids else None
        if view.state.value in RETURNED:
            result.calls.append(
                SalvagedCall(
                    call.label,
                    call.phase,
                    view.state.value,
                    call.attempts,
                    call.result_agent_id or agent_id,
                    result=call.result,
                    spend=spent.of(call),
                )
            )
            continue
        path = transcript_path(folder.path, agent_id)
        exists = path is not None and os.path.isfile(path)
        why = agent_id_problem(agent_id) if agent_id else None
        if why is not None:
            reason = f"the transcript of {call.label!r} is not readable: {why}"
            result.problems.append(Problem(folder.journal, call.last_line, reason))
        result.calls.append(
            SalvagedCall(
                call.label,
                call.phase,
                view.state.value,
                call.attempts,
                agent_id,
                last_text=last_assistant_text(path) if path and exists else None,
                transcript=path if exists else None,
                failure=view.failure,
                spend=spent.of(call),
            )
        )
    return result


def spend_line(spend: Spend) -> str:
    """``$0.1316 · 16,540 tokens``, ``$? (claude-foo unpriced) · 360 tokens``, or ``≥ $0.0131
    · 1,540 tokens (1 transcript missing: at least this)``."""
    return f"{spend.dollars_text()} · {spend.tokens.total:,} tokens{spend.missing_note}"


LAST_WORDS = {
    State.FAILED.value: "Its transcript's last words (before it failed)",
    State.DEAD.value: "Last assistant text (it died before returning)",
    State.RUNNING.value: "Last assistant text so far (it is still running)",
}


class Block(str):
    """Text of several lines in a document (a result, last words): its lines are kept."""


def to_markdown(found: Salvage, mask: Callable[[str], str] = redact) -> str:
    """The salvage as one Markdown document, each part masked with ``mask`` and then gated
    (`wftop.core.text.gate`): a result, an error's evidence or the last words keep their
    lines and tabs, every other line stays one line whatever its text holds."""
    title = found.name or found.run_id
    lines = [
        f"# Salvage of {title} ({found.run_id})",
        "",
        f"- session: {found.session_id}",
        f"- journal: {found.journal or 'not on disk (the calls are what the snapshot tells)'}",
        f"- calls: {len(found.calls)}, returned: {found.returned}",
        f"- spent by its calls: {spend_line(found.spend)}",
    ]
    lines.append(f"- status: {found.status}")
    if found.unreadable_reason:
        lines.append(f"- unreadable: {found.unreadable_reason}; nothing can be salvaged")
    if found.session_spend is not None:
        lines.append(f"- spent by the session's own turns: {spend_line(found.session_spend)}")
    if found.snapshot_status:
        lines.append(f"- last snapshot status: {found.snapshot_status}")
    if found.also_in:
        lines.append(f"- copies in other sessions: {', '.join(found.also_in)}")
    for number, call in enumerate(found.calls, 1):
        phase = f" · {call.phase}" if call.phase else ""
        lines += ["", f"## {number}. {call.label}{phase} — {call.state}", ""]
        lines.append(
            f"attempts: {call.attempts}; agent: {call.agent_id or '-'}; "
            f"spent: {spend_line(call.spend)}"
        )
        lines.append("")
        if call.failure is not None:
            failure = call.failure
            lines.append(f"Error: {cause_words(failure.kind)} ({failure.source})")
            lines += ["", "```", Block(failure.evidence or "nothing recorded why"), "```", ""]
        if call.state in RETURNED:
            body, note = (
                (call.result, None) if isinstance(call.result, str) else layout(call.result)
            )
            heading = f"Result (journal; {note}):" if note else "Result (journal):"
            lines += [heading, "", "```", Block(body), "```"]
        elif call.last_text:
            lines += [f"{LAST_WORDS[call.state]}:", "", "```", Block(call.last_text), "```"]
        elif call.transcript is None:
            lines.append("Nothing to salvage: its agent left no transcript.")
        elif call.failure is not None:
            lines.append("Nothing to salvage: its transcript has no assistant text but the error.")
        else:
            lines.append("Nothing to salvage: no assistant text in its transcript.")
    shown = (
        gate_lines(mask(line)) if isinstance(line, Block) else gate(mask(line)) for line in lines
    )
    return "\n".join(shown) + "\n"
