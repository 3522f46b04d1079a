"""What the mock reads from a ``/v1/messages`` body: its text, messages, tools, and the resume
or run command a user message holds (``wftop.mockapi.flow`` decides the answer from these).

Pure functions of the request body, so they can be unit-tested without a server.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

# Blocks the CLI itself puts into user messages; a resume request inside them is not a command.
INJECTED = re.compile(r"<(task-notification|system-reminder)\b.*?(?:</\1>|\Z)", re.S)
RESUME_COMMAND = re.compile(r"RESUME_WORKFLOW\s+runId=(\S+)(?:\s+scriptPath=(\S+))?")
RUN_ID_KEYED = re.compile(r"""resumeFromRunId["']?\s*[:=]\s*["']?(wf_[A-Za-z0-9_-]+)""")
RUN_ID_ANY = re.compile(r"\b(wf_[A-Za-z0-9_-]{3,})")
SCRIPT_KEYED = re.compile(
    r"""scriptPath["']?\s*[:=]\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([^\s,;})'"]+))"""
)
SCRIPT_ANY = re.compile(r"""(/[^\s'"`,;()]+?\.(?:js|mjs|cjs|ts))(?![\w.])""")
ARGS_KEYED = re.compile(r"""\bargs["']?\s*[:=]\s*(?=[\[{])""")


# ---------------------------------------------------------------- reading a request body


def all_text(value: Any) -> str:
    """Every string inside a JSON value, joined by newlines."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(all_text(v) for v in value)
    if isinstance(value, dict):
        return "\n".join(all_text(v) for v in value.values())
    return ""


def session_id_of(body: Mapping[str, Any]) -> str | None:
    """The CLI sends ``metadata.user_id`` = JSON text holding ``session_id``."""
    try:
        meta = json.loads((body.get("metadata") or {}).get("user_id") or "{}")
    except (ValueError, AttributeError):
        return None
    return meta.get("session_id") if isinstance(meta, dict) else None


def messages(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The conversation without ``role: system`` entries (some CLI builds append token notes)."""
    return [
        m for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") != "system"
    ]


def typed_blocks(msg: Mapping[str, Any], kind: str) -> list[dict[str, Any]]:
    content = msg.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if kind == "text" else []
    return [b for b in content or [] if isinstance(b, dict) and b.get("type") == kind]


def command_text(msg: Mapping[str, Any]) -> str:
    """What a user (or wftop) wrote: text blocks minus CLI-injected notifications/reminders."""
    text = "\n".join(str(b.get("text", "")) for b in typed_blocks(msg, "text"))
    return INJECTED.sub("", text)


def tool_names(body: Mapping[str, Any]) -> list[str]:
    return [t.get("name", "") for t in body.get("tools") or [] if isinstance(t, dict)]


def tool_use_name(body: Mapping[str, Any], tool_use_id: str | None) -> str | None:
    for m in messages(body):
        if m.get("role") == "assistant":
            for b in typed_blocks(m, "tool_use"):
                if b.get("id") == tool_use_id:
                    return b.get("name")
    return None


# ---------------------------------------------------------------- parsing commands


def matching_close(text: str, start: int) -> int | None:
    """Index just past the bracket that closes ``text[start]``, skipping JSON strings."""
    depth, in_string, escaped = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def parse_args_json(text: str) -> tuple[Any, str | None]:
    """(value, error) of the first JSON value after ``args:`` / ``args=``; (None, None) if none."""
    error = None
    for m in ARGS_KEYED.finditer(text):
        end = matching_close(text, m.end())
        if end is None:
            error = "args: unbalanced brackets"
            continue
        try:
            return json.loads(text[m.end() : end]), None
        except ValueError as exc:
            error = f"args: not JSON ({exc})"
    return None, error


def parse_script_path(text: str) -> str | None:
    m = SCRIPT_KEYED.search(text)
    if m:
        if m.group(1) is not None:
            try:
                return str(json.loads('"' + m.group(1) + '"'))
            except ValueError:
                return m.group(1)
        return m.group(2) if m.group(2) is not None else m.group(3)
    m = SCRIPT_ANY.search(text)
    return m.group(1) if m else None


def parse_resume_request(text: str) -> tuple[dict[str, Any], str | None] | None:
    """``({resumeFromRunId, scriptPath?, args?}, problem)`` for a resume request, else None.

    Understands ``RESUME_WORKFLOW runId=<id> scriptPath=<path>`` and any free text mentioning
    ``resumeFromRunId``, e.g. ``Resume the workflow run wf_x by calling Workflow({scriptPath:
    "/p/s.js", resumeFromRunId: "wf_x", args: {"k": 1}})``; a request to call
    ``Workflow({scriptPath: …})`` without a run id is answered as a fresh run of that script.
    """
    m = RESUME_COMMAND.search(text)
    if m:
        inp: dict[str, Any] = {"resumeFromRunId": m.group(1)}
        if m.group(2):
            inp["scriptPath"] = m.group(2)
    elif "resumeFromRunId" in text:
        run_id = RUN_ID_KEYED.search(text) or RUN_ID_ANY.search(text)
        if not run_id:
            return {}, "resumeFromRunId without a wf_ run id"
        inp = {"resumeFromRunId": run_id.group(1)}
        script = parse_script_path(text)
        if script:
            inp["scriptPath"] = script
    elif "Workflow({" in text and "scriptPath" in text:
        script = parse_script_path(text)
        if not script:
            return {}, "Workflow({scriptPath}) without a path"
        inp = {"scriptPath": script}  # a fresh run of a saved script, no cache
    else:
        return None
    args, problem = parse_args_json(text)
    if args is not None:
        inp["args"] = args
    return inp, problem
