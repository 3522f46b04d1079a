"""The forecast equals what the real CLI then did, on every damaged tree it wrote."""

from __future__ import annotations

import pytest

from tests.corpus import live_agents, tree
from wftop.core.forecast.fates import Fate
from wftop.core.forecast.inputs import ForecastInput, gather
from wftop.core.forecast.instant import predict
from wftop.core.forecast.keyorder import Span, snapshot_spans
from wftop.core.index.coldpass import scan_roots
from wftop.core.read.journal import JournalFold
from wftop.core.read.jsonl import read_all
from wftop.core.resume.relocate import healed_fold
from wftop.core.system.procs import FakeProcessTable

CLI = (2, 1, 332)

# damaged tree, the tree the real CLI's resume of it left (its step log says who ran live)
FAILED = {"api-errors-429", "mid-failure"}
"""The trees with a failed call (api-errors-429's last call failed without a ``failed`` line)."""
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
    assert forecast.at_risk == []
    # A failed call re-runs, so calls its failure skipped may run after it: "may", never less.
    assert forecast.more_live == (bool(ran_live - known) or damaged in FAILED)


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
    records = [
        (1, {"type": "started", "agentId": "a1"}),
        (2, {"type": "result", "agentId": "a1", "result": "x"}),
        (3, {"type": "started", "key": "v2:b", "agentId": "a2", "label": "b"}),
        (4, {"type": "result", "key": "v2:b", "agentId": "a2", "result": "y"}),
    ]
    fold = JournalFold().feed_all(records)
    facts = ForecastInput(fold, fold.ordered_calls(), "journal", True, 2)
    forecast = predict(facts, "resume-owner")
    assert forecast.live == ["a1", "b"]
    assert forecast.rerun == ["a1", "b"]


# --- Shapes measured with the real CLI 2.1.332 against the loopback mock (2 or 8 slots) -----
# A damaged run's journal in order: ``+x`` started, ``=x`` result, ``!x`` failed. With
# ``snapshot=True`` the run completed and its snapshot times stand in: each call was keyed at its
# ``started`` line and ended at its last line, and a ``failed`` line sits where the snapshot says
# the call ended (the journal itself writes it late, sometimes after later calls started). The
# CLI's resume then served from cache exactly the calls each test names as measured.

PIPELINE_OF_PAIRS = (
    # pipeline([0, 1, 2], item => parallel([qNx, qNy]), pair => qNm), then z; q0m fails
    "+q0x +q0y +q1x +q1y +q2x +q2y =q0x =q0y =q1x =q1y =q2x =q2y "
    "+q0m +q1m +q2m =q1m =q2m !q0m +z =z"
)
CHAIN = "+c1 =c1 +c2 =c2 +c3 !c3 +c4 =c4 +c5 =c5"
"""c1 → c2 → c3 → c4 → c5, each prompt reading the one before; c3 fails."""
PIPELINE = "+p0a +p1a +p2a +p3a =p0a +p0b =p2a =p1a +p2b +p1b =p0b =p2b =p1b !p3a +z =z"
"""pipeline([0..3], pNa, pNb), then z; p3a fails, so p3b never starts."""


def shape(journal: str, *, heal: bool = False, snapshot: bool = False) -> ForecastInput:
    """Forecast facts for a journal in the notation above (healed: ``failed`` lines dropped)."""
    records = []
    for number, token in enumerate(journal.split(), 1):
        kind = {"+": "started", "=": "result", "!": "failed"}[token[0]]
        record = {"type": kind, "key": f"v2:{token[1:]}", "agentId": f"ag-{token[1:]}"}
        if kind == "started":
            record["label"] = token[1:]
        if kind == "result":
            record["result"] = {"agent": token[1:], "ok": True}
        records.append((number, record))
    damaged = JournalFold().feed_all(records)
    kept = [record for record in records if record[1]["type"] != "failed"]
    fold = JournalFold().feed_all(kept) if heal else None
    read = fold or damaged
    facts = ForecastInput(
        read, read.ordered_calls(), "journal", snapshot, None, damaged=fold and damaged
    )
    if snapshot:
        facts.spans = {
            key: Span(call.first_line, call.last_line if call.state.value != "in_flight" else None)
            for key, call in damaged.calls.items()
        }
    return facts


def test_a_failure_among_concurrent_calls_puts_what_the_resume_may_key_after_it_at_risk():
    """Measured: the resume keyed q0m before q1x..q2y (hits do not wait) and re-ran all four;
    the journal's order puts them first."""
    forecast = predict(shape(PIPELINE_OF_PAIRS, snapshot=True), "resume-owner")
    assert set(forecast.cached) <= {"q0x", "q0y"}
    assert {"q1x", "q1y", "q2x", "q2y"} <= set(forecast.at_risk)
    assert "which ends reuse" in dict((c.label, c.reason) for c in forecast.calls)["q1x"]
    live, risky = len(forecast.live), len(forecast.at_risk)
    assert live <= 8 <= live + risky  # the CLI ran 8 of the journal's 10 calls live


def test_a_late_failed_line_does_not_hide_the_calls_keyed_after_the_failure():
    """The real journal: c3's ``failed`` line came after c4 started; killed, so no snapshot."""
    forecast = predict(shape("+c1 =c1 +c2 =c2 +c3 +c4 !c3 =c4", heal=True), "surgical")
    assert forecast.cached == ["c1", "c2"] and forecast.at_risk == ["c4"]


def test_a_call_the_healed_failure_skipped_ends_reuse_so_what_follows_it_is_at_risk():
    """Measured (surgical): p3b, never started before, ran and ended reuse; z re-ran."""
    forecast = predict(shape(PIPELINE, heal=True, snapshot=True), "surgical")
    assert forecast.at_risk == ["z"]
    assert set(forecast.cached) == {"p0a", "p1a", "p2a", "p0b", "p1b", "p2b"}
    assert forecast.more_live


def test_a_failure_the_resume_re_runs_may_bring_calls_the_journal_never_saw():
    """Measured (default strategy): p3b ran after p3a; it is in no journal line."""
    forecast = predict(shape(PIPELINE, snapshot=True), "resume-owner")
    assert forecast.more_live
    assert "a failed call re-runs: calls its failure skipped may run after it" in forecast.notes


def test_a_chain_is_exact_by_default_and_doubts_what_follows_a_healed_failure():
    """Measured: the default resume re-ran c3, c4, c5; the surgical one re-ran them too, c4's
    prompt embedding c3's new result."""
    forecast = predict(shape(CHAIN, snapshot=True), "resume-owner")
    assert (forecast.cached, forecast.rerun, forecast.at_risk) == (["c1", "c2"], ["c4", "c5"], [])
    forecast = predict(shape(CHAIN, heal=True, snapshot=True), "surgical")
    assert (forecast.cached, forecast.at_risk) == (["c1", "c2"], ["c4", "c5"])
    assert "keyed after c3 failed" in forecast.calls[3].reason


def test_kill_only_damage_is_exact_and_the_same_calls_around_a_failure_are_not():
    """In flight at a kill, p1a re-runs without ending reuse: nothing to doubt. Failed, it ends
    reuse, and the journal cannot say where the resume keys it among p0b and p2a."""
    journal = "+p0a +p1a =p0a +p0b =p0b +p2a =p2a"
    forecast = predict(shape(journal), "resume-owner")
    assert (forecast.cached, forecast.at_risk) == (["p0a", "p0b", "p2a"], [])
    assert forecast.live == ["p1a"]
    forecast = predict(shape(journal + " !p1a"), "resume-owner")
    assert (forecast.cached, forecast.at_risk) == (["p0a"], ["p0b", "p2a"])


def test_siblings_keyed_together_keep_their_order_and_snapshot_times_say_which_were():
    """A parallel() fan-out whose second call fails: the first replays, the rest re-run. With
    two slots b3 started after b1 ended, yet was queued with b1 and b2 (``queuedAt``)."""
    forecast = predict(shape("+b1 +b2 +b3 =b1 =b3 !b2 +c1 =c1", snapshot=True), "resume-owner")
    assert (forecast.cached, forecast.rerun, forecast.at_risk) == (["b1"], ["b3", "c1"], [])
    facts = shape("+b1 +b2 =b1 +b3 =b3 !b2 +c1 =c1")
    assert predict(facts, "resume-owner").at_risk == ["b3"]  # the journal alone cannot order b3
    rows = [
        {"agentId": "ag-b1", "index": 1, "queuedAt": 10, "startedAt": 11, "durationMs": 4},
        {"agentId": "ag-b2", "index": 2, "queuedAt": 10, "startedAt": 11, "durationMs": 30},
        {"agentId": "ag-b3", "index": 3, "queuedAt": 10, "startedAt": 15, "durationMs": 4},
        {"agentId": "ag-c1", "index": 4, "queuedAt": 45, "startedAt": 45, "durationMs": 4},
    ]
    for row in rows:
        row["state"] = "error" if row["agentId"] == "ag-b2" else "done"
    facts.spans = snapshot_spans(facts.fold, rows)
    forecast = predict(facts, "resume-owner")
    assert (forecast.cached, forecast.rerun, forecast.at_risk) == (["b1"], ["b3", "c1"], [])


def test_a_failure_that_left_no_failed_line_counts_as_a_failure_when_the_snapshot_says_so():
    facts = shape("+a1 =a1 +a2 +a3 =a3", snapshot=True)
    facts.errored = {"v2:a2"}
    facts.spans["v2:a2"] = Span(3, 3.5)  # the snapshot's end of a2: before a3 was keyed
    forecast = predict(facts, "resume-owner")
    assert forecast.cached == ["a1"] and forecast.at_risk == ["a3"]
    assert forecast.more_live


def test_the_range_of_a_forecast_with_calls_at_risk_holds_every_outcome():
    forecast = predict(shape(PIPELINE_OF_PAIRS, snapshot=True), "resume-owner")
    risky = len(forecast.at_risk)
    assert risky and forecast.to_json()["at_risk"][0]["reason"]
    assert f"{len(forecast.live)}–{len(forecast.live) + risky} live" in forecast.summary()
