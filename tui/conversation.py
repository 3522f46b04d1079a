"""Agent transcript records → conversation items a person can read.

Pure: takes the parsed records of an ``agent-<id>.jsonl`` (from `wftop.core.read.jsonl`) and
returns plain dataclasses. Bookkeeping records (attachments, request shapes,
queue operations) are skipped; nothing here renders or reads files. Every string
is passed through the caller's `Redactor` and then the gate (`wftop.core.text.gate`: a
control character is shown, a title is one line) before it leaves this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from wftop.core.read.deepjson import layout
from wftop.core.text.gate import gate, gate_lines

FRAME_PREFIX = "[Workflow harness — "
COMPUTED_TASK = "[Workflow harness — computed task]"
FRAME_END = "The computed task text follows:"
INDENT = "  "

MAX_TEXT = 4000
"""Characters of one item shown; the rest is counted, not kept."""

MASK_SCAN = MAX_TEXT + 4096
"""Characters of one item's text masked: those shown and room for a secret that starts among
them to be whole. A transcript line may hold megabytes; masking all of it to show 4,000
characters cost 14 ms per row drawn for a 100 KB text."""

KIND_PROMPT = "prompt"
KIND_USER = "user"
KIND_TEXT = "text"
KIND_THINKING = "thinking"
KIND_TOOL_CALL = "tool_call"
KIND_TOOL_RESULT = "tool_result"
KIND_STRUCTURED = "structured_output"
KIND_API_ERROR = "api_error"
KIND_NOTE = "note"


@dataclass(frozen=True)
class Item:
    """One step of the conversation."""

    kind: str
    text: str
    title: str = ""
    """Tool name, error status, or a short label of the step."""
    line: int = 0
    """Line of the transcript the item came from."""
    is_error: bool = False
    cut: int = 0
    """Characters left out of ``text``."""


def strip_framing(text: str) -> tuple[str, bool]:
    """Undo the harness framing of a computed prompt.

    The first user message of a workflow agent reads ``[Workflow harness —
    computed task] … The computed task text follows:`` and then the prompt with
    every line indented by two spaces (an ``[Workflow harness — automated
    trigger]`` line may come first). Returns the prompt as the script wrote it
    and whether framing was found; text without framing comes back unchanged.
    """
    lines = text.split("\n")
    at = 0
    while at < len(lines) and lines[at].startswith(FRAME_PREFIX):
        if lines[at].startswith(COMPUTED_TASK):
            break
        at += 1
    if at >= len(lines) or not lines[at].startswith(COMPUTED_TASK):
        return text, False
    head = lines[at]
    end = head.find(FRAME_END)
    rest = [head[end + len(FRAME_END) :].strip()] if end >= 0 else []
    if rest == [""]:
        rest = []
    body = [line[len(INDENT) :] if line.startswith(INDENT) else line for line in lines[at + 1 :]]
    return "\n".join(rest + body).strip("\n"), True


def _clip(text: str, limit: int = MAX_TEXT) -> tuple[str, int]:
    if len(text) <= limit:
        return text, 0
    return text[:limit], len(text) - limit


def _masked_clip(text: str, mask: Callable[[str], str]) -> tuple[str, int]:
    """The shown head of ``text``, masked, and how many characters were left out.

    Only the first `MASK_SCAN` characters are masked: what lies beyond is never shown."""
    shown, cut = _clip(mask(text[:MASK_SCAN]))
    return shown, cut + max(0, len(text) - MASK_SCAN)


def _json(value: Any) -> str:
    """A value laid out, or, too deep for that, its compact text under the note why."""
    text, note = layout(value)
    return text if note is None else f"({note})\n{text}"


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif isinstance(block, dict):
                parts.append(f"[{block.get('type', 'block')}]")
        return "\n".join(parts)
    return "" if content is None else _json(content)


def conversation(
    records: Iterable[tuple[int, dict[str, Any]]],
    mask: Callable[[str], str],
    *,
    first_prompt_seen: bool = False,
) -> tuple[list[Item], bool]:
    """Conversation items of transcript records, in order.

    Args:
        records: (line number, record) pairs, as `wftop.core.read.jsonl.JsonlTail.read` gives them.
        mask: the secret masker every shown string goes through.
        first_prompt_seen: the prompt was already taken from earlier records
            (when following a file, batch after batch).

    Returns:
        The items, and whether the prompt has now been seen.
    """
    items: list[Item] = []

    def add(kind: str, text: str, title: str = "", line: int = 0, is_error: bool = False) -> None:
        shown, cut = _masked_clip(text, mask)
        items.append(Item(kind, gate_lines(shown), gate(mask(title)), line, is_error, cut))

    for line, record in records:
        kind = record.get("type")
        message = record.get("message")
        if kind not in ("user", "assistant") or not isinstance(message, dict):
            continue
        content = message.get("content")
        if kind == "user":
            if isinstance(content, str):
                if not first_prompt_seen:
                    prompt, _ = strip_framing(content)
                    add(KIND_PROMPT, prompt, "prompt", line)
                    first_prompt_seen = True
                else:
                    add(KIND_USER, content, "user", line)
                continue
            for block in content if isinstance(content, list) else []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_result":
                    add(
                        KIND_TOOL_RESULT,
                        _content_text(block.get("content")),
                        "result",
                        line,
                        block.get("is_error") is True,
                    )
                elif block.get("type") == "text":
                    add(KIND_USER, str(block.get("text", "")), "user", line)
            continue
        if record.get("isApiErrorMessage") is True:
            status = record.get("apiErrorStatus")
            title = "API error" + (f" {status}" if status is not None else "")
            error_type = record.get("apiErrorType") or record.get("error")
            if error_type:
                title += f" · {error_type}"
            add(KIND_API_ERROR, _content_text(content), title, line, True)
            continue
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            block_type = block.get("type")
            if block_type == "text":
                add(KIND_TEXT, str(block.get("text", "")), "assistant", line)
            elif block_type == "thinking":
                add(KIND_THINKING, str(block.get("thinking", "")), "thinking", line)
            elif block_type == "tool_use":
                name = str(block.get("name", "tool"))
                payload = _json(block.get("input"))
                if name == "StructuredOutput":
                    add(KIND_STRUCTURED, payload, "StructuredOutput", line)
                else:
                    add(KIND_TOOL_CALL, payload, name, line)
    return items, first_prompt_seen
