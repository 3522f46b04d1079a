"""Launch receipts and completion notices, as the CLI writes them into a transcript.

Every literal here was copied from what Claude Code 2.1.332 really wrote (see
``docs/forensics.md``): a worker launched in the background is known only by the
receipt in its tool result, and it finished only if a ``<task-notification>``
(or a successful ``TaskStop``) names it afterwards.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

AGENT_RECEIPT = "Async agent launched successfully"
SHELL_RECEIPT = "Command running in background with ID:"
WORKFLOW_RECEIPT = "Workflow launched in background. Task ID:"
NOTIFICATION_OPEN = "<task-notification>"

_AGENT_ID = re.compile(r"^agentId: ([\w-]+)", re.M)
_AGENT_OUTPUT = re.compile(r"^output_file: (.+?)\s*$", re.M)
_SHELL = re.compile(
    r"Command running in background with ID: ([\w-]+)\."
    r"(?: Output is being written to: (.+?)\. You will be notified)?",
    re.S,
)
_WORKFLOW_TASK = re.compile(r"Workflow launched in background\. Task ID: ([\w-]+)")
_LINE_FIELDS = {
    "summary": re.compile(r"^Summary: (.*?)\s*$", re.M),
    "transcript_dir": re.compile(r"^Transcript dir: (.+?)\s*$", re.M),
    "script_path": re.compile(r"^Script file: (.+?)\s*$", re.M),
    "run_id": re.compile(r"^Run ID: (\S+)\s*$", re.M),
}
_TASKSTOP = re.compile(r"Successfully stopped task: ([\w-]+)[^\"\n]*")
_NOTIFICATION = re.compile(r"<task-notification>(.*?)</task-notification>", re.S)
_TAGS = {
    name: re.compile(rf"<{name}>(.*?)</{name}>", re.S)
    for name in ("task-id", "tool-use-id", "status", "summary", "output-file", "failures")
}


class WorkerKind(StrEnum):
    AGENT = "agent"
    SHELL = "shell"
    WORKFLOW = "workflow"


@dataclass
class Launch:
    """One worker started in the background, by the receipt of its launch."""

    kind: WorkerKind
    worker_id: str
    """The agent id, background shell id or workflow task id: what notices name."""
    line: int
    tool_use_id: str | None = None
    output_file: str | None = None
    """The temporary output path of the receipt (a reboot deletes it)."""
    transcript_dir: str | None = None
    run_id: str | None = None
    script_path: str | None = None
    summary: str | None = None
    description: str = ""
    prompt: str = ""
    """What started it: the agent's prompt, the shell's command, the workflow's script."""
    tool_input: dict[str, Any] = field(default_factory=dict)
    timestamp: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.kind.value, self.worker_id)


@dataclass(frozen=True)
class Completion:
    """One notice that a worker ended, with the status it reported."""

    task_id: str
    status: str
    line: int
    source: str
    """``queue-operation``, ``attachment``, ``user`` or ``TaskStop``."""
    tool_use_id: str | None = None
    summary: str = ""
    output_file: str | None = None
    failures: tuple[str, ...] = ()
    """The lines of the notice's ``<failures>`` block (a workflow's calls that failed): a
    workflow that completed with some reported back, but did not succeed."""

    @property
    def succeeded(self) -> bool:
        return self.status == "completed" and not self.failures


def parse_receipt(text: str, line: int, tool_use_id: str | None = None) -> Launch | None:
    """The launch a tool result's text announces, if it is one of the three receipts."""
    if AGENT_RECEIPT in text:
        agent = _AGENT_ID.search(text)
        if agent is None:
            return None
        output = _AGENT_OUTPUT.search(text)
        return Launch(
            WorkerKind.AGENT,
            agent.group(1),
            line,
            tool_use_id,
            output_file=output.group(1) if output else None,
        )
    if SHELL_RECEIPT in text:
        shell = _SHELL.search(text)
        if shell is None:
            return None
        return Launch(
            WorkerKind.SHELL, shell.group(1), line, tool_use_id, output_file=shell.group(2)
        )
    if WORKFLOW_RECEIPT in text:
        task = _WORKFLOW_TASK.search(text)
        if task is None:
            return None
        found = {name: pattern.search(text) for name, pattern in _LINE_FIELDS.items()}
        values = {name: match.group(1) if match else None for name, match in found.items()}
        return Launch(
            WorkerKind.WORKFLOW,
            task.group(1),
            line,
            tool_use_id,
            transcript_dir=values["transcript_dir"],
            run_id=values["run_id"],
            script_path=values["script_path"],
            summary=values["summary"],
        )
    return None


def parse_taskstop(text: str, line: int, tool_use_id: str | None = None) -> Completion | None:
    """A successful ``TaskStop``: the CLI sends no notice for what it stopped."""
    match = _TASKSTOP.search(text)
    if match is None:
        return None
    return Completion(match.group(1), "stopped", line, "TaskStop", tool_use_id, match.group(0))


def parse_notifications(text: str, line: int, source: str) -> list[Completion]:
    """Every ``<task-notification>`` block in a text."""
    if NOTIFICATION_OPEN not in text:
        return []
    found = []
    for block in _NOTIFICATION.findall(text):
        tags = {name: pattern.search(block) for name, pattern in _TAGS.items()}
        values = {name: match.group(1).strip() if match else None for name, match in tags.items()}
        task_id = values["task-id"]
        if not task_id:
            continue
        found.append(
            Completion(
                task_id=task_id,
                status=values["status"] or "unknown",
                line=line,
                source=source,
                tool_use_id=values["tool-use-id"],
                summary=values["summary"] or "",
                output_file=values["output-file"],
                failures=tuple(
                    line.strip() for line in (values["failures"] or "").split("\n") if line.strip()
                ),
            )
        )
    return found


def fill_from_result(launch: Launch, result: object) -> None:
    """Fill what the receipt's text left out from the record's structured ``toolUseResult``."""
    if not isinstance(result, dict):
        return

    def text(name: str) -> str | None:
        value = result.get(name)
        return value if isinstance(value, str) and value else None

    launch.output_file = launch.output_file or text("outputFile")
    launch.transcript_dir = launch.transcript_dir or text("transcriptDir")
    launch.run_id = launch.run_id or text("runId")
    launch.script_path = launch.script_path or text("scriptPath")
    launch.summary = launch.summary or text("summary")
    if not launch.description:
        launch.description = text("description") or ""


def fill_from_input(launch: Launch, name: str | None, tool_input: object) -> None:
    """Description and the original prompt from the ``tool_use`` that made the launch."""
    if not isinstance(tool_input, dict):
        return
    launch.tool_input = tool_input

    def text(key: str) -> str:
        value = tool_input.get(key)
        return value if isinstance(value, str) else ""

    if launch.kind is WorkerKind.AGENT:
        launch.description = text("description") or launch.description
        launch.prompt = text("prompt")
    elif launch.kind is WorkerKind.SHELL:
        launch.description = text("description") or launch.description
        launch.prompt = text("command")
    else:
        launch.description = launch.summary or text("name") or (name or "")
        launch.prompt = launch.script_path or text("scriptPath") or text("script")
