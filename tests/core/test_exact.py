"""The exact forecast: what a rehearsal showed, call by call (`wftop.core.forecast.exact`)."""

from __future__ import annotations

from wftop.core.forecast.exact import Seen, exact_forecast, first_miss_index
from wftop.core.forecast.fates import Fate
from wftop.core.read.journal import JournalFold


def fold_of(*calls: tuple[str, str, bool]) -> JournalFold:
    """Calls (label, agent, returned) in order; a call that did not return failed."""
    records = []
    for label, agent, returned in calls:
        key = f"v2:{label}"
        records.append({"type": "started", "key": key, "agentId": agent, "label": label})
        if returned:
            records.append({"type": "result", "key": key, "agentId": agent, "result": label})
        else:
            records.append({"type": "failed", "key": key, "agentId": agent, "error": "429"})
    return JournalFold().feed_all(list(enumerate(records, 1)))


FOLD = fold_of(("a1", "x1", True), ("a2", "x2", True), ("a3", "x3", False), ("a4", "x4", True))


def seen(served: set[str], *, calls: int = 4, completed: bool = True) -> Seen:
    labels = ((1, "a1"), (2, "a2"), (3, "a3"), (4, "a4"))
    return Seen(frozenset(served), calls, completed, "2.1.332", 3, labels)


def test_served_results_are_cached_and_every_other_call_of_a_finished_rehearsal_ran() -> None:
    forecast = exact_forecast(FOLD, "resume-owner", seen({"x1", "x2"}))
    assert (forecast.cached, forecast.live, forecast.at_risk) == (["a1", "a2"], ["a3", "a4"], [])
    assert forecast.rerun == ["a4"]
    assert (forecast.exact, forecast.cli_version, forecast.order) == (True, "2.1.332", "rehearsal")
    assert forecast.first_miss == "a3" and not forecast.more_live


def test_a_re_keyed_call_is_a_re_run_even_though_its_old_key_never_started_again() -> None:
    """Matching is by the agent that wrote the result: a4 ran under a new key."""
    forecast = exact_forecast(FOLD, "surgical", seen({"x1", "x2"}, calls=5))
    assert dict((c.label, c.fate) for c in forecast.calls)["a4"] is Fate.RERUN
    assert forecast.more_live  # a fifth call the journal never saw


def test_a_rehearsal_that_did_not_end_promises_no_cache_it_did_not_see() -> None:
    forecast = exact_forecast(FOLD, "resume-owner", seen({"x1"}, completed=False))
    assert forecast.cached == ["a1"]
    assert forecast.at_risk == ["a2", "a4"] and forecast.live == ["a3"]
    assert forecast.more_live
    assert forecast.summary() == "1–3 live + calls not yet reached, 1–3 from cache"


def test_the_cli_s_own_log_line_names_the_first_miss() -> None:
    logs = [
        "Resume: 2 of the journal's 3 saved results served from cache. Call 3 and every "
        "call after it run fresh, not from cache: it has no saved result"
    ]
    assert first_miss_index(logs) == 3
    assert first_miss_index(["nothing to see"]) is None
