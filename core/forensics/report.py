"""The forensic report of one session: its workers, the dead ones, and why it stopped."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from wftop.core.forensics.causes import Verdict, session_verdict
from wftop.core.forensics.limits import TAIL_RECORDS
from wftop.core.forensics.receipts import Completion, Launch
from wftop.core.forensics.session_transcript import ErrorEvent, read_transcript, read_worker_events
from wftop.core.forensics.workers import DeadWorker, examine
from wftop.core.model import iso_utc
from wftop.core.read.jsonl import Problem
from wftop.core.read.sessions import Liveness, Owner, local_pid_domain, owners_by_session
from wftop.core.system.procs import ProcessTable, default_table


@dataclass(frozen=True)
class WorkerStatus:
    """Every launched worker with the last status it reported (None: never reported)."""

    launch: Launch
    status: str | None
    completion: Completion | None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.launch.kind.value,
            "id": self.launch.worker_id,
            "description": self.launch.description,
            "status": self.status,
            "reported_by": self.completion.source if self.completion else None,
            "summary": self.completion.summary if self.completion else None,
        }


@dataclass
class SessionReport:
    transcript: str
    session_id: str
    cwd: str | None
    last_write: float | None
    owner: Owner
    workers: list[WorkerStatus]
    dead: list[DeadWorker]
    verdict: Verdict
    problems: list[Problem] = field(default_factory=list)

    @property
    def session_dir(self) -> str:
        return self.transcript[: -len(".jsonl")]

    @property
    def project(self) -> str:
        return os.path.basename(os.path.dirname(self.transcript))

    def to_json(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "transcript": self.transcript,
            "project": self.project,
            "cwd": self.cwd,
            "last_write": iso_utc(self.last_write),
            "owner": self.owner.liveness.value,
            "owner_pid": self.owner.entry.pid if self.owner.entry else None,
            "launched": len(self.workers),
            "reported": sum(1 for worker in self.workers if worker.status is not None),
            "workers": [worker.to_json() for worker in self.workers],
            "dead_workers": [worker.to_json() for worker in self.dead],
            "termination": self.verdict.to_json(),
            "problems": [str(problem) for problem in self.problems],
        }


def root_of(transcript: str) -> str:
    """``<root>`` of ``<root>/projects/<slug>/<session>.jsonl``."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(transcript))))


def owner_for(session_id: str, roots: list[str], processes: ProcessTable) -> Owner:
    owners = owners_by_session(roots, processes, local_pid_domain())
    return owners.get(session_id, Owner(Liveness.ABSENT))


def build_report(
    transcript: str,
    *,
    owner: Owner | None = None,
    processes: ProcessTable | None = None,
    tail_records: int = TAIL_RECORDS,
) -> SessionReport:
    """Read one session transcript and its session folder into a report."""
    processes = processes or default_table()
    facts = read_transcript(transcript, tail_records=tail_records)
    if owner is None:
        owner = owner_for(facts.session_id, [root_of(transcript)], processes)
    try:
        last_write: float | None = os.stat(transcript).st_mtime
    except OSError:
        last_write = None
    session_dir = transcript[: -len(".jsonl")] if transcript.endswith(".jsonl") else transcript
    workers = []
    dead = []
    worker_events: list[ErrorEvent] = []
    for launch in facts.launches:
        done = facts.completions_of(launch)
        latest = done[-1] if done else None
        workers.append(WorkerStatus(launch, latest.status if latest else None, latest))
        if done:
            continue
        worker = examine(
            launch,
            session_dir=session_dir,
            owner=owner,
            session_last_write=last_write,
            processes=processes,
        )
        dead.append(worker)
        for path in worker.error_transcripts:
            worker_events.extend(read_worker_events(path, tail_records=tail_records))
    return SessionReport(
        transcript=transcript,
        session_id=facts.session_id,
        cwd=facts.cwd,
        last_write=last_write,
        owner=owner,
        workers=workers,
        dead=dead,
        verdict=session_verdict(facts, worker_events),
        problems=list(facts.problems),
    )
