"""The forecasts of a plan that share their calls (resume-owner and relocate; surgical when
the heal drops nothing) share the lists of labels made of them, the re-runs of finished work
too: a plan of 100,000 calls made each list once, not once for each forecast, each priced
copy and each JSON field; the walk that makes a forecast's fates makes its lists of labels
by fate as it goes (identity, values and reads compared, not time)."""

from __future__ import annotations

import time
from typing import cast

import pytest

from tests.corpus import tree
from wftop.core.forecast import instant as instant_module
from wftop.core.forecast.costs import call_costs, estimate
from wftop.core.forecast.fates import LIVE_FATES, CallFate, Fate
from wftop.core.forecast.inputs import gather
from wftop.core.forecast.instant import predict
from wftop.core.index.coldpass import scan_roots
from wftop.core.resume.plan import make_plan
from wftop.core.system.procs import FakeProcessTable


@pytest.mark.parametrize("name", ["killed", "mid-failure", "killed-in-parallel-resumed"])
def test_forecasts_of_the_same_calls_share_their_reruns(name: str) -> None:
    (run,) = scan_roots([str(tree(name))], processes=FakeProcessTable()).runs
    plan = make_plan(
        run,
        processes=FakeProcessTable(),
        now=time.time(),
        claude_bin="/nonexistent/claude",
        version_of=lambda _binary: (2, 1, 332),
    )
    owner, relocate = plan.forecasts["resume-owner"], plan.forecasts["relocate"]
    assert owner.calls is relocate.calls
    assert owner.rerun is relocate.rerun
    calls = owner.calls
    assert owner.rerun == [c.label for c in calls if c.had_result and c.fate in LIVE_FATES]
    assert plan.json_fields()["forecasts"]["relocate"]["rerun"] is owner.rerun


class Counted(CallFate):
    """A call's fate that counts how often the fate of a call from cache is read."""

    __slots__ = ()
    reads = 0

    @property  # type: ignore[override]
    def fate(self) -> Fate:
        fate = cast(Fate, CallFate.fate.__get__(self))  # type: ignore[attr-defined]
        Counted.reads += fate is Fate.CACHED
        return fate

    @fate.setter
    def fate(self, value: Fate) -> None:
        CallFate.fate.__set__(self, value)  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ["killed", "killed-in-parallel", "mid-failure", "resumed"])
def test_a_forecasts_labels_by_fate_are_the_walks_own(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk that made the fates hands its lists of labels by fate and of the calls not
    from cache to the forecast: its labels, JSON and live lists read no fate of a call from
    cache again (a plan passed over 100,000 of them for each; their reads counted)."""
    (run,) = scan_roots([str(tree(name))], processes=FakeProcessTable()).runs
    monkeypatch.setattr(instant_module, "CallFate", Counted)
    Counted.reads = 0
    forecast = predict(gather(run, cli_version=(2, 1, 332)), "resume-owner")
    calls = forecast.calls
    assert calls and all(type(call) is Counted for call in calls)
    if name != "mid-failure":  # whose failure's timeline puts cached calls in doubt
        assert Counted.reads == 0
    Counted.reads = 0
    estimate(forecast, call_costs(run))
    by_fate = {fate: forecast.labels(fate) for fate in Fate}
    assert (forecast.cached, forecast.at_risk) == (by_fate[Fate.CACHED], by_fate[Fate.AT_RISK])
    forecast.to_json(calls=False)
    forecast.labels(*LIVE_FATES)
    assert Counted.reads == 0
    for fate, labels in by_fate.items():
        assert labels == [call.label for call in calls if call.fate is fate]


@pytest.mark.parametrize("name", ["killed", "killed-in-parallel", "mid-failure", "resumed"])
def test_a_fate_from_cache_is_made_without_its_init(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counted, not timed: the walk makes the fate of a call it serves from cache with no
    call to `CallFate`'s __init__ (a frame and five arguments for each of a plan's 100,000
    calls), any other fate through it, and each is the fate __init__ makes of its fields
    (a call to it counted too, once the fates are counted)."""
    (run,) = scan_roots([str(tree(name))], processes=FakeProcessTable()).runs
    facts = gather(run, cli_version=(2, 1, 332))
    made: list[Fate] = []

    class Made(CallFate):
        __slots__ = ()

        def __init__(self, label: str, key: str, fate: Fate, *rest: object) -> None:
            made.append(fate)
            super().__init__(label, key, fate, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(instant_module, "CallFate", Made)
    walked = instant_module._walk(facts, instant_module.journal_spans(facts.fold))
    cached = [fate for fate in walked.fates if fate.fate is Fate.CACHED]
    assert cached and Fate.CACHED not in made
    assert len(made) == len(walked.fates) - len(cached)
    for fate in walked.fates:
        fields = (fate.label, fate.key, fate.fate, fate.reason, fate.had_result)
        assert type(fate) is Made and fate == Made(*fields)
    assert {fate.reason for fate in cached} == {"result in the journal"}
