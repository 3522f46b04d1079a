"""One state per call, computed here and read by every surface.

A call is ``done`` (it returned), ``cached`` (it returned because a resume served it from the
journal), ``failed`` (with its `wftop.core.read.failures.Failure`: kind, evidence, where it was
read), ``running`` (open while its run may go on) or ``dead`` (open, and nothing will finish it:
its process died, its run was killed, or continued in another session). The runs list, ``ls``,
``export``, ``stats``, ``scan``, the resume plan and the run screen all take a call's state
from `call_states`, so none of them can tell a call's story differently.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from wftop.core.model import Run, Status, iso_utc
from wftop.core.read.errors import EVIDENCE_CHARS, Cause, cut, dominant_kind
from wftop.core.read.failures import Failure
from wftop.core.read.journal import Call, CallState


class State(StrEnum):
    DONE = "done"
    FAILED = "failed"
    DEAD = "dead"
    RUNNING = "running"
    CACHED = "cached"


@dataclass(frozen=True, slots=True)
class CallView:
    """A call with its state, and its failure when it failed."""

    call: Call
    state: State
    failure: Failure | None = None

    @property
    def label(self) -> str:
        return self.call.label


def cached_agents(run: Run) -> frozenset[str]:
    """The agents a run's current snapshot marks ``cached`` (served from the journal by the
    resume that wrote it)."""
    snapshot = run.snapshot
    return snapshot.cached if snapshot is not None and run.snapshot_current else frozenset()


def open_state(run: Run) -> State:
    """The state of a run's open calls: running while it may go on, else dead (as
    `wftop.core.model.count_calls` counts them)."""
    return State.RUNNING if run.status in (Status.RUNNING, Status.STALLED) else State.DEAD


def call_states(run: Run) -> list[CallView]:
    """Every call of ``run`` in call order with its state."""
    cached = cached_agents(run)
    failures = {failure.key: failure for failure in run.failures}
    open_as = open_state(run)
    views = []
    for call in run.fold.ordered_calls():
        failure = failures.get(call.key)
        if failure is not None:
            views.append(CallView(call, State.FAILED, failure))
        elif call.state is CallState.DONE:
            agent = call.result_agent_id or (call.agent_ids[-1] if call.agent_ids else "")
            views.append(CallView(call, State.CACHED if agent in cached else State.DONE))
        else:
            views.append(CallView(call, open_as))
    return views


def error_json(failure: Failure) -> dict[str, Any]:
    """A failed call's ``error`` object: ``{kind, evidence, source, resets_at}``."""
    return {
        "kind": failure.kind,
        "evidence": failure.evidence,
        "source": failure.source,
        "resets_at": iso_utc(failure.resets_at),
    }


def failures_json(run: Run) -> list[dict[str, str]]:
    """``[{label, kind}]`` of a run's failed calls, as ``ls --json`` and ``stats --json`` say."""
    return [{"label": failure.label, "kind": failure.kind} for failure in run.failures]


def run_cause(run: Run) -> str | None:
    """The kind of a run's failures: the most frequent, a tie to the first in
    ``docs/forensics.md``'s order; ``script_error`` for a run whose script threw with no call
    failing (before its first agent); None otherwise."""
    failure = dominant_failure(run)
    return None if failure is None else failure.kind


def dominant_failure(run: Run) -> Failure | None:
    """The first failure of the most frequent kind (its evidence speaks for the run); for a
    run whose script threw with no call failing, what it threw."""
    kind = dominant_kind([failure.kind for failure in run.failures])
    if kind is not None:
        return next(failure for failure in run.failures if failure.kind == kind)
    snapshot = run.snapshot
    if run.status is not Status.FAILED or snapshot is None:
        return None
    thrown = (snapshot.error or "the script threw").strip().split("\n", 1)[0]
    evidence = f"{snapshot.path}:1: {cut(thrown, EVIDENCE_CHARS)}"
    return Failure("", "", Cause.SCRIPT_ERROR.value, evidence, "snapshot", at=snapshot.timestamp)
