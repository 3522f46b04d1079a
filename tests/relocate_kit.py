"""Hand-made journal lines and helpers shared by the relocation tests."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from wftop.core.resume.relocate import fold_lines

NEW_SID = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"
RUN = "wf_abcdef12-345"


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def key(n: int) -> str:
    return f"v2:{n:064x}"


def line(**record) -> bytes:
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def started(n: int, agent: str, label: str) -> bytes:
    return line(type="started", key=key(n), agentId=agent, label=label, phase="P")


def result(n: int, agent: str) -> bytes:
    return line(
        type="result",
        key=key(n),
        agentId=agent,
        result={"n": n},
        remoteControlDeviceReport=False,
        sessionId="s",
    )


def failed(n: int, agent: str) -> bytes:
    return line(type="failed", key=key(n), agentId=agent)


def journal_at(tmp_path: Path, content: bytes) -> Path:
    path = tmp_path / "source" / "journal.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path


def states(path: Path) -> dict[str, tuple]:
    fold, _ = fold_lines(path)
    return {
        c.key: (c.state, c.has_result, c.failed, c.demoted, c.replaced, c.attempts)
        for c in fold.calls.values()
    }
