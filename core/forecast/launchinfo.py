"""How a run was launched, and by which CLI: the facts a resume must repeat."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from typing import Any

from wftop.core.compared import compared
from wftop.core.model import Run
from wftop.core.read.agent_transcript import transcript_path
from wftop.core.read.jsonl import JsonlTail, read_all

_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")

LAST_LINEAR_CHAIN = (2, 1, 290)
"""Newest build known to key every call on one linear chain (spec C.4)."""
FIRST_SLOT_CHAIN = (2, 1, 332)
"""Oldest build known to key ``parallel()``/``pipeline()`` slots by position."""


@compared
@dataclass(frozen=True, eq=False, repr=False)
class LaunchInfo:
    """The ``Workflow`` call that launched (or last resumed) a run."""

    has_args: bool
    args: Any
    script_path: str | None
    source: str
    """Where it was found: ``snapshot``, ``transcript`` or ``none``."""


def find_launch(run: Run) -> LaunchInfo:
    """Args and script path: from the snapshot, else from the session transcript."""
    snapshot = run.snapshot
    if snapshot is not None and snapshot.script_path:
        return LaunchInfo(snapshot.has_args, snapshot.args, snapshot.script_path, "snapshot")
    found = _launch_in_transcript(run.folder.transcript, run.run_id)
    if found is not None:
        tool_input, script_path = found
        return LaunchInfo(
            "args" in tool_input,
            tool_input.get("args"),
            script_path or tool_input.get("scriptPath") or run.script_path,
            "transcript",
        )
    return LaunchInfo(False, None, run.script_path, "none")


def _launch_in_transcript(path: str, run_id: str) -> tuple[dict[str, Any], str | None] | None:
    if not os.path.isfile(path):
        return None
    inputs: dict[str, dict[str, Any]] = {}
    found: tuple[dict[str, Any], str | None] | None = None
    for _, record in JsonlTail(path).read().records:
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if record.get("type") == "assistant" and isinstance(content, list):
            for block in content:
                if (
                    isinstance(block, dict)
                    and block.get("type") == "tool_use"
                    and block.get("name") in ("Workflow", "RunWorkflow")
                    and isinstance(block.get("input"), dict)
                ):
                    inputs[str(block.get("id"))] = block["input"]
        result = record.get("toolUseResult")
        if isinstance(result, dict) and result.get("runId") == run_id and isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    tool_input = inputs.get(str(block.get("tool_use_id")))
                    if tool_input is not None:
                        found = (tool_input, result.get("scriptPath"))
    return found


def parse_version(text: str | None) -> tuple[int, int, int] | None:
    match = _VERSION.search(text or "")
    return (int(match[1]), int(match[2]), int(match[3])) if match else None


def writer_version(run: Run) -> tuple[int, int, int] | None:
    """The CLI build that wrote the run's journal, from its first agent transcript (the
    first call's first agent: no list of every call made)."""
    for call in run.fold.calls.values():
        for agent in call.agent_ids[:1]:
            path = transcript_path(run.folder.path, agent)
            for _, record in JsonlTail(path).read().records[:5] if path else ():
                version = parse_version(str(record.get("version", "")))
                if version:
                    return version
        break
    return None


def installed_version(claude_bin: str) -> tuple[int, int, int] | None:
    try:
        done = subprocess.run(
            [claude_bin, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return parse_version(done.stdout)


def chain_family(version: tuple[int, int, int] | None) -> str:
    if version is None:
        return "unknown"
    if version <= LAST_LINEAR_CHAIN:
        return "linear"
    if version >= FIRST_SLOT_CHAIN:
        return "slots"
    return "unknown"


def first_parallel_call(run: Run) -> tuple[str, int] | None:
    """(label, order) of the first call that ran beside another one.

    Keys of calls inside ``parallel()``/``pipeline()`` depend on the CLI's chain
    rule; calls before the first overlap are keyed alike by every build.
    """
    records = read_all(run.folder.journal).records
    open_calls: dict[str, int] = {}
    for _, record in records:
        kind, key = record.get("type"), record.get("key") or f"agent:{record.get('agentId')}"
        call = run.fold.calls.get(str(key))
        if call is None:
            continue
        if kind == "started":
            if open_calls and call.key not in open_calls:
                earliest = min([*open_calls.values(), call.order])
                first = next(c for c in run.fold.calls.values() if c.order == earliest)
                return first.label, earliest
            open_calls[call.key] = call.order
        elif kind in ("result", "failed"):
            open_calls.pop(call.key, None)
    return None
