"""The forecast equals what the real CLI then did, on every damaged tree it wrote."""

from __future__ import annotations

import pytest

from tests.corpus import live_agents, tree
from wftop.core.coldpass import scan_roots
from wftop.core.forecast import Fate, gather, predict
from wftop.core.jsonl import read_all
from wftop.core.procs import FakeProcessTable
from wftop.core.resume.relocate import healed_fold

CLI = (2, 1, 332)

# damaged tree, the tree the real CLI's resume of it left (its step log says who ran live)
RESUMES = [
    ("killed", "resumed"),
    ("killed-in-parallel", "killed-in-parallel-resumed"),
    ("api-errors-429", "api-errors-429-resumed"),
    ("mid-failure", "mid-failure-resumed"),
]


def the_run(name):
    (run,) = scan_roots([str(tree(name))], processes=FakeProcessTable()).runs
    return run


@pytest.mark.parametrize(("damaged", "resumed"), RESUMES)
def test_forecast_equals_what_the_cli_ran_live(damaged, resumed):
    run = the_run(damaged)
    forecast = predict(gather(run, cli_version=CLI), "resume-owner")
    ran_live = set(live_agents(resumed))
    known = {call.label for call in run.fold.ordered_calls()}
    assert set(forecast.live) == ran_live & known
    assert set(forecast.cached) == known - ran_live
    assert forecast.more_live == bool(ran_live - known)


def test_mid_failure_default_reruns_finished_work_and_counts_its_tokens():
    forecast = predict(gather(the_run("mid-failure"), cli_version=CLI), "resume-owner")
    assert forecast.first_miss == "a3"
    assert forecast.rerun == ["a4", "a5", "a6"]
    assert forecast.rerun_tokens is not None and forecast.rerun_tokens > 0
    fates = {call.label: call.fate for call in forecast.calls}
    assert fates["a3"] is Fate.LIVE_ENDS_REUSE
    assert fates["a4"] is Fate.RERUN


def test_in_flight_call_does_not_end_reuse():
    forecast = predict(gather(the_run("killed-in-parallel"), cli_version=CLI), "resume-owner")
    fates = {call.label: call.fate for call in forecast.calls}
    assert fates == {
        "a1": Fate.CACHED,
        "a2": Fate.CACHED,
        "a3": Fate.LIVE_IN_FLIGHT,
        "a4": Fate.CACHED,
    }
    assert forecast.first_miss is None


def test_healed_mid_failure_runs_what_the_cli_ran_on_a_healed_journal():
    """Measured with the real CLI: dropping a3's failed line re-ran a3, a5 and a6 only."""
    run = the_run("mid-failure")
    fold, dropped = healed_fold(read_all(run.folder.journal).records)
    forecast = predict(gather(run, fold, cli_version=CLI), "surgical")
    assert len(dropped) == 1
    assert forecast.live == ["a3", "a5", "a6"]
    assert forecast.cached == ["a1", "a2", "a4"]
    assert "a3's group" in next(c.reason for c in forecast.calls if c.label == "a5")


@pytest.mark.parametrize("name", ["2.1.146-killed", "2.1.207-killed", "2.1.265-killed"])
def test_journal_of_an_older_key_chain_replays_only_up_to_the_first_parallel_call(name):
    """2.1.332 resuming these journals replayed a1 only; a2..a6 ran live."""
    run = the_run(name)
    forecast = predict(gather(run, cli_version=CLI), "resume-owner")
    assert len(forecast.cached) == 1
    assert len(forecast.live) == 4 and forecast.more_live
    same_build = predict(gather(run, cli_version=None), "resume-owner")
    assert len(same_build.cached) == 4


def test_keyless_lines_never_hit():
    from wftop.core.journal import JournalFold

    records = [
        (1, {"type": "started", "agentId": "a1"}),
        (2, {"type": "result", "agentId": "a1", "result": "x"}),
        (3, {"type": "started", "key": "v2:b", "agentId": "a2", "label": "b"}),
        (4, {"type": "result", "key": "v2:b", "agentId": "a2", "result": "y"}),
    ]
    from wftop.core.forecast import ForecastInput

    fold = JournalFold().feed_all(records)
    facts = ForecastInput(fold, fold.ordered_calls(), "journal", True, 2)
    forecast = predict(facts, "resume-owner")
    assert forecast.live == ["a1", "b"]
    assert forecast.rerun == ["a1", "b"]
