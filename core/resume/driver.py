"""Carry a confirmed plan out through the state machine, and watch the relaunched run.

Every step is recorded in the run's resume log before it is taken, under the run's
lock, so two wftop processes never launch twice for one run and a restarted wftop
finds the launched process again (`ResumeDriver.attach`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from wftop.core.read.journal import JournalFold
from wftop.core.read.jsonl import JsonlTail
from wftop.core.read.snapshot import read_snapshot, snapshot_is_current
from wftop.core.resume.attempt import Attempt, as_launched, watchers
from wftop.core.resume.errors import LaunchError, RelocationError, ResumeError
from wftop.core.resume.launcher import Launch, Launcher, Strategy
from wftop.core.resume.machine import ACTIVE_STATES, ResumeEvent, ResumeState
from wftop.core.resume.plan import Plan
from wftop.core.resume.records import RequestStatus, TransitionDetails
from wftop.core.resume.relocate import relocate_journal
from wftop.core.resume.store import ResumeStore, RunLock
from wftop.core.system.procs import ProcessTable

NO_CONVERSATION = "No conversation found with session ID"
STARTED_MARKERS = ("Workflow launched in background", '"subtype":"task_started"')


class ResumeDriver:
    def __init__(
        self,
        store: ResumeStore,
        launcher: Launcher,
        processes: ProcessTable,
        *,
        environ: dict[str, str] | None = None,
        clock: Callable[[], float] = time.time,
    ):
        self.store = store
        self.launcher = launcher
        self.processes = processes
        self.environ = dict(os.environ if environ is None else environ)
        self.clock = clock

    def _record(
        self, plan: Plan, request: str, event: ResumeEvent, reason: str, **details: int | None
    ) -> RequestStatus:
        exit_code = details.get("exit_code")
        return self.store.record(
            plan.run.run_id,
            request,
            event,
            reason=reason,
            details=TransitionDetails(exit_code=exit_code if isinstance(exit_code, int) else None),
        )

    def start(
        self, plan: Plan, *, force: bool = False, reason: str = "user asked"
    ) -> tuple[RequestStatus, Attempt | None]:
        """preflight → (blocked | confirmed) → [relocating] → launching; one launch at most.

        ``reason`` is who asked, as the request's first line records it.
        """
        run_id = plan.run.run_id
        with self.store.lock(run_id, wait=2.0) as lock:
            status = self.store.begin_request(
                run_id, reason=reason, strategy=plan.strategy.value, lock=lock
            )
            request = status.request
            self.store.record(
                run_id, request, ResumeEvent.BEGIN_PREFLIGHT, reason="checking", lock=lock
            )
            if not plan.verdict.allows(force):
                status = self.store.record(
                    run_id,
                    request,
                    ResumeEvent.GUARD_REFUSED,
                    reason=plan.verdict.reason,
                    lock=lock,
                )
                return status, None
            why = "confirmed" if plan.verdict.ok else f"forced past: {plan.verdict.reason}"
            self.store.record(run_id, request, ResumeEvent.USER_CONFIRMED, reason=why, lock=lock)
            return self._launch(plan, request, ResumeEvent.LAUNCH, lock=lock)

    def _launch(
        self, plan: Plan, request: str, event: ResumeEvent, *, lock: RunLock
    ) -> tuple[RequestStatus, Attempt | None]:
        run_id = plan.run.run_id
        store = self.store
        journal = plan.run.folder.journal
        if plan.strategy is not Strategy.RESUME_OWNER and plan.target_journal:
            store.record(
                run_id, request, ResumeEvent.RELOCATE, reason="copy the journal", lock=lock
            )
            target_session = Path(plan.target_journal).parents[3]
            try:
                relocate_journal(
                    Path(plan.run.folder.journal),
                    target_session,
                    run_id,
                    heal=plan.strategy is Strategy.SURGICAL,
                )
            except RelocationError as error:
                status = store.record(
                    run_id, request, ResumeEvent.RELOCATION_FAILED, reason=str(error), lock=lock
                )
                return status, None
            store.record(
                run_id, request, ResumeEvent.RELOCATED, reason=plan.target_journal, lock=lock
            )
            journal = plan.target_journal
        else:
            store.record(run_id, request, event, reason=f"{plan.strategy.value} launch", lock=lock)
        latest = store.status(run_id, request)
        attempt_no = latest.attempts if latest else 1
        log_path, status_path = store.launch_paths(run_id, request, attempt_no)
        watch, stream = watchers(plan, journal, log_path, plan.session_dir)
        env = {**self.environ, **plan.env}
        try:
            launch = self.launcher.launch(
                plan.argv,
                cwd=Path(plan.cwd or "."),
                log_path=log_path,
                status_path=status_path,
                env=env,
            )
        except LaunchError as error:
            status = store.record(
                run_id, request, ResumeEvent.LAUNCH_ERROR, reason=str(error), lock=lock
            )
            return status, None
        status = store.record(
            run_id,
            request,
            ResumeEvent.SPAWNED,
            reason="process started",
            lock=lock,
            details=TransitionDetails(
                pid=launch.pid,
                proc_start=launch.proc_start,
                strategy=plan.strategy.value,
                argv=tuple(plan.argv),
                cwd=plan.cwd,
                session_id=plan.session_id,
                log_path=str(log_path),
                status_path=str(status_path),
                forecast_cached=tuple(sorted(watch.cached)),
                journal_lines=None if watch.tail is None else watch.skip_lines,
            ),
        )
        return status, Attempt(plan, request, launch, watch, stream)

    # -- following ---------------------------------------------------------------------------

    def _log_text(self, attempt: Attempt) -> str:
        try:
            with open(attempt.launch.log_path, "rb") as handle:
                return handle.read(4 * 1024 * 1024).decode(errors="replace")
        except OSError:
            return ""

    def step(self, attempt: Attempt) -> tuple[RequestStatus | None, list[str]]:
        """Poll once: returns the new status if the state changed, and fresh tripwire misses."""
        run_id = attempt.plan.run.run_id
        misses = attempt.watch.poll() + attempt.stream.poll()
        current = self.store.status(run_id, attempt.request)
        if current is None:
            return None, misses
        poll = attempt.launch.poll(self.processes)
        started = (
            bool(attempt.progress.started)
            or attempt.stream.text_seen
            or any(marker in self._log_text(attempt) for marker in STARTED_MARKERS)
        )
        if current.state is ResumeState.LAUNCHING and started:
            return self._record(
                attempt.plan, attempt.request, ResumeEvent.STARTED, "the workflow resumed"
            ), misses
        if poll.state == "running":
            return None, misses
        if poll.state == "lost":
            return self._lost(attempt), misses
        attempt.watch.poll()
        if current.state is ResumeState.LAUNCHING:
            log = self._log_text(attempt)
            reason = (
                f"{NO_CONVERSATION} {attempt.plan.session_id}"
                if NO_CONVERSATION in log
                else f"exited {poll.exit_code} before the workflow started"
            )
            return self._record(
                attempt.plan,
                attempt.request,
                ResumeEvent.LAUNCH_ERROR,
                reason,
                exit_code=poll.exit_code,
            ), misses
        event, reason = self.outcome(attempt, poll.exit_code, poll.signal)
        return self._record(
            attempt.plan, attempt.request, event, reason, exit_code=poll.exit_code
        ), misses

    def _lost(self, attempt: Attempt) -> RequestStatus | None:
        """Record that the process vanished, unless it is still being launched.

        A wftop that follows another's request may look before that launch logged its
        process: the launching wftop holds the run's lock until it has, so the verdict is
        taken again under the lock, with the process the log names by then.
        """
        run_id = attempt.plan.run.run_id
        with self.store.lock(run_id, wait=2.0) as lock:
            current = self.store.status(run_id, attempt.request)
            if current is not None and not current.active:
                return current  # another wftop recorded how it ended
            launch = attempt.launch
            if current is not None and launch.pid is None and current.fact("pid") is not None:
                launch.pid, launch.proc_start = current.fact("pid"), current.fact("proc_start")
            if launch.poll(self.processes).state != "lost":
                return None
            return self.store.record(
                run_id,
                attempt.request,
                ResumeEvent.PROCESS_VANISHED,
                reason="the process vanished without an exit status",
                lock=lock,
            )

    def outcome(
        self, attempt: Attempt, exit_code: int | None, signal: int | None
    ) -> tuple[ResumeEvent, str]:
        """The end of a run from the exit code, the new snapshot and the journal."""
        if signal is not None:
            return ResumeEvent.STOPPED_BY_USER, f"by signal {signal}"
        if attempt.snapshot is None or attempt.journal is None:
            return (
                ResumeEvent.EXITED_FAILED,
                f"exited {exit_code} before the workflow wrote a journal",
            )
        snap, _problem = read_snapshot(attempt.snapshot)
        fold = JournalFold().feed_all(JsonlTail(attempt.journal).read().records)
        current = snap is not None and snapshot_is_current(snap, None, fold.last_agent_id)
        if not current or snap is None:
            return ResumeEvent.EXITED_FAILED, (
                f"exited {exit_code} without a new snapshot: the workflow did not finish"
            )
        if snap.status == "failed":
            return ResumeEvent.EXITED_FAILED, f"the script threw: {snap.error or 'no error text'}"
        if snap.status == "killed":
            return ResumeEvent.STOPPED_BY_USER, "the snapshot says killed"
        errored = [row.label for row in snap.rows if row.state == "error"]
        if errored:
            return (
                ResumeEvent.EXITED_WITH_FAILURES,
                f"failed calls: {', '.join(errored)}",
            )
        return ResumeEvent.EXITED_OK, f"exit code {exit_code}"

    def fall_back(self, attempt: Attempt, relocated: Plan) -> tuple[RequestStatus, Attempt | None]:
        """launch_failed → fallback → relocate, when the owner session cannot be resumed."""
        run_id = attempt.plan.run.run_id
        with self.store.lock(run_id, wait=2.0) as lock:
            self.store.record(
                run_id,
                attempt.request,
                ResumeEvent.FALL_BACK,
                reason=f"to {relocated.strategy.value}",
                lock=lock,
            )
            return self._launch(relocated, attempt.request, ResumeEvent.LAUNCH, lock=lock)

    def active(self, run_id: str) -> RequestStatus | None:
        """The run's request that is launching or running, if any (re-attach to it)."""
        latest = self.store.latest(run_id)
        return latest if latest is not None and latest.active else None

    def attach(self, plan: Plan, status: RequestStatus) -> Attempt | None:
        """Find the process of an active request again (after wftop restarted) and follow it.

        The launch is judged as it was launched: the tripwire follows the forecast the
        launch recorded (``plan``, made from the run as it reads now, may be of a run the
        launch has since completed, whose every call reads as cached), and the journal
        from the line it held at launch. When wftop died between starting the runner and
        logging its pid, the launch files are found where every launch of that attempt
        puts them; a runner that never started reads as lost.
        """
        status_path, log_path = status.fact("status_path"), status.fact("log_path")
        if not status_path or not log_path:
            found_log, found_status = self.store.launch_paths(
                plan.run.run_id, status.request, max(1, status.attempts)
            )
            status_path, log_path = str(found_status), str(found_log)
        launch = Launch.attach(
            Path(status_path),
            Path(log_path),
            pid=status.fact("pid"),
            proc_start=status.fact("proc_start"),
        )
        plan = as_launched(plan, status)
        session_dir = Path(plan.session_dir)
        journal = str(session_dir / "subagents" / "workflows" / plan.run.run_id / "journal.jsonl")
        cached = status.fact("forecast_cached")
        lines = status.fact("journal_lines")
        watch, stream = watchers(
            plan,
            journal,
            Path(log_path),
            str(session_dir),
            cached=set(cached) if isinstance(cached, tuple) else set(),
            skip_lines=lines if isinstance(lines, int) and lines >= 0 else None,
        )
        return Attempt(plan, status.request, launch, watch, stream)

    def stop(self, attempt: Attempt) -> RequestStatus:
        """Stop the relaunched process group; a request that already ended stays as it is.

        A process that had already exited by itself was not stopped: its request ends
        with how it ended (its exit code, snapshot and journal), not "by the user".
        """
        current = self.store.status(attempt.plan.run.run_id, attempt.request)
        if attempt.launch.poll(self.processes).state == "exited":
            return self._settle(attempt, current)
        attempt.launch.stop(self.processes)
        if current is not None and current.state not in ACTIVE_STATES:
            return current
        return self._record(
            attempt.plan, attempt.request, ResumeEvent.STOPPED_BY_USER, "by the user"
        )

    def _settle(self, attempt: Attempt, current: RequestStatus | None) -> RequestStatus:
        """Record how an exited launch ended (launching → running → outcome: two steps)."""
        for _ in range(2):
            if current is None or current.state not in ACTIVE_STATES:
                break
            changed, _misses = self.step(attempt)
            current = changed or self.store.status(attempt.plan.run.run_id, attempt.request)
        if current is None:
            msg = f"no resume request {attempt.request!r} in the log of {attempt.plan.run.run_id}"
            raise ResumeError(msg)
        return current
