"""One user's resume request, from plan to outcome: the policy ``wftop resume`` and the TUI share.

`ResumePolicy` makes the plan (strategy, forecast, guard, why the run stopped), re-reads
the run and checks it again at the moment of launch, launches through the driver, falls
back from ``resume-owner`` to ``relocate`` when the CLI finds no conversation for the
owner session (at most `MAX_LAUNCH_ATTEMPTS` launches per request), reports the calls the
forecast served from cache that start live (the tripwire), stops the relaunch at the first
one when asked, and ends with the outcome. A run with a request in flight (from this
process or another: the resume log knows) is followed, never launched again.

Every seam is injected: the clock, the process table, the state dir (a `ResumeStore`),
the claude binary and how its version is asked, the launcher, the sleep between polls.
The callers (``cli/commands/resume.py``, ``tui/screens/plan.py``) only show what it says.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence

from wftop.core.cost.runs import agents_spend
from wftop.core.cost.spendbook import SpendBook
from wftop.core.cost.tokens import NOTHING, Spend, spent_words
from wftop.core.cost.usage import Spends
from wftop.core.forecast.launchinfo import installed_version
from wftop.core.index.coldpass import ColdPass
from wftop.core.model import Run
from wftop.core.read.discovery import find_run_folders
from wftop.core.resume.attempt import relocated_plan
from wftop.core.resume.driver import NO_CONVERSATION, ResumeDriver
from wftop.core.resume.errors import ResumeError, ResumeInProgress
from wftop.core.resume.launcher import Launcher, Strategy, SubprocessLauncher
from wftop.core.resume.machine import MAX_LAUNCH_ATTEMPTS, ResumeState
from wftop.core.resume.plan import Plan, make_plan
from wftop.core.resume.records import RequestStatus
from wftop.core.resume.request import (
    FOLLOWED,
    Event,
    Request,
    agents_after,
    miss,
    refused,
    state_event,
)
from wftop.core.resume.store import ResumeStore
from wftop.core.resume.where import relocation_target
from wftop.core.system.procs import ProcessTable

Version = tuple[int, int, int] | None


class ResumePolicy:
    """Plans, launches, follows and ends a user's resume requests (see the module text).

    Args:
        processes: The process table (guard, owners, the launched process).
        clock: Seconds since the epoch (the guard's quiet time, the stop cause's warning).
        store: The resume log in the state dir.
        claude_bin: The binary to run (the config's, else ``$WFTOP_CLAUDE``, else PATH).
        launcher: Starts the CLI detached (default: the real `SubprocessLauncher`).
        version_of: Asks a binary its version; asked once per binary.
        extra_flags: The config's ``resume_flags``.
        environ: The user's environment for the launched CLI (default: this process's).
        sleep: Waits between polls while following.
        max_usd: A budget: a plan whose forecast may cost more is refused
            (`wftop.core.resume.budget`), ``force`` or not.
        spend_book: What transcripts spent, kept between plans and processes
            (`wftop.core.cost.spendbook`); None: each plan reads every transcript.
    """

    def __init__(
        self,
        *,
        processes: ProcessTable,
        clock: Callable[[], float],
        store: ResumeStore,
        claude_bin: str | None = None,
        launcher: Launcher | None = None,
        version_of: Callable[[str], Version] = installed_version,
        extra_flags: Sequence[str] = (),
        environ: Mapping[str, str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        max_usd: float | None = None,
        spend_book: SpendBook | None = None,
    ) -> None:
        self.processes = processes
        self.spend_book = spend_book
        self.clock = clock
        self.store = store
        self.claude_bin = claude_bin
        self.extra_flags = tuple(extra_flags)
        self.environ = environ
        self.sleep = sleep
        self.max_usd = max_usd
        self._version_of = version_of
        self._versions: dict[str, Version] = {}
        self.driver = ResumeDriver(
            store,
            launcher or SubprocessLauncher(processes),
            processes,
            environ=None if environ is None else dict(environ),
            clock=clock,
        )

    # -- planning ----------------------------------------------------------------------------

    def version(self, binary: str) -> Version:
        if binary not in self._versions:
            self._versions[binary] = self._version_of(binary)
        return self._versions[binary]

    def plan(
        self, run: Run, strategy: Strategy | str | None = None, *, session_id: str | None = None
    ) -> Plan:
        """The plan of ``run`` as it was read (``refresh`` reads it again first)."""
        spends = Spends(self.spend_book)
        plan = make_plan(
            run,
            processes=self.processes,
            now=self.clock(),
            strategy=strategy,
            claude_bin=self.claude_bin,
            extra_flags=self.extra_flags,
            new_session_id=session_id,
            environ=self.environ,
            version_of=self.version,
            max_usd=self.max_usd,
            spends=spends,
        )
        spends.keep()
        return plan

    def reread(self, run: Run, session_id: str | None = None) -> Run | None:
        """The run read again from disk (in ``session_id`` if given), or None if it is gone."""
        root = run.folder.root
        folders, _problems = find_run_folders(root)
        same = [folder for folder in folders if folder.run_id == run.run_id]
        wanted = session_id or run.session_id
        target = next((folder for folder in same if folder.session_id == wanted), None)
        if target is None:
            return None
        cold = ColdPass.of([root], same, processes=self.processes, now=self.clock)
        return next(cold.read([target]))

    def refresh(
        self, run: Run, strategy: Strategy | str | None = None, *, session_id: str | None = None
    ) -> Plan | None:
        """Re-read the run and plan it again: the live plan (None when the run is gone)."""
        fresh = self.reread(run)
        return None if fresh is None else self.plan(fresh, strategy, session_id=session_id)

    def in_flight(self, run_id: str) -> RequestStatus | None:
        """The run's request that is launching or running, in this process or another."""
        return self.driver.active(run_id)

    # -- launching ---------------------------------------------------------------------------

    def follow_existing(self, plan: Plan, status: RequestStatus) -> tuple[Request, list[Event]]:
        """Follow a request already in flight (never launch a second one)."""
        attempt = self.driver.attach(plan, status)
        request = Request(
            plan if attempt is None else attempt.plan,
            status.state,
            status.transitions[-1].reason,
            status.request,
            attempt,
            reattached=True,
        )
        text = f"a resume of {plan.run.run_id} is already {status.state.word}: following it"
        return request, [Event({"event": "reattached", "request": status.request}, text)]

    def start(
        self, plan: Plan, *, force: bool = False, recheck: bool = True, reason: str = "user asked"
    ) -> tuple[Request, list[Event]]:
        """Launch ``plan`` if the run, read again now, still allows it (or ``force`` may).

        A request already in flight is followed instead; a refusal is recorded and says why.
        ``reason`` says who asked (the supervisor's requests say ``supervise: <cause>``).
        """
        active = self.in_flight(plan.run.run_id)
        if active is not None:
            return self.follow_existing(plan, active)
        if recheck:
            fresh = self.refresh(plan.run, plan.strategy, session_id=plan.session_id)
            if fresh is None:
                reason = f"run {plan.run.run_id} is no longer in session {plan.run.session_id}"
                return Request(plan, None, reason), [refused(reason)]
            plan = fresh.keeping_exact(plan)  # a rehearsal still holds: the tripwire follows it
        try:
            status, attempt = self.driver.start(plan, force=force, reason=reason)
        except ResumeInProgress as busy:
            return self.follow_existing(plan, busy.status)
        except ResumeError as error:
            return Request(plan, None, str(error)), [
                Event({"event": "error", "reason": str(error)}, f"wftop: {error}")
            ]
        reason = status.transitions[-1].reason
        request = Request(plan, status.state, reason, status.request, attempt)
        if attempt is None and status.state is ResumeState.BLOCKED:
            return request, [refused(reason)]
        return request, ([] if attempt is not None else [state_event(status.state, reason)])

    # -- following ---------------------------------------------------------------------------

    def step(self, request: Request, *, stop_on_miss: bool = False) -> list[Event]:
        """Poll the launch once: tripwire misses, state changes, the fallback, the end."""
        attempt = request.attempt
        if attempt is None or request.ended:
            return []
        run_id = attempt.plan.run.run_id
        try:
            status, misses = self.driver.step(attempt)
        except ResumeError:  # another follower recorded the change first
            status, misses = self.store.status(run_id, attempt.request), []
            if status is not None and status.state is request.state:
                status = None
        events = [miss(label) for label in misses]
        request.misses.extend(misses)
        if misses and stop_on_miss and (status is None or status.state in FOLLOWED):
            status = self.driver.stop(attempt)
        if status is None:
            return events
        request.state, request.reason = status.state, status.transitions[-1].reason
        events.append(state_event(status.state, request.reason))
        if self._falls_back(request, status):
            session = str(uuid.uuid4())
            plan = request.plan
            target = relocation_target(plan.run, plan.cwd, session)
            relocated = relocated_plan(plan, Strategy.RELOCATE, target, session)
            status, fallback = self.driver.fall_back(attempt, relocated)
            request.plan, request.state = relocated, status.state
            request.reason = status.transitions[-1].reason
            if fallback is not None:
                request.attempt = fallback
                return events
            events.append(state_event(status.state, request.reason))
        if request.ended:
            events.append(self._done(request))
        return events

    def _falls_back(self, request: Request, status: RequestStatus) -> bool:
        return (
            status.state is ResumeState.LAUNCH_FAILED
            and status.attempts < MAX_LAUNCH_ATTEMPTS
            and request.plan.strategy is Strategy.RESUME_OWNER
            and NO_CONVERSATION in request.reason
        )

    def _done(self, request: Request) -> Event:
        assert request.attempt is not None and request.state is not None
        progress = request.attempt.progress
        plan = request.plan
        spent = self.spent(request)
        forecast = plan.forecast.cost
        data = {
            "event": "done",
            "state": request.state.value,
            "live": progress.started,
            "cached": progress.cached,
            "misses": progress.misses,
            "run_id": progress.run_id or plan.run.run_id,
            "session_id": plan.session_id,
            **spent.to_json(),
            "forecast": None if forecast is None else forecast.to_json(),
        }
        request.spent = spent_words(spent, None if forecast is None else forecast.dollars_text())
        return Event(data, f"live calls: {', '.join(progress.started) or '-'} · {request.spent}")

    def spent(self, request: Request) -> Spend:
        """What the resume spent: the agents it started (the calls it ran live), from their
        transcripts. They are the attempts after the lines the journal held at launch (a
        request followed after a restart has a plan of the run as it reads now, which knows
        them all); without that mark, the agents its plan did not know."""
        plan = request.plan
        fresh = self.reread(plan.run, plan.session_id) or self.reread(plan.run)
        if fresh is None:
            return NOTHING
        watch = request.attempt.watch if request.attempt is not None else None
        if watch is not None and watch.tail is not None:
            ran = agents_after(fresh, watch.skip_lines)
        else:
            before = {agent for call in plan.run.fold.calls.values() for agent in call.agent_ids}
            ran = [
                agent
                for call in fresh.fold.ordered_calls()
                for agent in call.agent_ids
                if agent not in before
            ]
        returned = {
            agent for call in fresh.fold.calls.values() for agent in call.returned_agent_ids
        }
        return agents_spend(fresh.folder.path, ran, returned=returned)

    def follow(
        self,
        request: Request,
        *,
        interval: float = 0.2,
        stop_on_miss: bool = False,
        give_up: Callable[[], bool] = lambda: False,
    ) -> Iterator[Event]:
        """Step until the request ends (or ``give_up`` says so), sleeping between polls."""
        while request.in_flight:
            yield from self.step(request, stop_on_miss=stop_on_miss)
            if request.ended or give_up():
                return
            self.sleep(interval)

    def stop(self, request: Request) -> list[Event]:
        """Stop the relaunched process (a request that already ended stays as it is)."""
        if request.attempt is None or request.ended:
            return []
        status = self.driver.stop(request.attempt)
        request.state, request.reason = status.state, status.transitions[-1].reason
        return [state_event(status.state, request.reason), self._done(request)]

    def after(self, request: Request) -> Plan | None:
        """The plan of the run where the request left it (the copy, after a relocation)."""
        fresh = self.reread(request.plan.run, request.plan.session_id)
        if fresh is None:
            fresh = self.reread(request.plan.run)
        return None if fresh is None else self.plan(fresh)
