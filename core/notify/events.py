"""What is worth telling a person: the change of a run between two reads of it.

A `Facts` is what the rules look at, taken from a `wftop.core.row.RunRow` (the engine's
stream, ``watch --notify``) or from a `wftop.core.model.Run` (the TUI's index). `Tracker`
compares a run's facts before and after a change and says which `Event` it makes:

* ``died``: it is dead now and was not (running, stalled, or ended: a completed run whose
  resume was killed turns dead too);
* ``stalled``: running before, no growth in the stall window now;
* ``partial``, ``failed``, ``killed``, ``completed``: a live or new run ended so;
* ``resume``: a run that was dead, failed or partial ended again: it was resumed (in its
  own folder, or continued in another session, which supersedes it), with what the resume
  spent when the rows say what the run cost;
* ``supervisor``: a decision of ``wftop supervise`` (made by `supervisor_event`).

A run first seen after the tracker started makes an event only when its last activity is
after that moment: a run that was already dead when wftop started is never told.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from wftop.core.compared import compared
from wftop.core.cost.tokens import dollars
from wftop.core.notify.kinds import Kind
from wftop.core.read.runfolder import run_ident
from wftop.core.status import PARTIAL, Status, iso_utc

if TYPE_CHECKING:
    from wftop.core.model import Run
    from wftop.core.row import RunRow

Severity = Literal["information", "warning", "error"]


TITLES: dict[Kind, str] = {
    Kind.DIED: "Run died",
    Kind.PARTIAL: "Run ended partial",
    Kind.FAILED: "Run failed",
    Kind.KILLED: "Run killed",
    Kind.STALLED: "Run stalled",
    Kind.RESUME: "Resume ended",
    Kind.SUPERVISOR: "Supervisor",
    Kind.COMPLETED: "Run completed",
}
SEVERITIES: dict[Kind, Severity] = {
    Kind.DIED: "error",
    Kind.PARTIAL: "warning",
    Kind.FAILED: "error",
    Kind.KILLED: "error",
    Kind.STALLED: "warning",
    Kind.RESUME: "information",
    Kind.SUPERVISOR: "warning",
    Kind.COMPLETED: "information",
}
LIVE = frozenset({Status.RUNNING.value, Status.STALLED.value})
ENDINGS = {
    "completed": Kind.COMPLETED,
    PARTIAL: Kind.PARTIAL,
    "failed": Kind.FAILED,
    "killed": Kind.KILLED,
}
"""A run's shown status once it ended → the event of that ending."""
WANTED_BACK = frozenset({Status.DEAD.value, "failed", "killed", PARTIAL})
"""Shown statuses a resume is for: a run that leaves one and ends again was resumed."""
STALLED_TEXT = "stalled: no growth in the stall window"


@compared
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Facts:
    """What the rules read of one run."""

    ident: str
    run_id: str
    root: str
    session_id: str
    name: str | None
    status: str
    """The `wftop.core.model.Status` value."""
    shown: str
    """`wftop.core.model.status_word`: the status, or ``partial``."""
    dead_workers: int = 0
    failed_calls: int = 0
    last_activity: float | None = None
    cost_usd: float | None = None
    """What its calls spent; None when not known."""
    superseded_by: str | None = None
    host: str | None = None

    @property
    def label(self) -> str:
        """``name (runId)``, or the run id alone."""
        return f"{self.name} ({self.run_id})" if self.name else self.run_id

    @classmethod
    def of_row(cls, row: RunRow) -> Facts:
        return cls(
            ident=row.ident,
            run_id=row.run_id,
            root=row.root,
            session_id=row.session_id,
            name=row.name,
            status=row.status.value,
            shown=row.shown_status,
            dead_workers=row.dead_workers,
            failed_calls=len(row.failed_calls),
            last_activity=row.last_activity,
            cost_usd=row.cost_usd,
            superseded_by=row.superseded_by,
            host=row.host,
        )

    @classmethod
    def of_run(cls, run: Run) -> Facts:
        """A run of the TUI's index (what it spent is not read here: None)."""
        return cls(
            ident=run.ident,
            run_id=run.run_id,
            root=run.folder.root,
            session_id=run.session_id,
            name=run.name,
            status=run.status.value,
            shown=run.shown_status,
            dead_workers=len(run.dead_workers) if run.status is Status.DEAD else 0,
            failed_calls=len(run.failed_labels),
            last_activity=run.last_activity,
            superseded_by=run.superseded_by,
            host=run.host,
        )


@compared
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Event:
    """Something a person hears about, once (`key`)."""

    kind: Kind
    run_id: str
    ident: str
    label: str
    """The run as a person names it: ``name (runId)``."""
    text: str
    """One line: what happened."""
    at: float
    mark: str
    """What tells this event from an earlier one of the same kind and run (the state and
    the moment of the run it is about)."""
    before: str = ""
    after: str = ""
    cost_usd: float | None = None
    """What a resume spent (``resume`` events), when known."""
    host: str | None = None

    @property
    def title(self) -> str:
        return TITLES[self.kind]

    @property
    def severity(self) -> Severity:
        if self.kind is Kind.RESUME and self.after != "completed":
            return "warning"
        return SEVERITIES[self.kind]

    @property
    def key(self) -> str:
        """One event, whichever wftop process sees it."""
        return f"{self.kind.value}|{self.ident}|{self.mark}"

    def to_json(self) -> dict[str, Any]:
        """The event as a ``command`` channel reads it on stdin."""
        return {
            "event": self.kind.value,
            "title": self.title,
            "text": self.text,
            "severity": self.severity,
            "run_id": self.run_id,
            "ident": self.ident,
            "name": self.label,
            "host": self.host,
            "before": self.before or None,
            "after": self.after or None,
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6),
            "at": iso_utc(self.at),
        }


def _mark(facts: Facts) -> str:
    return f"{facts.shown}@{iso_utc(facts.last_activity) or '-'}"


class Tracker:
    """Turns the changes of runs into events, remembering the runs being resumed.

    Args:
        started: when this wftop started watching: a run first seen later with no activity
            since then was dead (or ended) before, and is not told.
    """

    def __init__(self, started: float) -> None:
        self.started = started
        self._resuming: dict[str, float | None] = {}
        """Runs that left a dead, failed or partial state → what they had spent then."""

    def observe(self, before: Facts | None, after: Facts, now: float) -> Event | None:
        """The event the change from ``before`` (None: a run first seen now) to ``after``
        makes, if any."""
        old = before.status if before is not None else None
        old_shown = before.shown if before is not None else None
        if before is None and (after.last_activity is None or after.last_activity < self.started):
            return None
        if old == after.status and old_shown == after.shown:
            return None
        if before is not None and old_shown in WANTED_BACK and after.shown not in WANTED_BACK:
            self._resuming.setdefault(after.ident, before.cost_usd)
        if after.status == Status.SUPERSEDED.value and after.superseded_by:
            root = after.root if after.host is None else f"{after.host}:{after.root}"
            continued = run_ident(root, after.superseded_by, after.run_id)
            self._resuming.setdefault(continued, 0.0)
            return None
        if after.status == Status.DEAD.value:
            return self._event(Kind.DIED, before, after, now, _died(after))
        if after.status == Status.STALLED.value:
            if old != Status.RUNNING.value:
                return None
            return self._event(Kind.STALLED, before, after, now, STALLED_TEXT)
        ending = ENDINGS.get(after.shown)
        if ending is None:
            return None
        if old is not None and old not in LIVE and old_shown not in WANTED_BACK:
            return None
        if after.ident in self._resuming or old_shown in WANTED_BACK:
            return self._resumed(before, after, now)
        return self._event(ending, before, after, now, _ended(after))

    def _resumed(self, before: Facts | None, after: Facts, now: float) -> Event:
        baseline = self._resuming.pop(after.ident, before.cost_usd if before else None)
        spent = None
        if after.cost_usd is not None and baseline is not None:
            spent = max(0.0, after.cost_usd - baseline)
        text = f"resume ended: {_ended(after)}"
        if spent is not None:
            text += f" · spent {dollars(spent)}"
        return self._event(Kind.RESUME, before, after, now, text, cost=spent)

    def _event(
        self,
        kind: Kind,
        before: Facts | None,
        after: Facts,
        now: float,
        what: str,
        cost: float | None = None,
    ) -> Event:
        if kind is not Kind.RESUME and after.shown in WANTED_BACK:
            self._resuming.pop(after.ident, None)
        return Event(
            kind=kind,
            run_id=after.run_id,
            ident=after.ident,
            label=after.label,
            text=f"{after.label} {what}",
            at=now,
            mark=_mark(after),
            before=before.shown if before is not None else "",
            after=after.shown,
            cost_usd=cost,
            host=after.host,
        )


def _died(after: Facts) -> str:
    workers = after.dead_workers
    if not workers:
        return "died"
    return f"died with {workers} worker{'s' if workers != 1 else ''} in flight"


def _ended(after: Facts) -> str:
    if after.shown == PARTIAL:
        failed = after.failed_calls
        return f"ended partial: {failed} call{'s' if failed != 1 else ''} failed"
    return after.shown


def supervisor_event(run_id: str, decision: str, text: str, at: float) -> Event:
    """A decision of ``wftop supervise`` a person should hear of."""
    return Event(
        kind=Kind.SUPERVISOR,
        run_id=run_id,
        ident=run_id,
        label=run_id,
        text=f"{run_id} {decision}: {text}",
        at=at,
        mark=f"{decision}@{iso_utc(at)}",
        after=decision,
    )
