"""The resume plan: strategy, exact argv, cwd, forecast per strategy, hazards, guard.

Nothing is spent or written while planning; `wftop.core.resume.driver` carries a
confirmed plan out.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from wftop.core.calls import failures_json
from wftop.core.compared import compared
from wftop.core.cost.prices import price_data
from wftop.core.cost.tokens import Spend
from wftop.core.cost.usage import Spends
from wftop.core.forecast.cachewarm import COLD, read_cache_warmth
from wftop.core.forecast.costs import CallCosts, call_costs, cold_cache_cost, estimate
from wftop.core.forecast.fates import Forecast
from wftop.core.forecast.inputs import gather
from wftop.core.forecast.instant import predict
from wftop.core.forecast.launchinfo import (
    LaunchInfo,
    find_launch,
    installed_version,
)
from wftop.core.index.coldpass import paused_gc
from wftop.core.model import Run, iso_utc, json_safe_dict
from wftop.core.read.journalfile import reading_once
from wftop.core.read.sessions import Liveness
from wftop.core.read.standin import name_calls
from wftop.core.resume.budget import budget_verdict
from wftop.core.resume.choice import Hazard, fresh_forecast, recommend
from wftop.core.resume.choice import hazards as find_hazards
from wftop.core.resume.command import build_fresh_prompt
from wftop.core.resume.errors import InvalidIdentifier
from wftop.core.resume.guard import Verdict, check
from wftop.core.resume.healfold import healed_journal
from wftop.core.resume.launcher import Strategy, build_argv, build_prompt
from wftop.core.resume.stopcause import StopCause, stop_cause
from wftop.core.resume.where import (
    find_claude,
    launch_env,
    project_slug,
    relocation_target,
)
from wftop.core.system.procs import ProcessTable


@compared
@dataclass(frozen=True, eq=False, repr=False)
class Plan:
    run: Run
    strategy: Strategy
    recommended: Strategy
    session_id: str
    """The session the CLI will run in: the owner, or a new one for relocate/surgical."""
    cwd: str | None
    argv: list[str]
    env: dict[str, str]
    """Environment entries set on top of the user's (only ``CLAUDE_CONFIG_DIR``)."""
    prompt: str
    script_path: str | None
    args: Any
    forecasts: dict[str, Forecast]
    hazards: list[Hazard]
    verdict: Verdict
    target_journal: str | None
    """Where relocate/surgical copy the journal (None for resume-owner)."""
    healed_lines: list[int] = field(default_factory=list)
    extra_flags: tuple[str, ...] = ()
    cache_warm_until: float | None = None
    """Until when the owner session's prompt cache probably stays warm (an estimate,
    `wftop.core.forecast.cachewarm`); None when it is cold or nothing of the session was cached."""
    stop_cause: StopCause | None = None
    """Why the run stopped (`wftop scan`'s cause), with a warning if it is probably still there."""
    costs: CallCosts | None = None
    """What the run's calls cost when they last ran: every forecast is priced from it."""
    max_usd: float | None = None
    """The budget the plan was held to (``--max-usd``), if any."""
    guard: Verdict | None = None
    """The guard's own verdict, before the budget (``verdict`` holds the budget's refusal
    when the selected forecast does not fit it)."""
    cold_cache: Spend | None = None
    """What resending the owner's conversation adds while its prompt cache is cold (written
    again, not read); None when it is warm or nothing says."""

    @property
    def session_dir(self) -> str:
        """The folder of the session the CLI will run in."""
        if self.session_id == self.run.session_id:
            return self.run.folder.session_dir
        project = project_slug(self.cwd) if self.cwd else self.run.folder.project
        return os.path.join(self.run.folder.root, "projects", project, self.session_id)

    @property
    def forecast(self) -> Forecast:
        return self.forecasts[self.strategy.value]

    def with_forecast(self, forecast: Forecast) -> Plan:
        """This plan with ``forecast`` (a rehearsal's) for its strategy: the plan shows it and
        the tripwire of a launch follows it. Where it re-runs the very calls the estimate
        re-runs, it costs what the estimate counted for them (a rehearsal spends no tokens)."""
        estimate = self.forecasts.get(forecast.strategy)
        if (
            forecast.rerun_tokens is None
            and estimate is not None
            and sorted(estimate.rerun) == sorted(forecast.rerun)
        ):
            forecast = replace(forecast, rerun_tokens=estimate.rerun_tokens)
        if self.costs is not None and forecast.cost is None:
            forecast = priced(forecast, self.costs)
        plan = replace(self, forecasts={**self.forecasts, forecast.strategy: forecast})
        if forecast.strategy == self.strategy.value:
            guard = self.guard or self.verdict
            plan = replace(plan, verdict=budget_verdict(forecast, self.max_usd, guard))
        return plan

    @property
    def rehearsal_key(self) -> tuple[object, ...]:
        """What a rehearsal of this plan read: the strategy, the journal as it stood, the
        script, the prompt (run id, script, args) and the flags."""
        run = self.run
        journal = (run.folder.journal, run.journal_size, run.journal_mtime)
        return (self.strategy, journal, self.script_path, self.prompt, self.extra_flags)

    def keeping_exact(self, earlier: Plan) -> Plan:
        """This plan (made again) with the exact forecast ``earlier`` had for its strategy,
        while the rehearsal still holds: nothing it read has changed."""
        forecast = earlier.forecasts.get(self.strategy.value)
        if forecast is None or not forecast.exact or earlier.rehearsal_key != self.rehearsal_key:
            return self
        return self.with_forecast(forecast)

    def to_json(self) -> dict[str, Any]:
        """The ``wftop resume --dry-run --json`` shape (`json_fields`, every string valid
        UTF-8)."""
        return json_safe_dict(self.json_fields())

    def json_fields(self) -> dict[str, Any]:
        """The ``wftop resume --dry-run --json`` shape as it is, for an encoder that makes
        its strings safe itself (`wftop.core.text.jsonout.dumps_masked`): the chosen
        ``forecast`` lists every call's fate (``calls``), each of ``forecasts`` the rest."""
        return {
            "run_id": self.run.run_id,
            "root": self.run.folder.root,
            "status": self.run.shown_status,
            "unreadable_reason": self.run.unreadable_reason,
            "strategy": self.strategy.value,
            "recommended": self.recommended.value,
            "argv": self.argv,
            "cwd": self.cwd,
            "env": self.env,
            "session_id": self.session_id,
            "owner_session_id": self.run.session_id,
            "script_path": self.script_path,
            "args": self.args,
            "forecast": self.forecast.to_json(),
            "forecasts": {
                name: forecast.to_json(calls=False) for name, forecast in self.forecasts.items()
            },
            "hazards": [{"code": h.code, "message": h.message} for h in self.hazards],
            "guard": self.verdict.reason,
            "refusal": None
            if self.verdict.ok
            else {
                "reason": self.verdict.reason,
                "fix": self.verdict.fix,
                "forceable": self.verdict.forceable,
                "force_risk": self.verdict.risk or None,
            },
            "target_journal": self.target_journal,
            "healed_lines": self.healed_lines,
            "cache_warm_until": iso_utc(self.cache_warm_until),
            "stop_cause": None if self.stop_cause is None else self.stop_cause.to_json(),
            "price_data": price_data(),
            "max_usd": self.max_usd,
            "cold_cache_cost_usd": None
            if self.cold_cache is None
            else self.cold_cache.to_json()["cost_usd"],
            "failures": failures_json(self.run),
        }


def priced(forecast: Forecast, costs: CallCosts) -> Forecast:
    """``forecast`` with what its calls will cost (`wftop.core.forecast.costs.estimate`)."""
    return replace(forecast, cost=estimate(forecast, costs))


def priced_each(forecasts: Mapping[str, Forecast], costs: CallCosts) -> dict[str, Forecast]:
    """Each forecast `priced`; forecasts of the very same calls (resume-owner and relocate,
    surgical when the heal drops nothing) are priced once."""
    done: list[Forecast] = []
    out = {}
    for name, forecast in forecasts.items():
        same = next(
            (
                other
                for other in done
                if other.calls is forecast.calls
                and other.more_live == forecast.more_live
                and other.unreached_calls == forecast.unreached_calls
            ),
            None,
        )
        out[name] = replace(forecast, cost=same.cost) if same else priced(forecast, costs)
        if same is None:
            done.append(out[name])
    return out


def make_plan(
    run: Run,
    *,
    processes: ProcessTable,
    now: float,
    strategy: Strategy | str | None = None,
    claude_bin: str | None = None,
    extra_flags: Sequence[str] = (),
    new_session_id: str | None = None,
    cli_version: tuple[int, int, int] | None = None,
    environ: Mapping[str, str] | None = None,
    version_of: Callable[[str], tuple[int, int, int] | None] = installed_version,
    max_usd: float | None = None,
    spends: Spends | None = None,
) -> Plan:
    """Everything a resume will do, computed without spending or writing anything.

    ``version_of`` asks the binary its version (``claude --version``) when ``cli_version``
    is not given; `wftop.core.resume.policy.ResumePolicy` passes its own. ``spends``: the
    transcripts' spends read (and their book, `wftop.core.cost.spendbook`).
    """
    binary = find_claude(claude_bin, environ)
    version = cli_version or version_of(binary)
    launch = find_launch(run)
    script_path = next(
        (path for path in (launch.script_path, run.script_path) if path and os.path.isfile(path)),
        launch.script_path or run.script_path,
    )
    mtime = run.journal_mtime
    known = {run.folder.journal: ((run.journal_size, mtime), run.fold)} if mtime is not None else {}
    # Objects for each call, none in a cycle: the collector would walk them again and again,
    # and once it resumed, its first collection walked every one (aged: moved to the oldest
    # generation without that walk).
    with reading_once(known), paused_gc(aged=True):
        return _make_plan(
            run,
            processes,
            now,
            strategy,
            binary,
            version,
            launch,
            script_path,
            extra_flags,
            new_session_id,
            environ,
            max_usd,
            spends,
        )


def _make_plan(
    run: Run,
    processes: ProcessTable,
    now: float,
    strategy: Strategy | str | None,
    binary: str,
    version: tuple[int, int, int] | None,
    launch: LaunchInfo,
    script_path: str | None,
    extra_flags: Sequence[str],
    new_session_id: str | None,
    environ: Mapping[str, str] | None,
    max_usd: float | None,
    spends: Spends | None = None,
) -> Plan:
    """`make_plan` once the launch is known, with the run's journal read once."""
    cwd = run.cwd
    healed, dropped = healed_journal(run.folder.journal)
    if healed is not run.fold:
        name_calls(healed, run.snapshot)  # a journal before 2.1.265: labels as the run's
    # resume-owner and relocate read the same journal, and surgical too when the heal drops
    # nothing (the very fold comes back): the calls are walked once for all of them.
    facts = gather(run, cli_version=version)
    healed_facts = None if healed is run.fold else gather(run, healed, cli_version=version)
    if healed_facts is not None:  # the damaged run's spans: one timeline for both
        healed_facts.share_timelines(facts)
    default = predict(facts, Strategy.RESUME_OWNER.value)
    if healed_facts is None:
        surgical = replace(default, strategy=Strategy.SURGICAL.value)
    else:
        surgical = predict(healed_facts, Strategy.SURGICAL.value)
    del facts, healed_facts  # and the timeline they share: 100,000 calls' spans sorted
    forecasts = {
        Strategy.RESUME_OWNER.value: default,
        Strategy.RELOCATE.value: replace(default, strategy=Strategy.RELOCATE.value),
        Strategy.SURGICAL.value: surgical,
    }
    fresh = strategy is not None and Strategy(strategy) is Strategy.FRESH
    if fresh:
        forecasts = {Strategy.FRESH.value: fresh_forecast(run)}
    elif run.journal_missing:  # its calls are the snapshot's: no cache keys to forecast from
        forecasts = {name: fresh_forecast(run, name) for name in forecasts}
    costs = call_costs(run, spends)
    forecasts = priced_each(forecasts, costs)
    hazards = find_hazards(run, launch.has_args, launch.source, script_path, version)
    transcript_gone = any(h.code == "transcript_missing" for h in hazards)
    owner_clear = run.owner.liveness not in (Liveness.ALIVE, Liveness.UNKNOWN)
    recommended = recommend(
        default, surgical, owner_clear=owner_clear, transcript_gone=transcript_gone
    )
    warmth = COLD if transcript_gone else read_cache_warmth(run.folder.transcript)
    chosen = Strategy(strategy) if strategy else recommended
    moving = chosen is not Strategy.RESUME_OWNER
    session_id = (new_session_id or str(uuid.uuid4())) if moving else run.session_id
    target = relocation_target(run, cwd, session_id) if moving and not fresh else None
    guard = check(run, processes=processes, now=now, script_path=script_path, cwd=cwd, fresh=fresh)
    prompt, argv = "", []
    try:
        if script_path:
            args = launch.args if launch.has_args else None
            prompt = (
                build_fresh_prompt(script_path, args)
                if fresh
                else build_prompt(run.run_id, script_path, args)
            )
            argv = build_argv(chosen, binary, session_id, prompt, extra_flags)
    except InvalidIdentifier as error:
        guard = Verdict(
            False, str(error), forceable=False, fix="remove or fix the value named (config file)"
        )
    return Plan(
        run=run,
        strategy=chosen,
        recommended=recommended,
        session_id=session_id,
        cwd=cwd,
        argv=argv,
        env=launch_env(run.folder.root, environ),
        prompt=prompt,
        script_path=script_path,
        args=launch.args if launch.has_args else None,
        forecasts=forecasts,
        hazards=hazards,
        verdict=budget_verdict(forecasts[chosen.value], max_usd, guard),
        guard=guard,
        target_journal=target,
        healed_lines=sorted(dropped) if chosen is Strategy.SURGICAL else [],
        extra_flags=tuple(extra_flags),
        cache_warm_until=warmth.until if warmth.warm_at(now) else None,
        stop_cause=stop_cause(run, processes=processes, now=now),
        costs=costs,
        max_usd=max_usd,
        cold_cache=None
        if transcript_gone or warmth.warm_at(now)
        else cold_cache_cost(run.folder.transcript),
    )
