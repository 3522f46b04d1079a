"""Facts read on demand from agent transcripts (``agent-<id>.jsonl``).

Transcripts can be tens of megabytes; the run list never reads them. These
helpers read one when a view or a forecast asks, line by line.

An agent id comes from a journal or a session transcript, that is from disk: it becomes
part of a path only through `transcript_path`, which accepts the ids the CLI writes
(`AGENT_ID`) and nothing else, so a NUL or a ``/`` in one never reaches the file system.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Final

from wftop.core.read.jsonl import JsonlTail
from wftop.core.read.snapshot import parse_iso_time

AGENT_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,128}")
"""The agent ids the CLI writes (its journal's own validation: ASCII word characters)."""

FRAME_PREFIX = "[Workflow harness"
FRAME_END = "The computed task text follows:"
_FRAME_LINE = re.compile(r"^\[Workflow harness — [^\]]*\].*$")
USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)


def agent_id_problem(agent_id: object) -> str | None:
    """Why an agent id read from disk cannot name a transcript; None when it can."""
    if not isinstance(agent_id, str) or not agent_id:
        return "no agent id"
    if AGENT_ID.fullmatch(agent_id) is None:
        return f"agent id {agent_id!r} is not one the CLI writes ([A-Za-z0-9_-]+)"
    return None


def transcript_path(folder: str, agent_id: object) -> str | None:
    """``<folder>/agent-<id>.jsonl`` for a valid agent id (`agent_id_problem` finds none);
    None for any other value. Joined as `os.path.join` joins them, in a third of its time
    (a listing of 5,000 runs joins 35,000)."""
    if not isinstance(agent_id, str) or AGENT_ID.fullmatch(agent_id) is None:
        return None
    head = folder if not folder or folder.endswith(os.sep) else folder + os.sep
    return f"{head}agent-{agent_id}.jsonl"


def unframe(text: str) -> str:
    """The raw prompt a script gave ``agent()``, with the harness framing removed.

    2.1.332 opens the first user message with ``[Workflow harness — computed task] …
    The computed task text follows:`` and indents every line of the prompt by two
    spaces; older builds stored the raw prompt.
    """
    if not text.startswith(FRAME_PREFIX):
        return text
    lines = text.split("\n")
    body_start = 0
    for number, line in enumerate(lines):
        if _FRAME_LINE.match(line) or line.rstrip().endswith(FRAME_END):
            body_start = number + 1
            if line.rstrip().endswith(FRAME_END):
                break
    body = lines[body_start:]
    return "\n".join(line[2:] if line.startswith("  ") else line for line in body)


def message_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            str(block.get("text", ""))
            for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        ]
        return "\n".join(parts)
    return ""


def records(path: str) -> list[tuple[int, dict[str, Any]]]:
    return JsonlTail(path).read().records


def agent_prompt(path: str) -> str | None:
    """The raw prompt of an agent: its first user message, unframed."""
    tail = JsonlTail(path)
    for _, record in tail.read().records:
        if record.get("type") != "user":
            continue
        message = record.get("message")
        if isinstance(message, dict):
            text = message_text(message.get("content"))
            if text:
                return unframe(text)
    return None


@dataclass(frozen=True)
class AgentUsage:
    """What an agent's transcript says it used."""

    tokens: int
    """Input, output and cache tokens of its requests (each message counted once)."""
    tool_calls: int
    """``tool_use`` blocks it wrote (each block id once)."""
    duration_ms: int | None
    """From its first to its last timestamped record; None with fewer than two."""


def agent_usage(path: str) -> AgentUsage | None:
    """An agent's usage from its transcript; None when the file cannot be read.

    Streaming writes several records per message with partial counts, so each usage field
    keeps its largest value per ``message.id``.
    """
    batch = JsonlTail(path).read()
    if batch.problems and not batch.records:
        return None
    per_message: dict[str, dict[str, int]] = {}
    tools: set[str] = set()
    first = last = None
    for _, record in batch.records:
        moment = parse_iso_time(record.get("timestamp"))
        if moment is not None:
            first = moment if first is None else min(first, moment)
            last = moment if last is None else max(last, moment)
        message = record.get("message")
        if record.get("type") != "assistant" or not isinstance(message, dict):
            continue
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_use":
                tools.add(str(block.get("id") or len(tools)))
        usage = message.get("usage")
        if not isinstance(usage, dict):
            continue
        ident = str(message.get("id") or record.get("uuid") or len(per_message))
        best = per_message.setdefault(ident, {})
        for name in USAGE_FIELDS:
            value = usage.get(name)
            if isinstance(value, int) and value > best.get(name, 0):
                best[name] = value
    return AgentUsage(
        tokens=sum(sum(fields.values()) for fields in per_message.values()),
        tool_calls=len(tools),
        duration_ms=round((last - first) * 1000)
        if first is not None and last is not None and last > first
        else None,
    )


def agent_tokens(path: str) -> int | None:
    """Tokens an agent's requests used (`agent_usage`); None when the file cannot be read."""
    usage = agent_usage(path)
    return usage.tokens if usage is not None else None
