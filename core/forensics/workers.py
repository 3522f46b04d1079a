"""A worker that never reported back: is it alive, where is its output, how far it got.

Liveness depends on the kind. An agent runs inside its session's process and dies
with it. A background shell is a process of its own and may outlive the session:
it is looked for in the process table, and its output file is checked for writes
after the session's last one. A workflow runs inside its session's process too.

Every id and path here was read from a transcript or a journal: an agent id names a
file only through `wftop.core.read.agent_transcript.transcript_path`, a run id only when it is
one the CLI writes, and a path with a NUL in it is not a file (never an error).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from wftop.core.forensics.limits import MAX_WORKER_TRANSCRIPT_BYTES, MIN_COMMAND_MATCH_CHARS
from wftop.core.forensics.limits import OUTPUT_GROWTH_GRACE_S as GRACE
from wftop.core.forensics.receipts import Launch, WorkerKind
from wftop.core.read.agent_transcript import transcript_path
from wftop.core.read.journal import CallState
from wftop.core.read.journalfile import journal_fold
from wftop.core.read.jsonl import read_all
from wftop.core.read.runfolder import RUN_ID
from wftop.core.read.sessions import Liveness, Owner
from wftop.core.read.snapshot import read_snapshot, snapshot_is_current
from wftop.core.system.procs import ProcessTable


class WorkerLiveness(StrEnum):
    LIVE = "live"
    POSSIBLY_LIVE = "possibly-live"
    DEAD = "dead"
    UNKNOWN = "unknown"
    """The session's owner cannot be checked: the local process table cannot tell."""
    UNKNOWN_NO_OUTPUT = "unknown-no-output-file"


class Digest(StrEnum):
    FINISHED = "finished"
    PARTIAL = "partial"
    NOTHING = "nothing"
    UNKNOWN = "unknown"


class Action(StrEnum):
    FOLD_IN = "fold in"
    RESPAWN_REMAINDER = "re-spawn the remainder"
    RESPAWN_ORIGINAL = "re-spawn from the original prompt"
    CHECK_LIVE = "check before re-running: possibly live"


@dataclass(frozen=True)
class OutputPlace:
    path: str | None
    durable: bool
    """Under the session folder (a reboot keeps it) rather than a temp path."""
    exists: bool


@dataclass(frozen=True)
class DeadWorker:
    launch: Launch
    liveness: WorkerLiveness
    liveness_reason: str
    output: OutputPlace
    digest: Digest
    digest_detail: str
    action: Action
    error_transcripts: tuple[str, ...] = ()
    """Transcripts of this worker whose last records may tell why it stopped."""

    def to_json(self) -> dict[str, Any]:
        launch = self.launch
        return {
            "kind": launch.kind.value,
            "id": launch.worker_id,
            "description": launch.description,
            "run_id": launch.run_id,
            "liveness": self.liveness.value,
            "liveness_reason": self.liveness_reason,
            "output": self.output.path,
            "output_durable": self.output.durable,
            "output_exists": self.output.exists,
            "temp_output": launch.output_file,
            "digest": self.digest.value,
            "digest_detail": self.digest_detail,
            "action": self.action.value,
            "prompt": launch.prompt,
            "launched_line": launch.line,
            "launched_at": launch.timestamp,
            "tool_use_id": launch.tool_use_id,
        }


def _regular(path: str | None) -> os.stat_result | None:
    """The status of a regular file; None for anything else (never opens a FIFO)."""
    if not path:
        return None
    try:
        info = os.stat(path)
    except (OSError, ValueError):  # ValueError: a NUL in a path read from disk
        return None
    return info if stat.S_ISREG(info.st_mode) else None


def run_dir(launch: Launch, session_dir: str) -> str | None:
    if launch.run_id and RUN_ID.fullmatch(launch.run_id):
        return os.path.join(session_dir, "subagents", "workflows", launch.run_id)
    return launch.transcript_dir


def output_place(launch: Launch, session_dir: str) -> OutputPlace:
    """The durable copy under the session folder when there is one, else the temp path."""
    if launch.kind is WorkerKind.AGENT:
        durable = transcript_path(os.path.join(session_dir, "subagents"), launch.worker_id)
        if durable and _regular(durable):
            return OutputPlace(durable, True, True)
    elif launch.kind is WorkerKind.WORKFLOW:
        folder = run_dir(launch, session_dir)
        if folder and os.path.isdir(folder):
            return OutputPlace(folder, True, True)
    temp = launch.output_file
    return OutputPlace(temp, False, _regular(temp) is not None)


def _command_pid(command: str, processes: ProcessTable) -> int | None:
    if len(command.strip()) < MIN_COMMAND_MATCH_CHARS:
        return None
    for pid in processes.pids():
        argv = processes.cmdline(pid)
        if argv and command in " ".join(argv):
            return pid
    return None


def worker_liveness(
    launch: Launch,
    owner: Owner,
    output: OutputPlace,
    session_last_write: float | None,
    processes: ProcessTable,
) -> tuple[WorkerLiveness, str]:
    if owner.liveness is Liveness.ALIVE:
        which = f" (pid {owner.entry.pid})" if owner.entry else ""
        return WorkerLiveness.LIVE, f"its session's process{which} is running"
    if owner.liveness is Liveness.UNKNOWN:
        return WorkerLiveness.UNKNOWN, owner.why or "its session's owner cannot be checked here"
    if launch.kind is WorkerKind.AGENT:
        return WorkerLiveness.DEAD, "an agent dies with its session's process, which is gone"
    if launch.kind is WorkerKind.WORKFLOW:
        return WorkerLiveness.DEAD, "a workflow runs in its session's process, which is gone"
    runner = _command_pid(launch.prompt, processes)
    if runner is not None:
        return WorkerLiveness.POSSIBLY_LIVE, f"pid {runner} is running its command"
    info = _regular(output.path)
    if info is None:
        return WorkerLiveness.UNKNOWN_NO_OUTPUT, "no process runs its command; no output file"
    grew = session_last_write is not None and info.st_mtime > session_last_write + GRACE
    if grew:
        return WorkerLiveness.POSSIBLY_LIVE, "its output file grew after the session's last write"
    return WorkerLiveness.DEAD, "no process runs its command; its output stopped with the session"


def _agent_digest(path: str) -> tuple[Digest, str]:
    info = _regular(path)
    if info is None or info.st_size > MAX_WORKER_TRANSCRIPT_BYTES:
        return Digest.UNKNOWN, "its transcript cannot be read"
    replies = 0
    last: dict[str, Any] | None = None
    for _, record in read_all(path).records:
        if record.get("type") == "assistant" and record.get("isApiErrorMessage") is not True:
            replies += 1
            last = record
    if last is None:
        return Digest.NOTHING, "no reply in its transcript"
    message = last.get("message")
    if isinstance(message, dict) and message.get("stop_reason") == "end_turn":
        return Digest.FINISHED, f"its last of {replies} replies ended its turn"
    return Digest.PARTIAL, f"{replies} replies, the last one unfinished"


def _workflow_digest(folder: str, session_dir: str, run_id: str | None) -> tuple[Digest, str]:
    journal = os.path.join(folder, "journal.jsonl")
    if _regular(journal) is None:
        return Digest.UNKNOWN, "no journal"
    fold = journal_fold(journal)
    done = len(fold.calls_in(CallState.DONE))  # no enum looked up for each of 100,000 calls
    detail = f"{done} of {len(fold.calls)} calls returned"
    if run_id and RUN_ID.fullmatch(run_id):
        snapshot, _ = read_snapshot(os.path.join(session_dir, "workflows", f"{run_id}.json"))
        if (
            snapshot is not None
            and snapshot.status == "completed"
            and snapshot_is_current(snapshot, os.path.getmtime(journal), fold.last_agent_id)
        ):
            return Digest.FINISHED, detail + "; the run completed"
    if done:
        return Digest.PARTIAL, detail
    return Digest.NOTHING, detail


def digest_of(launch: Launch, output: OutputPlace, session_dir: str) -> tuple[Digest, str]:
    """How far the worker got: finished, partial, nothing (or unknown)."""
    if launch.kind is WorkerKind.AGENT:
        if output.path and output.exists:
            return _agent_digest(output.path)
        return Digest.UNKNOWN, "its transcript is gone"
    if launch.kind is WorkerKind.WORKFLOW:
        if output.path and output.exists:
            return _workflow_digest(output.path, session_dir, launch.run_id)
        return Digest.UNKNOWN, "its run folder is gone"
    info = _regular(output.path)
    if info is None:
        return Digest.UNKNOWN, "its output file is gone"
    if info.st_size:
        return Digest.PARTIAL, f"{info.st_size} bytes of output"
    return Digest.NOTHING, "its output file is empty"


def action_for(liveness: WorkerLiveness, digest: Digest) -> Action:
    if liveness in (WorkerLiveness.LIVE, WorkerLiveness.POSSIBLY_LIVE, WorkerLiveness.UNKNOWN):
        return Action.CHECK_LIVE
    if digest is Digest.FINISHED:
        return Action.FOLD_IN
    if digest is Digest.PARTIAL:
        return Action.RESPAWN_REMAINDER
    return Action.RESPAWN_ORIGINAL


def error_transcripts(launch: Launch, output: OutputPlace) -> tuple[str, ...]:
    """The transcripts whose last records may say why the worker stopped."""
    if not output.exists or not output.path:
        return ()
    if launch.kind is WorkerKind.AGENT:
        return (output.path,)
    if launch.kind is not WorkerKind.WORKFLOW:
        return ()
    journal = os.path.join(output.path, "journal.jsonl")
    if _regular(journal) is None:
        return ()
    fold = journal_fold(journal)
    found = []
    for call in fold.calls_in(CallState.IN_FLIGHT) + fold.calls_in(CallState.FAILED):
        path = transcript_path(output.path, call.agent_ids[-1]) if call.agent_ids else None
        if path and _regular(path):
            found.append(path)
    return tuple(found)


def examine(
    launch: Launch,
    *,
    session_dir: str,
    owner: Owner,
    session_last_write: float | None,
    processes: ProcessTable,
) -> DeadWorker:
    output = output_place(launch, session_dir)
    liveness, reason = worker_liveness(launch, owner, output, session_last_write, processes)
    digest, detail = digest_of(launch, output, session_dir)
    return DeadWorker(
        launch,
        liveness,
        reason,
        output,
        digest,
        detail,
        action_for(liveness, digest),
        error_transcripts(launch, output),
    )
