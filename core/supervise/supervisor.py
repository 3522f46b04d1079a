"""The supervisor: each pass reads the runs in its scope, decides, acts, and writes it down.

For every run in scope it gathers the facts (`wftop.core.supervise.facts`), asks the
decision (`wftop.core.supervise.decide`), writes the decision to the audit log when it
says something new, tells a person what needs one (the notifier), and launches through
the resume policy, the one ``r`` and ``wftop resume`` use: the same last check, the same
run lock and resume log, so the TUI and the supervisor never launch one run twice. A
launch is decided again just before it is made, with the exact forecast when a
rehearsal can run. Its requests say ``supervise: <cause>`` in the resume log: a
supervisor restarted after its own death finds them there, follows the one in flight,
writes down how the others ended, and counts them as attempts.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from wftop.core.cost.tokens import dollars
from wftop.core.index.coldpass import scan_roots
from wftop.core.model import Run, Status
from wftop.core.resume.plan import Plan
from wftop.core.resume.policy import ResumePolicy
from wftop.core.resume.records import RequestStatus
from wftop.core.supervise.audit import AuditLine
from wftop.core.supervise.decide import (
    CANDIDATES,
    Action,
    Decision,
    Facts,
    Moment,
    Settings,
    decide,
)
from wftop.core.supervise.facts import (
    Pricer,
    Stop,
    ours,
    past_resumes,
    quiet_at,
    request_cause,
    request_reason,
    why_stopped,
)
from wftop.core.supervise.ledger import Ledger
from wftop.core.supervise.notify import Note, Notifier
from wftop.core.supervise.probe import base_url, host_port
from wftop.core.supervise.rules import Clears, clears
from wftop.core.supervise.scope import Scope
from wftop.core.supervise.seams import FOLLOW_EVERY, Followed, Seams
from wftop.core.supervise.state import SuperviseState, SuperviseStore


class Supervisor:
    def __init__(
        self,
        *,
        roots: list[str],
        scope: Scope,
        settings: Settings,
        store: SuperviseStore,
        policy: ResumePolicy,
        pricer: Pricer,
        notifier: Notifier,
        seams: Seams | None = None,
        act: bool = True,
    ) -> None:
        self.roots = roots
        self.scope = scope
        self.settings = settings
        self.store = store
        self.policy = policy
        self.pricer = pricer
        self.notifier = notifier
        self.seams = seams or Seams()
        self.act = act
        """False (``--dry-run``): decide and say, write and launch nothing."""
        self.ledger = Ledger()
        self.following: dict[str, Followed] = {}
        self.rehearsed: dict[str, Plan] = {}
        """The last rehearsed plan of each run (by identity)."""
        self.said: list[tuple[Run, Decision]] = []
        """Every decision of the last pass (``--dry-run`` prints them)."""
        self.failed = False
        """A resume it launched ended other than completed."""

    # -- one pass --------------------------------------------------------------------------

    def load(self) -> SuperviseState:
        """Check the state dir (AuditError when it cannot be used) and read what it holds."""
        if self.act:
            self.store.audit.check_writable()
        self.ledger = Ledger.of(self.store.audit.read())
        return self.store.read_state()

    def runs(self, state: SuperviseState, run_ids: Collection[str] | None = None) -> list[Run]:
        """The runs in scope (of ``run_ids`` only, when given: the others are not read), one
        per run id: the newest copy (a run continued in another session leaves its older copy
        superseded)."""
        if run_ids is not None and not run_ids:
            return []
        found = scan_roots(
            self.roots, processes=self.policy.processes, now=self.seams.clock, run_ids=run_ids
        )
        newest: dict[str, Run] = {}
        for run in sorted(found.runs, key=lambda run: run.status is Status.SUPERSEDED):
            if run.host is None and self.scope.takes(run, state):  # newest activity first
                newest.setdefault(run.run_id, run)
        return list(newest.values())

    def step(self, run_ids: Collection[str] | None = None) -> list[Run]:
        """One pass over the runs in scope (of ``run_ids`` only, when given); returns them."""
        state = self.load()
        self.said = []
        runs = self.runs(state, run_ids)
        for run in runs:
            self.reconcile(run)
            self.consider(run)
        self.poll()
        return runs

    def next_until(self) -> float | None:
        """The soonest moment a wait of the last pass ends."""
        untils = [decision.until for _run, decision in self.said if decision.until is not None]
        return min(untils, default=None)

    def moment(self) -> Moment:
        now = self.seams.clock()
        return Moment(now, self.seams.day(now)[1], self.seams.jitter)

    # -- facts -----------------------------------------------------------------------------

    def facts(self, run: Run, plan: Plan, stop: Stop | None = None) -> Facts:
        stop = stop or why_stopped(run, plan)
        past = past_resumes(self.policy.store, run.run_id, stop.cause)
        now = self.seams.clock()
        start, _end = self.seams.day(now)
        verdict = plan.guard or plan.verdict  # the guard's own verdict; the cap is apart
        api_host, reachable = None, None
        if clears(stop.cause) is Clears.CONNECT:
            found = host_port(base_url(run.folder.root, plan.cwd, self.seams.environ))
            if found is not None:
                api_host = f"{found[0]}:{found[1]}"
                reachable = self.seams.probe(*found)
        fresh_ok, fresh_forecast, fresh_over = None, None, None
        cap = self.settings.max_usd
        if self.settings.fallback_fresh:
            fresh = self.policy.plan(run, "fresh")
            fresh_ok, fresh_forecast = fresh.verdict.ok, self.pricer.forecast(fresh)
            fresh_over = self.pricer.over_cap(fresh, cap)
        active = past.in_flight
        return Facts(
            run=run.run_id,
            status=run.shown_status,
            cause=stop.cause,
            evidence=stop.evidence,
            cause_at=stop.at,
            stopped_at=run.last_activity,
            resets_at=stop.resets_at,
            retry_at=stop.retry_at,
            api_host=api_host,
            reachable=reachable,
            guard_ok=verdict.ok,
            guard_reason=verdict.reason,
            guard_forceable=verdict.forceable,
            quiet_at=quiet_at(run),
            fresh_ok=fresh_ok,
            strategy=plan.strategy.value,
            forecast=self.pricer.forecast(plan),
            over_cap=self.pricer.over_cap(plan, cap),
            fresh_forecast=fresh_forecast,
            fresh_over_cap=fresh_over,
            in_flight=None if active is None else active.request,
            in_flight_ours=active is not None and ours(active),
            attempts=past.attempts,
            last_end=past.last_end,
            last_state=past.last_state,
            spent_today=self.ledger.spent_since(start),
        )

    # -- deciding and acting ---------------------------------------------------------------

    def exact(self, plan: Plan) -> Plan:
        """The plan with its forecast rehearsed, once per state of the run's journal (the
        rehearsal is kept while nothing it read has changed)."""
        kept = self.rehearsed.get(plan.run.ident)
        if kept is not None:
            plan = plan.keeping_exact(kept)
        if plan.forecast.exact or self.seams.rehearse is None:
            return plan
        plan = self.seams.rehearse(plan)
        if plan.forecast.exact:
            self.rehearsed[plan.run.ident] = plan
        return plan

    def consider(self, run: Run) -> None:
        if run.run_id in self.following:
            return
        plan = self.policy.plan(run)
        facts = self.facts(run, plan)
        decision = decide(facts, self.settings, self.moment())
        needs_exact = decision.action is Action.LAUNCH or facts.over_cap is not None
        if needs_exact and run.shown_status in CANDIDATES and self.settings.max_usd is not None:
            exact = self.exact(plan)
            if exact is not plan:
                plan = exact
                facts = replace(
                    facts,
                    forecast=self.pricer.forecast(plan),
                    over_cap=self.pricer.over_cap(plan, self.settings.max_usd),
                )
                decision = decide(facts, self.settings, self.moment())
        self.said.append((run, decision))
        if decision.action is Action.NOTHING or not self.act:
            return
        if decision.action is not Action.FOLLOW and self.ledger.new_episode(
            run.run_id, facts.cause
        ):
            what = f"{run.shown_status} · stopped by {facts.cause or 'no known cause'}"
            evidence = f": {facts.evidence}" if facts.evidence else ""
            self.write(
                run.run_id, "considered", what + evidence, facts, replace(decision, notify=False)
            )
        if decision.action is Action.FOLLOW:
            self.attach(run, plan, facts)
        elif decision.action is Action.LAUNCH:
            self.launch(run, plan, facts, decision)
        else:
            self.write(run.run_id, decision.action.value, decision.reason, facts, decision)

    def write(
        self,
        run_id: str,
        word: str,
        reason: str,
        facts: Facts | None,
        decision: Decision | None = None,
        *,
        request: str | None = None,
        cost: float | None = None,
        always: bool = False,
    ) -> None:
        """Append a line when it says something new; tell a person when it is for them."""
        line = AuditLine(
            at=self.seams.clock(),
            run=run_id,
            decision=word,
            reason=reason,
            until=decision.until if decision is not None and word == "waiting" else None,
            forecast_usd=decision.forecast if decision is not None else None,
            cap_usd=self.settings.max_usd,
            cost_usd=cost,
            cause=facts.cause if facts is not None else None,
            request=request,
        )
        if not always and not self.ledger.changed(line):
            return
        self.store.audit.append(line)
        self.ledger.add(line)
        self.seams.echo(line)
        if (decision is not None and decision.notify) or word == "finished":
            self.notifier.notify(Note(line.at, run_id, word, reason))

    def launch(self, run: Run, plan: Plan, facts: Facts, decision: Decision) -> None:
        """Decide again with the run read again (and rehearsed), then launch through the policy."""
        fresh = decision.strategy == "fresh"
        plan = self.policy.refresh(run, "fresh" if fresh else None) or plan
        if not fresh:
            plan = self.exact(plan)
        facts = self.facts(plan.run, plan)
        again = decide(facts, self.settings, self.moment())
        if again.action is not Action.LAUNCH:
            self.write(run.run_id, again.action.value, again.reason, facts, again)
            return
        request, events = self.policy.start(plan, reason=request_reason(facts.cause))
        if request.reattached or request.attempt is None:
            why = request.reason if request.attempt is None else "a resume started elsewhere"
            self.write(run.run_id, "waiting", f"not launched at the last check: {why}", facts)
            return
        self.write(
            run.run_id, "launched", again.reason, facts, again, request=request.request_id,
            always=True,
        )  # fmt: skip
        self.following[run.run_id] = Followed(run, request, facts.cause, again.forecast)

    def attach(self, run: Run, plan: Plan, facts: Facts) -> None:
        """Follow the supervisor's own request in flight (found after a restart)."""
        status = self.policy.in_flight(run.run_id)
        if status is None:
            return
        request, _events = self.policy.follow_existing(plan, status)
        if status.request not in self.ledger.launched:
            self.write(
                run.run_id, "launched", "found in flight after a restart: following it", facts,
                request=status.request, always=True,
            )  # fmt: skip
        launched = self.ledger.launched.get(status.request)
        forecast = launched.forecast_usd if launched is not None else facts.forecast
        self.following[run.run_id] = Followed(run, request, facts.cause, forecast)

    # -- following -------------------------------------------------------------------------

    def poll(self) -> None:
        """Step every launch followed; write down each one that ended."""
        for run_id, followed in list(self.following.items()):
            self.policy.step(followed.request, stop_on_miss=True)
            if followed.request.ended:
                del self.following[run_id]
                status = None
                if followed.request.request_id is not None:
                    status = self.policy.store.status(run_id, followed.request.request_id)
                self.finish(followed.run, status, followed.cause)

    def wait(self) -> None:
        """Follow every launch to its end (``--once``)."""
        while self.following:
            self.seams.sleep(FOLLOW_EVERY)
            self.poll()

    def finish(self, run: Run, status: RequestStatus | None, cause: str | None) -> None:
        if status is None or status.request in self.ledger.finished:
            return
        launched = self.ledger.launched.get(status.request)
        forecast = launched.forecast_usd if launched is not None else None
        cost = self.cost(run, status)
        self.failed = self.failed or status.state.value != "completed"
        words = f"{status.state.value}: {status.transitions[-1].reason}"
        spent = "unknown" if cost is None else dollars(cost)
        words += f" · cost {spent}"
        if forecast is not None:
            words += f" against the forecast {forecast.text()}"
        decision = Decision(Action.NOTHING, words, forecast=forecast)
        facts = Facts(run=run.run_id, status=status.state.value, cause=cause)
        self.write(
            run.run_id, "finished", words, facts, decision, request=status.request, cost=cost,
            always=True,
        )  # fmt: skip

    def cost(self, run: Run, status: RequestStatus) -> float | None:
        """What the agents the request's launch started spent (read from the journal it wrote)."""
        session = status.fact("session_id") or run.session_id
        skip = status.fact("journal_lines")
        skip = skip if isinstance(skip, int) else 0
        after = self.policy.reread(run, session)
        if after is None:
            return None
        agents = [
            agent
            for call in after.fold.calls.values()
            for agent, line in zip(call.agent_ids, call.attempt_lines, strict=False)
            if line > skip
        ]
        return self.pricer.spent(after.folder.path, agents)

    def reconcile(self, run: Run) -> None:
        """Write down how the supervisor's requests that ended unwatched ended (a
        supervisor killed while it followed one)."""
        if not self.act or run.run_id in self.following:
            return
        transitions, _problems = self.policy.store.history(run.run_id)
        for request in dict.fromkeys(transition.request for transition in transitions):
            status = self.policy.store.status(run.run_id, request)
            if status is None or status.active or not ours(status) or status.attempts == 0:
                continue
            if request in self.ledger.finished:
                continue
            cause = request_cause(status)
            facts = Facts(run=run.run_id, status=run.shown_status, cause=cause)
            if request not in self.ledger.launched:
                self.write(
                    run.run_id, "launched", "found in the resume log after a restart", facts,
                    request=request, always=True,
                )  # fmt: skip
            self.finish(run, status, cause)
