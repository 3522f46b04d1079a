"""The plan with an exact forecast (what the tripwire follows) and with the owner's warm cache."""

from __future__ import annotations

import json
from pathlib import Path

from tests.core.test_cachewarm import request_time, responses, with_usage
from tests.corpus import copy_tree
from wftop.core.forecast.exact import Seen, exact_forecast
from wftop.core.forecast.fates import Fate
from wftop.core.index.coldpass import scan_roots
from wftop.core.model import Run, iso_utc
from wftop.core.resume.attempt import watchers
from wftop.core.resume.choice import recommend
from wftop.core.resume.launcher import Strategy
from wftop.core.resume.plan import Plan, make_plan
from wftop.core.system.procs import FakeProcessTable

VERSION = (2, 1, 332)


def the_run(root: Path) -> Run:
    (run,) = scan_roots([str(root)], processes=FakeProcessTable()).runs
    return run


def plan_of(run: Run, now: float, strategy: str | None = None) -> Plan:
    return make_plan(
        run,
        processes=FakeProcessTable(),
        now=now,
        strategy=strategy,
        claude_bin="/nonexistent/claude",
        cli_version=VERSION,
    )


def test_the_tripwire_follows_the_exact_forecast_once_the_plan_has_one(tmp_path: Path) -> None:
    """mid-failure, resume-owner: the estimate serves a1, a2 from cache; a rehearsal that
    served a1 alone makes a2 a re-run, and a launch of that plan watches a1 alone."""
    run = the_run(copy_tree("mid-failure", tmp_path))
    plan = plan_of(run, now=0.0, strategy="resume-owner")
    assert plan.forecast.provenance == "estimate"
    agents = {call.label: call.result_agent_id for call in run.fold.ordered_calls()}
    assert set(plan.forecast.cached) >= {"a1", "a2"}
    seen = Seen(frozenset({agents["a1"]}), 7, True, "2.1.332")
    exact = exact_forecast(run.fold, plan.strategy.value, seen)
    rehearsed = plan.with_forecast(exact)

    assert rehearsed.forecast.cached == ["a1"]
    assert rehearsed.forecast.provenance == "exact, rehearsed with claude 2.1.332"
    assert rehearsed.to_json()["forecast"]["exact"] is True
    assert rehearsed.to_json()["forecast"]["cli_version"] == "2.1.332"
    assert rehearsed.forecasts["surgical"] is plan.forecasts["surgical"]  # still the estimate
    log = tmp_path / "launch.log"
    journal, session = run.folder.journal, plan.session_dir
    assert watchers(rehearsed, journal, log, session)[0].cached == {"a1"}
    assert watchers(plan, journal, log, session)[0].cached == set(plan.forecast.cached)


def test_the_plan_says_until_when_the_owner_cache_stays_warm(tmp_path: Path) -> None:
    root = copy_tree("killed", tmp_path)
    (transcript,) = sorted((root / "projects").glob("*/*.jsonl"))
    assert plan_of(the_run(root), now=0.0).to_json()["cache_warm_until"] is None  # mock: no cache
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    last = responses(lines)[-1]
    with_usage(lines, last, read=30_000, hour=2_000)
    transcript.write_text("".join(json.dumps(r) + "\n" for r in lines))
    sent = request_time(lines, last)

    warm = plan_of(the_run(root), now=sent + 19 * 60)
    assert warm.cache_warm_until == sent + 3600
    assert warm.to_json()["cache_warm_until"] == iso_utc(sent + 3600)
    assert plan_of(the_run(root), now=sent + 3600).to_json()["cache_warm_until"] is None


def test_a_tie_goes_to_the_owner_session_whose_cache_it_uses(tmp_path: Path) -> None:
    """killed: no failed line to heal, so surgical runs the same calls as resume-owner."""
    plan = plan_of(the_run(copy_tree("killed", tmp_path)), now=0.0)
    default, surgical = plan.forecasts["resume-owner"], plan.forecasts["surgical"]
    assert default.live == surgical.live
    assert plan.recommended is Strategy.RESUME_OWNER
    tie = {"owner_clear": True}
    assert recommend(default, surgical, transcript_gone=False, **tie) is Strategy.RESUME_OWNER
    assert recommend(default, surgical, transcript_gone=True, **tie) is Strategy.RELOCATE


def test_surgical_wins_only_where_it_runs_fewer_calls(tmp_path: Path) -> None:
    plan = plan_of(the_run(copy_tree("mid-failure", tmp_path)), now=0.0)
    default, surgical = plan.forecasts["resume-owner"], plan.forecasts["surgical"]
    assert len(surgical.labels(Fate.RERUN)) < len(default.labels(Fate.RERUN))
    assert recommend(default, surgical, owner_clear=True, transcript_gone=False) is (
        Strategy.SURGICAL
    )
    assert recommend(default, surgical, owner_clear=False, transcript_gone=False) is (
        Strategy.RESUME_OWNER
    )


def test_a_plan_made_again_keeps_the_exact_forecast_until_the_journal_changes(
    tmp_path: Path,
) -> None:
    root = copy_tree("mid-failure", tmp_path)
    run = the_run(root)
    plan = plan_of(run, now=0.0, strategy="resume-owner")
    exact = exact_forecast(run.fold, plan.strategy.value, Seen(frozenset(), 7, True, "2.1.332"))
    rehearsed = plan.with_forecast(exact)

    again = plan_of(the_run(root), now=0.0, strategy="resume-owner")
    assert rehearsed.forecast.exact and rehearsed.forecast.cost is not None  # priced
    assert again.keeping_exact(rehearsed).forecast is rehearsed.forecast
    assert plan_of(run, now=0.0, strategy="surgical").keeping_exact(rehearsed).forecast.exact is (
        False
    )
    with open(run.folder.journal, "ab") as journal:
        journal.write(b'{"type":"started","key":"v2:x","agentId":"ax","label":"a7"}\n')
    changed = plan_of(the_run(root), now=0.0, strategy="resume-owner")
    assert changed.keeping_exact(rehearsed).forecast.exact is False


def test_an_exact_forecast_that_re_runs_what_the_estimate_does_costs_what_it_counted(
    tmp_path: Path,
) -> None:
    """mid-failure, surgical: a3 runs again, a5 and a6 re-run finished work either way."""
    run = the_run(copy_tree("mid-failure", tmp_path))
    plan = plan_of(run, now=0.0, strategy="surgical")
    assert plan.forecast.rerun_tokens, "the estimate counts the re-runs' tokens"
    agents = {call.label: call.result_agent_id for call in run.fold.ordered_calls()}
    served = frozenset(agents[label] for label in ("a1", "a2", "a4"))
    same = exact_forecast(run.fold, "surgical", Seen(served, 6, True, "2.1.332"))
    assert sorted(same.rerun) == sorted(plan.forecast.rerun) and same.rerun_tokens is None
    assert plan.with_forecast(same).forecast.rerun_tokens == plan.forecast.rerun_tokens
    fewer = exact_forecast(run.fold, "surgical", Seen(served - {agents["a4"]}, 6, True, "2.1.332"))
    assert plan.with_forecast(fewer).forecast.rerun_tokens is None
