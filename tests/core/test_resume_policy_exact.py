"""The launched resume follows the exact forecast of the plan it was given (the tripwire)."""

from __future__ import annotations

import pytest

from tests.core.test_resume_policy import the_run
from tests.policy_kit import make_world, policy_for
from wftop.core.forecast.exact import Seen, exact_forecast


@pytest.fixture
def world(tmp_path):  # type: ignore[no-untyped-def]
    return make_world(tmp_path)


def started(journal: str, label: str) -> None:
    with open(journal, "a") as handle:
        handle.write(
            f'{{"type":"started","key":"v2:{label}","agentId":"ax01","label":"{label}"}}\n'
        )


def test_the_launch_checked_again_keeps_the_rehearsed_forecast_and_trips_on_it(world):  # type: ignore[no-untyped-def]
    """The estimate serves a1–a4 from cache; a rehearsal that served a1 alone says a2 runs:
    a2 starting live is no miss, a1 starting live is."""
    policy, launcher, _ = policy_for(world)
    run = the_run(world.root)
    plan = policy.plan(run)
    assert {"a1", "a2"} <= set(plan.forecast.cached)
    a1 = next(call.result_agent_id for call in run.fold.ordered_calls() if call.label == "a1")
    seen = Seen(frozenset({a1}), 6, True, "2.1.332")
    rehearsed = plan.with_forecast(exact_forecast(run.fold, plan.strategy.value, seen))

    request, _ = policy.start(rehearsed)
    assert request.in_flight and request.plan.forecast.exact
    launcher.started()
    started(str(world.journal), "a2")
    assert [e.data for e in policy.step(request) if e.kind == "cache_miss"] == []
    started(str(world.journal), "a1")
    assert {"event": "cache_miss", "label": "a1"} in [e.data for e in policy.step(request)]
