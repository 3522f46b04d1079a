"""The numbers behind "a third of the wave never came back": per run, started vs
returned, the gaps, resumes that re-ran calls that had already returned, and the
termination causes of the sessions that own the runs."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from wftop.core.calls import failures_json, run_cause
from wftop.core.cost.runs import agents_spend, run_spend, session_spend
from wftop.core.cost.tokens import NOTHING, Spend, total
from wftop.core.cost.usage import Spends
from wftop.core.forensics.report import build_report
from wftop.core.index.coldpass import scan_roots
from wftop.core.index.projects import name_rows
from wftop.core.model import Run
from wftop.core.read.journal import CallState, JournalFold
from wftop.core.read.jsonl import Problem
from wftop.core.system.procs import ProcessTable, default_table


@dataclass(frozen=True)
class Attempt:
    """One spawned agent of a call (one ``started`` line)."""

    label: str
    agent_id: str
    returned: bool


@dataclass
class RunStats:
    run_id: str
    session_id: str
    root: str
    project: str
    """The project folder's name (the slug Claude Code derives from the directory)."""
    project_name: str
    """The project as a person names it: the working directory's last folder."""
    name: str | None
    status: str
    started: int
    returned: int
    failed: int
    calls: int
    gaps: int
    """Calls whose latest attempt did not return."""
    reran_completed: int
    """Calls started again after they had returned (a resume that re-ran them)."""
    rerun_tokens: int | None = 0
    """Tokens those re-runs used, from their transcripts (`wftop.core.read.usage`)."""
    failed_calls: list[str] = field(default_factory=list)
    """Labels of the calls that ended failed (as in ``ls --json``): with ``status``
    completed, the run is partial."""
    failures: list[dict[str, str]] = field(default_factory=list)
    """``[{label, kind}]`` of those calls (`wftop.core.calls.failures_json`)."""
    attempts: list[Attempt] = field(default_factory=list)
    cause: str | None = None
    """The kind of the run's failures (`wftop.core.calls.run_cause`); for a run without
    failed calls, the termination cause of its session."""
    spend: Spend = NOTHING
    """What its calls spent (every attempt), from their transcripts."""
    rerun_spend: Spend = NOTHING
    """What the re-runs of calls that had returned spent: spent twice."""
    session_spend: Spend | None = None
    """What the owner session's own turns spent (None: its transcript is gone)."""
    unreadable_reason: str | None = None
    """Why its journal cannot be read (``status: unreadable``)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "session_id": self.session_id,
            "root": self.root,
            "project": self.project,
            "project_name": self.project_name,
            "name": self.name,
            "status": self.status,
            "unreadable_reason": self.unreadable_reason,
            "started": self.started,
            "returned": self.returned,
            "failed": self.failed,
            "calls": self.calls,
            "gaps": self.gaps,
            "reran_completed": self.reran_completed,
            "rerun_tokens": self.rerun_tokens,
            "failed_calls": self.failed_calls,
            **self.spend.to_json(),
            "rerun_cost_usd": self.rerun_spend.to_json()["cost_usd"],
            "session_cost_usd": None
            if self.session_spend is None
            else self.session_spend.to_json()["cost_usd"],
            "failures": self.failures,
            "cause": self.cause,
            "attempts": [
                {"label": a.label, "agent_id": a.agent_id, "returned": a.returned}
                for a in self.attempts
            ],
        }


@dataclass
class Stats:
    runs: list[RunStats] = field(default_factory=list)
    causes: Counter[str] = field(default_factory=Counter)
    """Runs by their `RunStats.cause`."""
    problems: list[Problem] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        spent = total(run.spend for run in self.runs)
        sessions = {run.session_id: run.session_spend for run in self.runs}
        return {
            "runs": len(self.runs),
            **spent.to_json(),
            "rerun_cost_usd": total(run.rerun_spend for run in self.runs).to_json()["cost_usd"],
            "session_cost_usd": None
            if None in sessions.values()
            else total(s for s in sessions.values() if s is not None).to_json()["cost_usd"],
            "runs_with_gaps": sum(1 for run in self.runs if run.gaps),
            "started": sum(run.started for run in self.runs),
            "returned": sum(run.returned for run in self.runs),
            "reran_completed_calls": sum(run.reran_completed for run in self.runs),
            "runs_that_reran_completed_calls": sum(1 for run in self.runs if run.reran_completed),
            "rerun_tokens": sum(run.rerun_tokens or 0 for run in self.runs),
            "causes": dict(sorted(self.causes.items())),
            "per_run": [run.to_json() for run in self.runs],
        }


def journal_attempts(fold: JournalFold) -> tuple[list[Attempt], int]:
    """Every attempt in journal order, and how many calls ran again after returning."""
    lines: list[tuple[int, Attempt]] = []
    for call in fold.ordered_calls():
        returned = set(call.returned_agent_ids)
        for agent_id, line in zip(call.agent_ids, call.attempt_lines, strict=True):
            lines.append((line, Attempt(call.label, agent_id, agent_id in returned)))
    lines.sort(key=lambda pair: pair[0])
    reran = sum(1 for call in fold.ordered_calls() if call.started_after_result)
    return [attempt for _, attempt in lines], reran


def run_stats(run: Run, spends: Spends | None = None) -> RunStats:
    attempts, reran = journal_attempts(run.fold)
    calls = run.fold.ordered_calls()
    spends = spends or Spends()
    return RunStats(
        run_id=run.run_id,
        session_id=run.session_id,
        root=run.folder.root,
        project=run.folder.project,
        project_name=run.project_short,
        name=run.name,
        status=run.status.value,
        started=run.fold.started_lines,
        returned=run.fold.result_lines,
        failed=len(run.failures),
        calls=len(calls),
        gaps=sum(1 for call in calls if call.state is not CallState.DONE),
        reran_completed=reran,
        rerun_tokens=run.rerun_tokens,
        failed_calls=list(run.failed_labels),
        failures=failures_json(run),
        attempts=attempts,
        spend=run_spend(run, spends).total,
        rerun_spend=agents_spend(run.folder.path, run.fold.rerun_agent_ids, spends),
        session_spend=session_spend(run, spends),
        cause=run_cause(run),
        unreadable_reason=run.unreadable_reason,
    )


def compute_stats(
    roots: list[str], *, processes: ProcessTable | None = None, with_causes: bool = True
) -> Stats:
    """Stats over every run of every root, oldest activity first."""
    processes = processes or default_table()
    scanned = scan_roots(roots, processes=processes)
    stats = Stats(problems=list(scanned.problems))
    causes: dict[str, str | None] = {}
    spends = Spends()
    for run in reversed(scanned.runs):
        row = run_stats(run, spends)
        transcript = run.folder.transcript
        if with_causes and row.cause is None and transcript not in causes:
            causes[transcript] = None
            try:
                report = build_report(transcript, owner=run.owner, processes=processes)
                causes[transcript] = report.verdict.cause.value
            except OSError as error:
                stats.problems.append(Problem(transcript, 0, error.strerror or str(error)))
        if row.cause is None and with_causes:
            row.cause = causes.get(transcript)
        if row.cause is not None:
            stats.causes[row.cause] += 1
        stats.runs.append(row)
    named: list[dict[str, Any]] = [
        {"cwd": run.cwd, "project": run.folder.project} for run in scanned.runs[::-1]
    ]
    name_rows(named, str)  # the listing's names (masked where printed, as every field)
    for row, name in zip(stats.runs, named, strict=True):
        row.project_name = name["project_name"]
    return stats
