"""Persistence of resume requests in wftop's state dir; hands out the per-run lock.

Layout (dirs 0700, files 0600, created with those modes)::

    <state>/resume/<runId>.jsonl          one line per transition, every request of the run
    <state>/locks/<runId>.lock            flock(LOCK_EX|LOCK_NB) + who holds it
    <state>/launches/<runId>/<request>-<attempt>.log / .status.json   runner output

The log is the truth about a request: a wftop restarted mid-resume reads it back
(`ResumeStore.latest`) to find the launched process again. Every transition goes
through `wftop.core.resume.machine.advance` before it is appended, under the run's lock,
so a request can never launch twice and a run never has two launched requests.
Its lines are the records of `wftop.core.resume.records`. The env of launched processes is
never written here.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from wftop.core.read.jsonl import Problem, read_all
from wftop.core.resume.errors import ResumeError, ResumeInProgress
from wftop.core.resume.ids import validate_run_id
from wftop.core.resume.lock import RunLock, append_line
from wftop.core.resume.machine import ResumeEvent, ResumeState, advance, counts_as_launch
from wftop.core.resume.records import RequestStatus, Transition, TransitionDetails
from wftop.core.system.statedir import (
    DIR_MODE,
    FILE_MODE,
    STATE_DIR_ENV,
    ensure_private_dir,
    open_private,
    state_dir,
)

__all__ = [
    "DIR_MODE",
    "FILE_MODE",
    "STATE_DIR_ENV",
    "ResumeStore",
    "RunLock",
    "ensure_private_dir",
    "open_private",
    "state_dir",
]

_EXCLUSIVE_STATES: Final = frozenset({ResumeState.RELOCATING, ResumeState.LAUNCHING})
"""Entered by one request of a run at a time: never while another request is active."""


def _utc_now() -> datetime:
    return datetime.now(UTC)


class ResumeStore:
    """Reads and appends the resume logs of runs; hands out run locks.

    Args:
        root: The state dir; defaults to `state_dir`.
        clock: Returns the current time (UTC); tests pass a fixed one.
        holder: How this process names itself in lock files.
    """

    def __init__(
        self,
        root: Path | None = None,
        *,
        clock: Callable[[], datetime] = _utc_now,
        holder: str | None = None,
    ) -> None:
        self.root = root if root is not None else state_dir()
        self.clock = clock
        self.holder = holder or f"wftop pid {os.getpid()}"

    # -- paths -------------------------------------------------------------------------------

    def log_path(self, run_id: str) -> Path:
        return ensure_private_dir(self.root / "resume") / f"{validate_run_id(run_id)}.jsonl"

    def lock_path(self, run_id: str) -> Path:
        return ensure_private_dir(self.root / "locks") / f"{validate_run_id(run_id)}.lock"

    def launch_paths(self, run_id: str, request: str, attempt: int) -> tuple[Path, Path]:
        """``(log_path, status_path)`` for the runner of one launch attempt."""
        folder = ensure_private_dir(self.root / "launches" / validate_run_id(run_id))
        stem = f"{_safe_request(request)}-{int(attempt)}"
        return folder / f"{stem}.log", folder / f"{stem}.status.json"

    # -- lock --------------------------------------------------------------------------------

    def lock(self, run_id: str, *, wait: float = 0.0) -> RunLock:
        """Take the run's lock (use as a context manager around check-and-launch).

        Raises:
            ResumeBusy: Another caller holds it.
        """
        ensure_private_dir(self.root)
        holder = f"{self.holder} since {self._now()}"
        return RunLock(self.lock_path(run_id), run_id, holder).acquire(wait=wait)

    @contextlib.contextmanager
    def _locked(self, run_id: str, lock: RunLock | None) -> Iterator[RunLock]:
        if lock is not None:
            if not lock.held or lock.run_id != run_id:
                msg = f"the lock passed in is not a held lock of run {run_id!r}"
                raise ResumeError(msg)
            yield lock
            return
        with self.lock(run_id, wait=2.0) as taken:
            yield taken

    # -- reading -----------------------------------------------------------------------------

    def history(self, run_id: str) -> tuple[list[Transition], list[Problem]]:
        """Every readable transition of the run, in order, and the lines that were not.

        A torn last line (no newline yet) is not read; unreadable lines are reported.
        """
        path = self.root / "resume" / f"{validate_run_id(run_id)}.jsonl"  # reading creates nothing
        if not path.exists():
            return [], []
        batch = read_all(path)
        problems = list(batch.problems)
        transitions: list[Transition] = []
        for line, record in batch.records:
            try:
                transitions.append(Transition.from_record(record))
            except ValueError as error:
                problems.append(Problem(str(path), line, f"not a transition: {error}"))
        return transitions, problems

    def status(self, run_id: str, request: str) -> RequestStatus | None:
        """The state of one request, or None if the log does not know it."""
        transitions, _problems = self.history(run_id)
        return _status_of(run_id, request, transitions)

    def latest(self, run_id: str) -> RequestStatus | None:
        """The state of the run's latest request (the one named by the last valid line)."""
        transitions, _problems = self.history(run_id)
        if not transitions:
            return None
        return _status_of(run_id, transitions[-1].request, transitions)

    # -- writing -----------------------------------------------------------------------------

    def begin_request(
        self, run_id: str, *, reason: str, strategy: str | None = None, lock: RunLock | None = None
    ) -> RequestStatus:
        """Mint a request id and record it as ``planned``.

        Raises:
            ResumeInProgress: The latest request is launching or running; re-attach to it.
            ResumeBusy: Another caller holds the run's lock.
        """
        with self._locked(run_id, lock):
            latest = self.latest(run_id)
            if latest is not None and latest.active:
                raise _in_progress(latest)
            import secrets  # not at the top: a plan starts no request

            request = f"{self.clock().astimezone(UTC):%Y%m%dT%H%M%SZ}-{secrets.token_hex(4)}"
            transition = Transition(
                time=self._now(),
                request=request,
                attempt=0,
                from_state=None,
                to_state=ResumeState.PLANNED,
                event=None,
                reason=reason,
                details=TransitionDetails(strategy=strategy),
            )
            self._append(run_id, transition)
            return RequestStatus(run_id, request, ResumeState.PLANNED, 0, (transition,))

    def record(
        self,
        run_id: str,
        request: str,
        event: ResumeEvent,
        *,
        reason: str,
        details: TransitionDetails | None = None,
        lock: RunLock | None = None,
    ) -> RequestStatus:
        """Advance a request by ``event`` and append the transition.

        Hold the lock (pass it in) across "record the launch, then start the process"
        so that no other caller can launch in between.

        Raises:
            IllegalTransition: The machine refuses the event (e.g. a second launch).
            ResumeInProgress: The event would relocate or launch while another request of
                the run is launching or running.
            ResumeBusy: Another caller holds the run's lock.
            ResumeError: The request is unknown.
        """
        with self._locked(run_id, lock):
            transitions, _problems = self.history(run_id)
            current = _status_of(run_id, request, transitions)
            if current is None:
                msg = f"no resume request {request!r} in the log of {run_id}"
                raise ResumeError(msg)
            target = advance(current.state, event, attempts=current.attempts)
            attempts = current.attempts + counts_as_launch(current.state, target)
            if target in _EXCLUSIVE_STATES and target is not current.state:
                for other in _requests(transitions):
                    other_status = _status_of(run_id, other, transitions)
                    if other != request and other_status is not None and other_status.active:
                        raise _in_progress(other_status)
            transition = Transition(
                time=self._now(),
                request=request,
                attempt=attempts,
                from_state=current.state,
                to_state=target,
                event=event,
                reason=reason,
                details=details or TransitionDetails(),
            )
            self._append(run_id, transition)
            return RequestStatus(
                run_id, request, target, attempts, (*current.transitions, transition)
            )

    def _append(self, run_id: str, transition: Transition) -> None:
        append_line(self.log_path(run_id), transition.to_json())

    def _now(self) -> str:
        return (
            self.clock().astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        )


def _requests(transitions: list[Transition]) -> list[str]:
    return list(dict.fromkeys(transition.request for transition in transitions))


def _status_of(run_id: str, request: str, transitions: list[Transition]) -> RequestStatus | None:
    mine = tuple(transition for transition in transitions if transition.request == request)
    if not mine:
        return None
    attempts = sum(
        1
        for transition in mine
        if transition.from_state is not None
        and counts_as_launch(transition.from_state, transition.to_state)
    )
    return RequestStatus(run_id, request, mine[-1].to_state, attempts, mine)


def _in_progress(status: RequestStatus) -> ResumeInProgress:
    pid = status.fact("pid")
    where = f" (runner pid {pid})" if pid is not None else ""
    msg = (
        f"request {status.request} of {status.run_id} is {status.state.value}{where}; "
        "re-attach to it instead of launching again"
    )
    return ResumeInProgress(msg, status=status)


def _safe_request(request: str) -> str:
    if not request or not all(char.isalnum() or char in "-_" for char in request):
        msg = f"invalid request id: {request!r}"
        raise ResumeError(msg)
    return request
