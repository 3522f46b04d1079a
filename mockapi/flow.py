"""What the mock Messages API answers to one request (config keys: ``wftop.mockapi.server``).

Pure functions of the request body and the config, so they can be unit-tested without a server;
what a body holds is read by ``wftop.mockapi.request``.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from wftop.mockapi.request import (
    all_text,
    command_text,
    messages,
    parse_resume_request,
    tool_names,
    tool_use_name,
    typed_blocks,
)
from wftop.mockapi.schema import minimal_instance

AGENT_MARKER = re.compile(r"\[\[agent:([A-Za-z0-9_.-]+)\]\]")
COMPACT_SYSTEM = "tasked with summarizing conversations"
COMPACT_MARKERS = (
    "Please provide your summary based on the conversation so far",
    "an <analysis> block followed by a <summary> block",
)
DEFAULT_SUMMARY = (
    "<analysis>mock analysis</analysis>\n<summary>MOCK_SUMMARY The user asked for a "
    "background workflow of mock agents; it was launched and is still running. "
    "Pending: wait for its notification.</summary>"
)


@dataclass
class Plan:
    """The mock's answer: an HTTP error status, or content blocks; maybe after a delay or a hang."""

    kind: str
    agent: str | None = None
    attempt: int | None = None
    status: int = 200
    delay: float = 0.0
    hang: bool = False
    content: list[dict[str, Any]] = field(default_factory=list)
    stop_reason: str = "end_turn"
    workflow_input: dict[str, Any] | None = None
    note: str | None = None
    usage: dict[str, Any] | None = None
    """The ``usage`` to answer with (an agent's ``usage``), else the server's default."""
    model: str | None = None
    """The model to answer as (an agent's ``model``), else the one asked for."""


def text_plan(kind: str, text: str, **kw: Any) -> Plan:
    return Plan(kind, content=[{"type": "text", "text": text}], **kw)


def tool_plan(
    kind: str, name: str, tool_input: dict[str, Any], text: str | None = None, **kw: Any
) -> Plan:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    blocks.append(
        {
            "type": "tool_use",
            "id": "toolu_" + uuid.uuid4().hex[:24],
            "name": name,
            "input": tool_input,
        }
    )
    return Plan(kind, content=blocks, stop_reason="tool_use", **kw)


# ---------------------------------------------------------------- deciding


def is_compaction(body: Mapping[str, Any], system_text: str) -> bool:
    """Standalone summary request, or (what 2.1.332 ``-p`` sends) a fork of the main request whose
    last user message carries the summary instructions.  A bare <summary> tag is no signal: every
    <task-notification> has one."""
    if COMPACT_SYSTEM in system_text:
        return True
    convo = messages(body)
    last = convo[-1] if convo else {}
    return last.get("role") == "user" and any(
        k in all_text(last.get("content")) for k in COMPACT_MARKERS
    )


def decide(
    body: Mapping[str, Any], config: Mapping[str, Any], next_attempt: Callable[[str], int]
) -> Plan:
    """The answer to one ``/v1/messages`` body; ``next_attempt(agent)`` counts agent attempts."""
    system_text = all_text(body.get("system", ""))
    if is_compaction(body, system_text):
        return text_plan(
            "compact",
            config.get("compact_summary_text", DEFAULT_SUMMARY),
            delay=float(config.get("compact_delay_s", 0)),
        )
    convo = messages(body)
    first_user = next((m for m in convo if m.get("role") == "user"), {})
    marker = AGENT_MARKER.search(all_text(first_user.get("content"))) or AGENT_MARKER.search(
        system_text
    )
    if marker:
        return agent_plan(body, config, marker.group(1), next_attempt)
    if config.get("any_agent") and is_sub_agent(body, convo):
        return any_agent_plan(body, convo)
    if "Workflow" in tool_names(body) or any(
        _command_of(m) for m in convo if m.get("role") == "user"
    ):
        plan = main_plan(convo, config)
        plan.delay = plan.delay or float((config.get("main_delay_s") or {}).get(plan.kind, 0))
        return plan
    return text_plan("other", config.get("other_text", "Mock title"))


def per_attempt(value: Any, attempt: int, default: Any = None) -> Any:
    """A per-attempt setting: a list is indexed by attempt (1-based; the last entry repeats)."""
    if isinstance(value, list):
        return value[min(attempt, len(value)) - 1] if value else default
    return default if value is None else value


def agent_plan(
    body: Mapping[str, Any],
    config: Mapping[str, Any],
    agent: str,
    next_attempt: Callable[[str], int],
) -> Plan:
    convo = messages(body)
    last = convo[-1] if convo else {}
    if any(
        tool_use_name(body, tr.get("tool_use_id")) == "StructuredOutput"
        for tr in typed_blocks(last, "tool_result")
    ):
        return text_plan("agent_done", "done", agent=agent)
    spec = (config.get("agents") or {}).get(agent, {})
    attempt = next_attempt(agent)
    errors = spec.get("errors") or []
    status = errors[attempt - 1] if attempt <= len(errors) else spec.get("errors_forever")
    if status:
        return Plan(
            "agent_error",
            agent=agent,
            attempt=attempt,
            status=int(status),
            delay=float(per_attempt(spec.get("error_delay_s"), attempt, 0)),
        )
    result = spec.get("result", config.get("default_result") or {"agent": agent, "ok": True})
    if isinstance(result, dict):
        result = {"agent": agent, **result}
    hang = attempt in (spec.get("hang_attempts") or [])
    delay = float(per_attempt(spec.get("delay_s"), attempt, config.get("default_delay_s", 0)))
    names = tool_names(body)
    billed = {
        "usage": per_attempt(spec.get("usage"), attempt),
        "model": per_attempt(spec.get("model"), attempt),
    }
    if names and "StructuredOutput" not in names:
        return text_plan(
            "agent_text",
            json.dumps(result),
            agent=agent,
            attempt=attempt,
            delay=delay,
            hang=hang,
            **billed,
        )
    return tool_plan(
        "agent",
        "StructuredOutput",
        result,
        spec.get("text"),
        agent=agent,
        attempt=attempt,
        delay=delay,
        hang=hang,
        **billed,
    )


def is_sub_agent(body: Mapping[str, Any], convo: list[dict[str, Any]]) -> bool:
    """A request from a Workflow's sub-agent: neither the main conversation (which offers the
    ``Workflow`` tool or holds the user's command) nor a one-shot title request (no tools)."""
    return (
        bool(tool_names(body))
        and "Workflow" not in tool_names(body)
        and not any(_command_of(m) for m in convo if m.get("role") == "user")
    )


def any_agent_plan(body: Mapping[str, Any], convo: list[dict[str, Any]]) -> Plan:
    """Any sub-agent, answered at once and without calling a tool: a ``StructuredOutput`` that
    fits the agent's output schema where it has one, else a short text (``any_agent``). Each
    answer's strings are new, so a later prompt that embeds it gets a new key, as it would
    with a real model's new answer."""
    fill = "rehearsal-" + uuid.uuid4().hex[:12]
    last = convo[-1] if convo else {}
    if any(
        tool_use_name(body, tr.get("tool_use_id")) == "StructuredOutput"
        for tr in typed_blocks(last, "tool_result")
    ):
        return text_plan("agent_done", "done", agent="any")
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and tool.get("name") == "StructuredOutput":
            answer = minimal_instance(tool.get("input_schema") or {}, fill)
            return tool_plan("agent", "StructuredOutput", answer, agent="any")
    return text_plan("agent_text", fill, agent="any")


def _command_of(msg: Mapping[str, Any]) -> tuple[str, dict[str, Any] | None, str | None] | None:
    """("resume", input, problem) / ("run", None, None) for a user message holding a command."""
    text = command_text(msg)
    parsed = parse_resume_request(text)
    if parsed is not None:
        return "resume", parsed[0], parsed[1]
    if "RUN_WORKFLOW" in text:
        return "run", None, None
    return None


def main_plan(convo: list[dict[str, Any]], config: Mapping[str, Any]) -> Plan:
    last = convo[-1] if convo else {}
    for idx in range(len(convo) - 1, -1, -1):
        cmd = convo[idx].get("role") == "user" and _command_of(convo[idx])
        if not cmd:
            continue
        answered = any(
            b.get("name") == "Workflow"
            for m in convo[idx + 1 :]
            if m.get("role") == "assistant"
            for b in typed_blocks(m, "tool_use")
        )
        if answered:
            break
        what, inp, problem = cmd
        if what == "run":
            return tool_plan(
                "main_run",
                "Workflow",
                {"script": config.get("script", ""), **config.get("run_extra_input", {})},
                "Starting the workflow.",
                workflow_input={"script": "<config script>"},
            )
        if not inp:
            return text_plan("main_unparsed", f"MOCK_PARSE_ERROR {problem}", note=problem)
        inp = {**inp, **config.get("resume_extra_input", {})}
        return tool_plan(
            "main_resume",
            "Workflow",
            inp,
            "Resuming the workflow.",
            workflow_input=inp,
            note=problem,
        )
    if typed_blocks(last, "tool_result"):
        return text_plan(
            "main_after_tool", config.get("after_launch_text", "Workflow launched; waiting for it.")
        )
    last_text = all_text(last.get("content"))
    if "<task-notification" in last_text:
        status = re.search(r"<status>([^<]*)</status>", last_text)
        final = config.get("final_text", "Workflow finished. FINAL_OK")
        return text_plan("main_final", f"{final} status={status.group(1) if status else '?'}")
    return text_plan("main_text", config.get("plain_text", "Hello from the mock. MOCK_OK"))
