"""One pass over a session transcript: launches, completions, errors and prompts.

Launches come only from ``user`` records' tool results (the CLI also copies them
into ``api-request-blob`` records, which are not read). Completions come from all
three record shapes that carry ``<task-notification>`` text, plus successful
``TaskStop`` results, de-duplicated.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from wftop.core.forensics.receipts import (
    Completion,
    Launch,
    fill_from_input,
    fill_from_result,
    parse_notifications,
    parse_receipt,
    parse_taskstop,
)
from wftop.core.read.errors import INTERRUPT_MARKER, ErrorEvent, api_error_event, message_text
from wftop.core.read.jsonl import Problem, read_all

_NOT_A_PROMPT = ("<task-notification", "<system-reminder>", "<local-command", "<command-")


@dataclass
class TranscriptFacts:
    """What one transcript says, in record order."""

    path: str
    session_id: str
    cwd: str | None = None
    launches: list[Launch] = field(default_factory=list)
    completions: list[Completion] = field(default_factory=list)
    events: list[ErrorEvent] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    records: int = 0
    last_line: int = 0
    last_prompt_line: int = 0
    """Line of the newest prompt a person (or the SDK host) typed."""
    last_type: str | None = None
    last_timestamp: str | None = None
    tail_start_line: int = 0
    """Line of the first record of the tail searched for causes."""

    def completions_of(self, launch: Launch) -> list[Completion]:
        return [
            done
            for done in self.completions
            if done.task_id == launch.worker_id
            or (launch.tool_use_id is not None and done.tool_use_id == launch.tool_use_id)
        ]


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


class _Walker:
    def __init__(self, facts: TranscriptFacts) -> None:
        self.facts = facts
        self.tool_uses: dict[str, tuple[str, object]] = {}
        self.seen_launches: set[tuple[str, str]] = set()
        self.seen_done: set[tuple[str, str, str]] = set()

    def add_completion(self, done: Completion) -> None:
        key = (done.task_id, done.status, done.summary)
        if key not in self.seen_done:
            self.seen_done.add(key)
            self.facts.completions.append(done)

    def add_notifications(self, text: str, line: int, source: str) -> None:
        for done in parse_notifications(text, line, source):
            self.add_completion(done)

    def feed(self, line: int, record: dict[str, Any]) -> None:
        facts = self.facts
        kind = record.get("type")
        facts.records += 1
        facts.last_line = line
        facts.last_type = kind if isinstance(kind, str) else None
        facts.last_timestamp = _str(record.get("timestamp")) or facts.last_timestamp
        if facts.cwd is None:
            facts.cwd = _str(record.get("cwd"))
        if kind == "assistant":
            self.assistant(line, record)
        elif kind == "user":
            self.user(line, record)
        elif kind == "queue-operation":
            self.add_notifications(_str(record.get("content")) or "", line, "queue-operation")
        elif kind == "attachment":
            attachment = record.get("attachment")
            if isinstance(attachment, dict) and attachment.get("type") == "queued_command":
                self.add_notifications(_str(attachment.get("prompt")) or "", line, "attachment")
        elif kind == "system" and record.get("subtype") == "api_error":
            self.retry(line, record)

    def assistant(self, line: int, record: dict[str, Any]) -> None:
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    tool_id = _str(block.get("id"))
                    if tool_id:
                        self.tool_uses[tool_id] = (str(block.get("name")), block.get("input"))
        event = api_error_event(self.facts.path, line, record)
        if event is not None:
            self.facts.events.append(event)

    def retry(self, line: int, record: dict[str, Any]) -> None:
        error = record.get("error")
        if not isinstance(error, dict):
            return
        connection = error.get("connection")
        text = _str(error.get("formatted")) or _str(error.get("message")) or ""
        message = _str(error.get("message"))
        if message and message not in text:
            text = f"{text} ({message})"
        self.facts.events.append(
            ErrorEvent(
                path=self.facts.path,
                line=line,
                kind="retry",
                text=text,
                status=status if type(status := error.get("status")) is int else None,
                connection=_str(connection.get("code")) if isinstance(connection, dict) else None,
                timestamp=_str(record.get("timestamp")),
                retry_in_ms=wait if type(wait := record.get("retryInMs")) is int else None,
            )
        )

    def user(self, line: int, record: dict[str, Any]) -> None:
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        meta = record.get("isMeta") is True or record.get("isCompactSummary") is True
        origin = record.get("origin")
        from_task = isinstance(origin, dict) and origin.get("kind") == "task-notification"
        if isinstance(content, str):
            self.user_text(line, record, content, meta or from_task)
            return
        if not isinstance(content, list):
            return
        texts = []
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_result":
                self.tool_result(line, record, block)
            elif isinstance(block.get("text"), str):
                texts.append(block["text"])
        if texts:
            self.user_text(line, record, "\n".join(texts), meta or from_task)

    def user_text(self, line: int, record: dict[str, Any], text: str, meta: bool) -> None:
        self.add_notifications(text, line, "user")
        stripped = text.lstrip()
        if stripped.startswith(INTERRUPT_MARKER):
            self.facts.events.append(
                ErrorEvent(
                    self.facts.path,
                    line,
                    "interrupt",
                    stripped.splitlines()[0],
                    timestamp=_str(record.get("timestamp")),
                )
            )
        elif not meta and stripped and not stripped.startswith(_NOT_A_PROMPT):
            self.facts.last_prompt_line = line

    def tool_result(self, line: int, record: dict[str, Any], block: dict[str, Any]) -> None:
        tool_use_id = _str(block.get("tool_use_id"))
        text = message_text(block.get("content"))
        name, tool_input = self.tool_uses.get(tool_use_id or "", (None, None))
        if name == "TaskStop":
            stopped = parse_taskstop(text, line, tool_use_id)
            if stopped is not None:
                self.add_completion(stopped)
            return
        launch = parse_receipt(text, line, tool_use_id)
        if launch is None or launch.key in self.seen_launches:
            return
        self.seen_launches.add(launch.key)
        launch.timestamp = _str(record.get("timestamp"))
        fill_from_result(launch, record.get("toolUseResult"))
        fill_from_input(launch, name, tool_input)
        self.facts.launches.append(launch)


def read_transcript(path: str, *, tail_records: int) -> TranscriptFacts:
    """Read a whole session transcript once (complete lines only)."""
    stem = os.path.basename(path)
    facts = TranscriptFacts(path=path, session_id=stem[:-6] if stem.endswith(".jsonl") else stem)
    batch = read_all(path)
    facts.problems.extend(batch.problems)
    walker = _Walker(facts)
    for line, record in batch.records:
        walker.feed(line, record)
    tail = batch.records[-tail_records:] if tail_records > 0 else []
    facts.tail_start_line = tail[0][0] if tail else facts.last_line + 1
    return facts


def read_worker_events(path: str, *, tail_records: int) -> list[ErrorEvent]:
    """API errors and interrupts in the tail of a worker's own transcript."""
    facts = read_transcript(path, tail_records=tail_records)
    return [event for event in facts.events if event.line >= facts.tail_start_line]
