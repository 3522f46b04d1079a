"""What a resume will cost: each strategy's forecast priced as a range, by the issue's rules,
on trees the real CLI wrote; and the budget that refuses a plan whose range may exceed it."""

from __future__ import annotations

import shutil
import time
from dataclasses import replace
from pathlib import Path

import pytest

from tests.corpus import tree
from wftop.core.cost.runs import run_spend
from wftop.core.forecast.costs import call_costs, estimate
from wftop.core.forecast.fates import Fate
from wftop.core.forecast.inputs import gather
from wftop.core.forecast.instant import predict
from wftop.core.index.coldpass import scan_roots
from wftop.core.resume.budget import budget_verdict, over_budget
from wftop.core.resume.guard import OK
from wftop.core.resume.plan import make_plan
from wftop.core.system.procs import FakeProcessTable

MILLION = 1_000_000
A2 = (800 * 4 + 95 * 20 + 15000 * 0.2 + 2000 * 5) / MILLION  # claude-opus-5-5, costs' a2
ONE_CALL = (10 * 4 + 20 * 20) / MILLION  # the corpus' calls: 10 input and 20 output tokens


def only_run(root: Path):
    (run,) = scan_roots([str(root)], processes=FakeProcessTable()).runs
    return run


def plan_of(run, **options):
    return make_plan(
        run,
        processes=FakeProcessTable(),
        now=time.time(),
        claude_bin="/nonexistent/claude",
        version_of=lambda _binary: (2, 1, 332),
        **options,
    )


def label_spend(run, label):
    spent = run_spend(run)
    return next(spent.of(c) for c in run.fold.ordered_calls() if c.label == label)


def test_a_call_that_never_returned_is_estimated_at_the_median_and_the_rest_is_open(tmp_path):
    run = only_run(tree("costs"))  # a5 was in flight; a4 answered as an unpriced model
    costs = call_costs(run)
    assert costs.median is not None and costs.median.cost_usd == pytest.approx(A2)
    forecast = predict(gather(run), "resume-owner")
    assert forecast.live == ["a5"] and forecast.more_live
    cost = estimate(forecast, costs)
    assert cost.low.cost_usd == pytest.approx(A2) and cost.high is None
    assert cost.to_json()["cost_usd"] == {"low": round(A2, 6), "high": None}
    assert cost.to_json()["tokens"]["high"] is None
    assert cost.dollars_text() == f"≥ ${A2:.4f}, calls after a5 unknown"


def test_a_call_a_429_rejected_costs_the_median_not_nothing():
    run = only_run(tree("api-errors-429"))  # a6 got 429 three times: its answer cost $0
    a6 = next(c for c in run.fold.ordered_calls() if c.label == "a6")
    assert label_spend(run, "a6").cost_usd == 0.0 and not a6.has_result
    forecast = predict(gather(run), "resume-owner")
    assert "a6" in forecast.live
    cost = estimate(forecast, call_costs(run))
    assert cost.low.cost_usd == pytest.approx(ONE_CALL)


def test_a_live_call_that_returned_costs_what_its_last_attempt_did():
    run = only_run(tree("mid-failure"))  # a3 failed; the owner's resume re-runs a4, a5, a6
    forecast = predict(gather(run), "resume-owner")
    assert forecast.live == ["a3", "a4", "a5", "a6"]
    cost = estimate(forecast, call_costs(run))
    # a4, a5, a6 at their own last attempt (one call each); a3 (a 429, $0) at the median.
    assert cost.low.cost_usd == pytest.approx(4 * ONE_CALL)
    assert cost.low.tokens.total == 4 * 30


def test_calls_at_risk_cost_nothing_at_the_low_end_and_their_last_attempt_at_the_high():
    run = only_run(tree("mid-failure"))
    forecast = predict(gather(run), "resume-owner")
    risky = replace(
        forecast,
        calls=tuple(
            replace(c, fate=Fate.AT_RISK) if c.label == "a2" else c for c in forecast.calls
        ),
        more_live=False,
    )
    cost = estimate(risky, call_costs(run))
    assert cost.low.cost_usd == pytest.approx(4 * ONE_CALL)
    assert cost.high is not None and cost.high.cost_usd == pytest.approx(5 * ONE_CALL)
    assert cost.dollars_text() == f"${4 * ONE_CALL:.4f}–${5 * ONE_CALL:.4f}"


def test_calls_not_reached_come_from_the_rehearsal_when_it_ran_the_whole_script():
    run = only_run(tree("costs"))
    forecast = replace(predict(gather(run), "resume-owner"), exact=True, unreached_calls=1)
    cost = estimate(forecast, call_costs(run))  # a5 and a6, each at the median
    assert cost.basis == "rehearsal"
    assert cost.low.cost_usd == pytest.approx(2 * A2) == cost.high_usd


def test_calls_not_reached_come_from_the_last_completed_run_of_the_same_script(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(tree("killed"), root)
    (project,) = (root / "projects").iterdir()
    clean = tree("clean") / "projects"
    for session in next(clean.iterdir()).iterdir():  # a completed run of six.js, same project
        shutil.copytree(session, project / session.name) if session.is_dir() else shutil.copy(
            session, project / session.name
        )
    runs = scan_roots([str(root)], processes=FakeProcessTable()).runs
    killed = next(run for run in runs if run.status.value == "dead")
    costs = call_costs(killed)
    assert costs.unreached_from == "wf_6bc9feb7-808"
    assert costs.unreached is not None and costs.unreached.cost_usd == pytest.approx(ONE_CALL)
    cost = estimate(predict(gather(killed), "resume-owner"), costs)
    assert cost.basis == "run wf_6bc9feb7-808"
    # a5 at the median, a6 as it cost in the completed run: the range closes.
    assert cost.low.cost_usd == pytest.approx(2 * ONE_CALL) == cost.high_usd


def test_a_plan_prices_every_strategy_and_names_its_price_data():
    run = only_run(tree("killed"))
    plan = plan_of(run)
    data = plan.to_json()
    assert data["price_data"]["package"] == "genai-prices" and data["price_data"]["version"]
    for forecast in [data["forecast"], *data["forecasts"].values()]:
        assert forecast["cost_usd"] == {"low": round(ONE_CALL, 6), "high": None}
        assert forecast["tokens"] == {"low": 30, "high": None}


def test_the_budget_refuses_an_open_range_one_above_it_and_an_unpriced_one():
    run = only_run(tree("mid-failure"))
    costs = call_costs(run)
    forecast = predict(gather(run), "resume-owner")
    opened = replace(forecast, cost=estimate(forecast, costs))
    assert "open-ended" in (over_budget(opened, 100.0) or "")
    closed = replace(forecast, more_live=False)
    closed = replace(closed, cost=estimate(closed, costs))
    assert over_budget(closed, 4 * ONE_CALL) is None
    why = over_budget(closed, 0.001)
    assert why is not None and "$0.0018" in why and "$0.0010" in why
    verdict = budget_verdict(closed, 0.001, OK)
    assert not verdict.ok and not verdict.forceable and not verdict.allows(force=True)
    assert budget_verdict(closed, None, OK) is OK
    unpriced_run = only_run(tree("costs"))
    f = predict(gather(unpriced_run), "fresh")
    f = replace(f, calls=tuple(replace(c, fate=Fate.LIVE) for c in f.calls), more_live=False)
    f = replace(f, cost=estimate(f, call_costs(unpriced_run)))
    assert "claude-unreleased-0 unpriced" in (over_budget(f, 100.0) or "")


def test_a_cold_owner_cache_says_what_writing_it_again_adds():
    """killed's owner session last answered with 10 input tokens and asked for the 5-minute
    cache: resending that context writes 10 tokens ($5 a million on claude-opus-5-5) where a
    warm cache would have read them ($0.20 a million)."""
    run = only_run(tree("killed"))
    plan = plan_of(run)
    assert plan.cache_warm_until is None and plan.cold_cache is not None
    assert plan.cold_cache.tokens.cache_write_5m == 10
    assert plan.cold_cache.cost_usd == pytest.approx(10 * (5 - 0.2) / MILLION)
    assert plan.to_json()["cold_cache_cost_usd"] == pytest.approx(10 * 4.8 / MILLION)


def test_an_exact_forecast_that_fits_the_budget_lifts_the_estimates_refusal():
    run = only_run(tree("costs"))
    plan = plan_of(run, max_usd=1.0, strategy="resume-owner")
    assert "open-ended" in budget_verdict(plan.forecast, 1.0, OK).reason
    plan = replace(plan, guard=OK)  # whatever this machine's guard says of the tree
    rehearsed = replace(plan.forecast, exact=True, unreached_calls=1, cost=None)
    fits = plan.with_forecast(rehearsed)  # a5 and a6 at the median: 2 × $0.0222
    assert fits.forecast.cost is not None and fits.forecast.cost.high_usd == pytest.approx(2 * A2)
    assert fits.verdict is OK
    tight = replace(plan, max_usd=0.01).with_forecast(rehearsed)
    assert not tight.verdict.ok and "above the budget of $0.0100" in tight.verdict.reason
