"""Hand-made session transcripts for forensic edge cases.

Every record has the shape the real CLI writes (compare the trees under
``tests/data/forensics``); only ids, paths and texts are chosen by the test.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.corpus import DATA

FORENSICS = DATA / "forensics"
SESSION = "0b5e7a1c-2f4d-4e8a-9c1b-3d5f7a9b1c2d"


def fixture(name: str) -> Path:
    """A tree made by the real CLI (a config dir holding ``projects/``)."""
    path = FORENSICS / name
    assert (path / "projects").is_dir(), name
    return path


def transcript_of(name: str) -> Path:
    (found,) = sorted(fixture(name).glob("projects/*/*.jsonl"))
    return found


def copy_fixture(name: str, target: Path) -> Path:
    destination = target / name
    shutil.copytree(fixture(name), destination, symlinks=True)
    return destination


def tool_use(tool_id: str, name: str, tool_input: dict[str, object]) -> dict[str, object]:
    return {
        "type": "assistant",
        "isSidechain": False,
        "message": {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}],
        },
        "timestamp": "2026-12-02T10:00:00.000Z",
    }


def tool_result(tool_id: str, text: str, result: object = None) -> dict[str, object]:
    record: dict[str, object] = {
        "type": "user",
        "isSidechain": False,
        "message": {
            "role": "user",
            "content": [{"tool_use_id": tool_id, "type": "tool_result", "content": text}],
        },
        "timestamp": "2026-12-02T10:00:01.000Z",
    }
    if result is not None:
        record["toolUseResult"] = result
    return record


def shell_receipt(shell_id: str, output: str) -> str:
    return (
        f"Command running in background with ID: {shell_id}. Output is being written to: "
        f"{output}. You will be notified when it completes. To check interim output, use "
        "Read on that file path."
    )


def agent_receipt(agent_id: str, output: str) -> str:
    return (
        "Async agent launched successfully. (This tool result is internal metadata.)\n"
        f"agentId: {agent_id} (internal ID - do not mention to user.)\n"
        "The agent is working in the background.\n"
        f"output_file: {output}\n"
    )


def workflow_receipt(task_id: str, run_id: str, transcript_dir: str) -> str:
    return (
        f"Workflow launched in background. Task ID: {task_id}\n"
        "Summary: a hand-made run\n"
        f"Transcript dir: {transcript_dir}\n"
        f"Run ID: {run_id}\n\nYou will be notified when it completes."
    )


def notice(task_id: str, status: str, tool_id: str = "toolu_x") -> str:
    return (
        f"<task-notification>\n<task-id>{task_id}</task-id>\n<tool-use-id>{tool_id}</tool-use-id>\n"
        f"<status>{status}</status>\n<summary>Task {task_id} {status}</summary>\n"
        "</task-notification>"
    )


def notice_record(text: str, shape: str) -> dict[str, object]:
    """A notification in one of the three record shapes the CLI uses."""
    if shape == "queue-operation":
        return {"type": "queue-operation", "operation": "enqueue", "content": text}
    if shape == "attachment":
        return {
            "type": "attachment",
            "attachment": {"type": "queued_command", "prompt": text},
        }
    return {
        "type": "user",
        "message": {"role": "user", "content": text},
        "origin": {"kind": "task-notification"},
        "promptSource": "system",
    }


def prompt(text: str, cwd: str = "/home/dev/work/hand/proj") -> dict[str, object]:
    return {
        "type": "user",
        "message": {"role": "user", "content": text},
        "cwd": cwd,
        "promptSource": "sdk",
        "timestamp": "2026-12-02T09:59:59.000Z",
    }


def write_session(
    root: Path,
    records: list[object],
    *,
    session: str = SESSION,
    slug: str = "-home-dev-work-hand-proj",
    tail: bytes = b"",
) -> Path:
    """``<root>/projects/<slug>/<session>.jsonl`` from records (bytes lines kept as is)."""
    folder = root / "projects" / slug
    (folder / session).mkdir(parents=True, exist_ok=True)
    lines = []
    for record in records:
        lines.append(record if isinstance(record, bytes) else json.dumps(record).encode())
    path = folder / f"{session}.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines) + tail)
    return path


def real_line(name: str, contains: str) -> dict[str, object]:
    """The first record of a real transcript whose line holds ``contains``."""
    for line in transcript_of(name).read_text().splitlines():
        if contains in line:
            value = json.loads(line)
            assert isinstance(value, dict)
            return value
    raise AssertionError(f"{contains!r} not in {name}")
