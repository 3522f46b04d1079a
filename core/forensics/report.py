"""The forensic report of one session: its workers, the dead ones, and why it stopped."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

from wftop.core.calls import call_states, dominant_failure, error_json
from wftop.core.forensics.causes import Verdict, session_verdict
from wftop.core.forensics.limits import TAIL_RECORDS
from wftop.core.forensics.receipts import Completion, Launch, WorkerKind
from wftop.core.forensics.session_transcript import read_transcript, read_worker_events
from wftop.core.forensics.workers import DeadWorker, examine
from wftop.core.model import Run, Status, iso_utc
from wftop.core.read.discovery import find_run_folders
from wftop.core.read.errors import EVIDENCE_CHARS, ErrorEvent, classify_text, cut
from wftop.core.read.failures import FAILED_LINE, Failure
from wftop.core.read.jsonl import Problem
from wftop.core.read.runfolder import RUN_ID
from wftop.core.read.sessions import Liveness, Owner, local_pid_domain, owners_by_session
from wftop.core.system.procs import ProcessTable, default_table


@dataclass(frozen=True)
class WorkerStatus:
    """Every launched worker with the last status it reported (None: never reported)."""

    launch: Launch
    status: str | None
    completion: Completion | None
    run: Run | None = None
    """For the newest launch of a workflow run whose folder is there: the run as every
    surface reads it (its calls' states, its failures)."""
    transcript: str = ""
    """The session transcript the worker was read from."""

    @property
    def failures(self) -> list[dict[str, Any]]:
        """The workflow's failed calls: the run's (`wftop.core.calls`), else the lines its
        notice's ``<failures>`` block reported."""
        if self.run is not None:
            return [failure_json(failure) for failure in self.run.failures]
        lines = self.completion.failures if self.completion else ()
        where = f"{self.transcript}:{self.completion.line if self.completion else 0}"
        return [notice_failure(line, where) for line in lines]

    @property
    def threw(self) -> dict[str, Any] | None:
        """What the workflow's script threw (``status: failed``), as its snapshot says."""
        run = self.run
        if run is None or run.status is not Status.FAILED:
            return None
        thrown = dominant_failure(replace(run, failures=()))
        return None if thrown is None else error_json(thrown)

    @property
    def unreadable(self) -> bool:
        """No notice came and its run's journal cannot be read: it is not known to have
        reported anything, nor to be dead."""
        return self.completion is None and self.status == Status.UNREADABLE.value

    @property
    def succeeded(self) -> bool:
        """Reported ``completed`` with no failed call: what reported is not what succeeded."""
        return self.status == "completed" and not self.failures

    def to_json(self) -> dict[str, Any]:
        shape: dict[str, Any] = {
            "kind": self.launch.kind.value,
            "id": self.launch.worker_id,
            "description": self.launch.description,
            "status": self.status,
            "succeeded": self.succeeded,
            "reported_by": self.completion.source
            if self.completion
            else ("snapshot" if self.status and not self.unreadable else None),
            "summary": self.completion.summary if self.completion else None,
        }
        if self.launch.kind is WorkerKind.WORKFLOW:
            shape["run_id"] = self.launch.run_id
            shape["failures"] = self.failures
            shape["calls"] = None if self.run is None else calls_json(self.run)
            shape["threw"] = self.threw
            shape["unreadable_reason"] = None if self.run is None else self.run.unreadable_reason
        return shape


def failure_json(failure: Failure) -> dict[str, Any]:
    """A failed call as ``scan --json`` names it: its label and `wftop.core.calls.error_json`."""
    return {"label": failure.label, **error_json(failure)}


def notice_failure(line: str, where: str) -> dict[str, Any]:
    """One line of a notice's ``<failures>`` block (``[a6] failed: …``) as a failure; ``where``
    is the notice's ``<file>:<line>``."""
    match = FAILED_LINE.match(line)
    label = (match.group("label") or match.group("slot")) if match else None
    text = match.group(3) if match else line
    return {
        "label": label,
        "kind": classify_text(text).value,
        "evidence": f"{where}: {cut(text, EVIDENCE_CHARS)}",
        "source": "session",
        "resets_at": None,
    }


def calls_json(run: Run) -> list[dict[str, Any]]:
    """Every call of a workflow run with its state (and kind, when it failed)."""
    return [
        {
            "label": view.label,
            "state": view.state.value,
            "kind": view.failure.kind if view.failure else None,
        }
        for view in call_states(run)
    ]


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
            "reported": sum(
                1 for worker in self.workers if worker.status is not None and not worker.unreadable
            ),
            "workers": [worker.to_json() for worker in self.workers],
            "dead_workers": [worker.to_json() for worker in self.dead],
            "termination": self.verdict.to_json(),
            "problems": [str(problem) for problem in self.problems],
        }


def root_of(transcript: str) -> str:
    """``<root>`` of ``<root>/projects/<slug>/<session>.jsonl``."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(transcript))))


def workflow_runs(
    transcript: str, launches: list[Launch], processes: ProcessTable
) -> dict[int, Run]:
    """The run of the newest launch of each workflow run id whose folder (or snapshot) is in
    the session, read as ``ls`` reads it, by the launch's line."""
    newest = {
        launch.run_id: launch
        for launch in launches
        if launch.kind is WorkerKind.WORKFLOW and launch.run_id and RUN_ID.fullmatch(launch.run_id)
    }
    session_dir = transcript[: -len(".jsonl")] if transcript.endswith(".jsonl") else transcript
    wanted = {
        run_id: launch
        for run_id, launch in newest.items()
        if os.path.isdir(os.path.join(session_dir, "subagents", "workflows", run_id))
        or os.path.isfile(os.path.join(session_dir, "workflows", f"{run_id}.json"))
    }
    if not wanted:
        return {}
    from wftop.core.forensics.salvage import read_run  # a stop cause reads no run: not imported

    folders, _problems = find_run_folders(root_of(transcript))
    session = os.path.basename(session_dir)
    runs = {}
    for run_id, launch in wanted.items():
        copies = [folder for folder in folders if folder.run_id == run_id]
        mine = [folder for folder in copies if folder.session_id == session]
        if mine:
            others = [folder for folder in copies if folder is not mine[0]]
            runs[launch.line] = read_run(mine[0], others, processes)
    return runs


def owner_for(session_id: str, roots: list[str], processes: ProcessTable) -> Owner:
    owners = owners_by_session(roots, processes, local_pid_domain())
    return owners.get(session_id, Owner(Liveness.ABSENT))


def build_report(
    transcript: str,
    *,
    owner: Owner | None = None,
    processes: ProcessTable | None = None,
    tail_records: int = TAIL_RECORDS,
    with_runs: bool = True,
) -> SessionReport:
    """Read one session transcript and its session folder into a report (``with_runs``:
    read the workflow runs it launched too, which only what shows the workers needs)."""
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
    runs = workflow_runs(transcript, facts.launches, processes) if with_runs else {}
    for launch in facts.launches:
        done = facts.completions_of(launch)
        latest = done[-1] if done else None
        status = latest.status if latest else None
        run = runs.get(launch.line)
        if status is None and run is not None and run.unreadable_reason is not None:
            status = run.status.value  # no notice came, and its journal cannot be read
        elif status is None and run is not None and run.snapshot_current:
            status = run.status.value  # no notice came, but its snapshot says how it ended
        workers.append(WorkerStatus(launch, status, latest, run, transcript))
        if status is not None:
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
