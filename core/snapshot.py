"""The end-of-run snapshot ``<session>/workflows/<runId>.json``.

Claude Code writes it only when a run ends (completed, failed or killed), and each
resume overwrites it. After a crash it is absent, or it is older than the journal.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson

from core.jsonl import Problem

MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class AgentRow:
    """One ``workflow_agent`` row of the snapshot's ``workflowProgress``."""

    index: int
    label: str
    agent_id: str
    state: str
    """``start``, ``progress``, ``done`` or ``error``."""
    phase: str | None = None
    cached: bool = False
    tokens: int | None = None
    tool_calls: int | None = None
    duration_ms: int | None = None
    error: str | None = None
    prompt_preview: str | None = None
    result_preview: str | None = None
    attempt: int | None = None


@dataclass(frozen=True)
class Snapshot:
    path: str
    status: str | None
    """``completed``, ``failed`` or ``killed``."""
    timestamp: float | None
    """Epoch seconds when the snapshot was written."""
    name: str | None = None
    summary: str | None = None
    script_path: str | None = None
    has_args: bool = False
    args: Any = None
    phases: tuple[str, ...] = ()
    agent_count: int | None = None
    total_tokens: int | None = None
    total_tool_calls: int | None = None
    duration_ms: int | None = None
    logs: tuple[str, ...] = ()
    error: str | None = None
    rows: tuple[AgentRow, ...] = field(default_factory=tuple)

    def agent_ids(self) -> set[str]:
        return {row.agent_id for row in self.rows if row.agent_id}


def parse_iso_time(value: object) -> float | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def read_snapshot(path: str) -> tuple[Snapshot | None, Problem | None]:
    """Read a snapshot; (None, None) when it does not exist."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None, None
    except OSError as error:
        return None, Problem(path, 0, error.strerror or str(error))
    if not stat.S_ISREG(info.st_mode):
        return None, Problem(path, 0, "not a regular file, expected a JSON snapshot")
    if info.st_size > MAX_SNAPSHOT_BYTES:
        return None, Problem(path, 0, f"snapshot of {info.st_size} bytes is too large to read")
    try:
        with open(path, "rb") as handle:
            data = orjson.loads(handle.read())
    except OSError as error:
        return None, Problem(path, 0, error.strerror or str(error))
    except orjson.JSONDecodeError:
        return None, Problem(path, 1, "not valid JSON, expected a workflow snapshot object")
    if not isinstance(data, dict):
        return None, Problem(path, 1, "expected a JSON object")
    return _snapshot_from(path, data), None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _snapshot_from(path: str, data: dict[str, Any]) -> Snapshot:
    rows: list[AgentRow] = []
    progress = data.get("workflowProgress")
    for item in progress if isinstance(progress, list) else []:
        if not isinstance(item, dict) or item.get("type") != "workflow_agent":
            continue
        rows.append(
            AgentRow(
                index=_int(item.get("index")) or len(rows) + 1,
                label=_str(item.get("label")) or _str(item.get("agentId")) or "",
                agent_id=_str(item.get("agentId")) or "",
                state=_str(item.get("state")) or "",
                phase=_str(item.get("phaseTitle")),
                cached=item.get("cached") is True,
                tokens=_int(item.get("tokens")),
                tool_calls=_int(item.get("toolCalls")),
                duration_ms=_int(item.get("durationMs")),
                error=_str(item.get("error")),
                prompt_preview=_str(item.get("promptPreview")),
                result_preview=_str(item.get("resultPreview")),
                attempt=_int(item.get("attempt")),
            )
        )
    phases = data.get("phases")
    titles = tuple(
        str(phase.get("title"))
        for phase in (phases if isinstance(phases, list) else [])
        if isinstance(phase, dict) and phase.get("title")
    )
    logs = data.get("logs")
    return Snapshot(
        path=path,
        status=_str(data.get("status")),
        timestamp=parse_iso_time(data.get("timestamp")),
        name=_str(data.get("workflowName")),
        summary=_str(data.get("summary")),
        script_path=_str(data.get("scriptPath")),
        has_args="args" in data,
        args=data.get("args"),
        phases=titles,
        agent_count=_int(data.get("agentCount")),
        total_tokens=_int(data.get("totalTokens")),
        total_tool_calls=_int(data.get("totalToolCalls")),
        duration_ms=_int(data.get("durationMs")),
        logs=tuple(str(line) for line in logs) if isinstance(logs, list) else (),
        error=_str(data.get("error")),
        rows=tuple(rows),
    )


def snapshot_is_current(
    snapshot: Snapshot, journal_mtime: float | None, last_agent_id: str | None
) -> bool:
    """Whether the snapshot describes the journal's latest run.

    The agent of the journal's last line must be one of the snapshot's rows: a run
    resumed after the snapshot was written appends agents the snapshot never saw.
    This survives copies that reset file times. Only a snapshot without rows falls
    back to comparing its timestamp with the journal's modification time.
    """
    if last_agent_id is None:
        return True
    ids = snapshot.agent_ids()
    if ids:
        return last_agent_id in ids
    if snapshot.timestamp is not None and journal_mtime is not None:
        return snapshot.timestamp >= journal_mtime
    return False
