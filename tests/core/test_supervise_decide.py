"""The supervisor's decision, gate by gate: facts and a clock in, a decision out."""

from __future__ import annotations

import pytest

from wftop.core.supervise.decide import Action, Facts, Moment, Settings, UsdRange, decide
from wftop.core.supervise.rules import (
    BACKOFF_CAP,
    RESET_MARGIN,
    RULES,
    USAGE_WINDOW,
    Clears,
    backoff_delay,
    seeded_jitter,
)

T = 1_800_000_000.0
DAY_ENDS = T + 10 * 3600
CHEAP = UsdRange(0.02, 0.05)


def exact(_run: str, _attempt: int) -> float:
    return 1.0


def at(now: float, jitter=exact) -> Moment:
    return Moment(now, DAY_ENDS, jitter)


def facts(**changes) -> Facts:
    base = {
        "run": "wf_aaaaaaaa-bbb",
        "status": "partial",
        "cause": "rate_limited",
        "cause_at": T,
        "stopped_at": T,
        "strategy": "surgical",
        "forecast": CHEAP,
    }
    return Facts(**{**base, **changes})


CAPPED = Settings(max_usd=1.0)


PASSING = {"rate_limited", "api_overload", "api_5xx", "usage_limit", "network", "machine_slept"}
ONLY_A_PERSON = {"killed", "stalled", "clean_or_unknown", "user_interrupt", "auth_expired"}
ONLY_A_PERSON |= {"context_too_long", "schema", "script_error", "api_error_unclassified"}


def test_every_kind_the_supervisor_knows_has_a_way_to_clear():
    assert set(RULES) == PASSING | ONLY_A_PERSON
    assert {kind for kind, way in RULES.items() if way is Clears.NEVER} == ONLY_A_PERSON


@pytest.mark.parametrize("cause", ["rate_limited", "api_overload", "api_5xx"])
def test_a_passing_api_error_waits_its_backoff_then_launches(cause):
    waiting = decide(facts(cause=cause), CAPPED, at(T + 10))
    assert waiting.action is Action.WAIT and waiting.until == T + 60
    assert "backoff before resume 1 of 2" in waiting.reason
    launch = decide(facts(cause=cause), CAPPED, at(T + 60))
    assert launch.action is Action.LAUNCH and launch.forecast == CHEAP


def test_the_backoff_doubles_from_the_end_of_the_last_resume_and_is_capped():
    second = decide(facts(attempts=1, last_end=T + 500), Settings(1.0, attempts=9), at(T + 501))
    assert second.until == T + 500 + 120
    tenth = decide(facts(attempts=8, last_end=T), Settings(1.0, attempts=9), at(T + 1))
    assert tenth.until == T + BACKOFF_CAP
    assert backoff_delay(60, 8, 1.25) == BACKOFF_CAP
    assert backoff_delay(0, 3, 1.2) == 0


def test_the_jitter_moves_the_wait_by_a_quarter_at_most_the_same_way_each_time():
    jitter = seeded_jitter("test")
    factors = {jitter(f"wf_{n:08d}-aaa", 0) for n in range(200)}
    assert all(0.75 <= factor <= 1.25 for factor in factors) and len(factors) == 200
    assert min(factors) < 0.8 and max(factors) > 1.2
    assert jitter("wf_00000001-aaa", 0) == seeded_jitter("test")("wf_00000001-aaa", 0)
    waiting = decide(facts(), CAPPED, at(T, jitter))
    assert waiting.until == T + 60 * jitter("wf_aaaaaaaa-bbb", 0)


def test_never_sooner_than_the_retry_the_cli_had_scheduled():
    waiting = decide(facts(retry_at=T + 90), CAPPED, at(T + 70))
    assert waiting.action is Action.WAIT and waiting.until == T + 90
    assert decide(facts(retry_at=T + 90), CAPPED, at(T + 90)).action is Action.LAUNCH


def test_a_usage_limit_waits_for_its_reset_plus_a_margin():
    reset = T + 3 * 3600
    waiting = decide(facts(cause="usage_limit", resets_at=reset), CAPPED, at(T + 60))
    assert waiting.action is Action.WAIT and waiting.until == reset + RESET_MARGIN
    after = decide(facts(cause="usage_limit", resets_at=reset), CAPPED, at(reset + RESET_MARGIN))
    assert after.action is Action.LAUNCH
    unknown = decide(facts(cause="usage_limit"), CAPPED, at(T + 60))
    assert unknown.until == T + USAGE_WINDOW + RESET_MARGIN and "no reset time" in unknown.reason


def test_a_network_stop_waits_until_the_api_host_takes_a_connection():
    down = facts(cause="network", api_host="api.example.test:443", reachable=False)
    waiting = decide(down, CAPPED, at(T + 600))
    assert waiting.action is Action.WAIT and "api.example.test:443" in waiting.reason
    assert waiting.until == T + 660
    up = facts(cause="network", api_host="api.example.test:443", reachable=True)
    assert decide(up, CAPPED, at(T + 600)).action is Action.LAUNCH


def test_a_machine_that_slept_is_resumed_at_once():
    assert decide(facts(cause="machine_slept"), CAPPED, at(T + 1)).action is Action.LAUNCH


@pytest.mark.parametrize("cause", [k for k, way in RULES.items() if way is Clears.NEVER] + [None])
def test_a_cause_only_a_person_clears_is_refused_with_a_notification(cause):
    refused = decide(facts(cause=cause, status="dead"), CAPPED, at(T + 9999))
    assert refused.action is Action.REFUSE and refused.notify
    assert "a person resumes it" in refused.reason


def test_after_its_attempts_it_stops_and_says_so():
    refused = decide(facts(attempts=2, last_end=T), CAPPED, at(T + 9999))
    assert refused.action is Action.REFUSE and refused.notify
    assert refused.reason.startswith("2 of 2 resumes for rate_limited used")
    assert decide(facts(attempts=2), Settings(1.0, attempts=3), at(T + 9999)).action is (
        Action.LAUNCH
    )


def test_without_a_cap_nothing_launches_and_a_person_hears_the_forecast():
    refused = decide(facts(), Settings(), at(T + 9999))
    assert refused.action is Action.REFUSE and refused.notify
    assert "no cap" in refused.reason and "$0.0200–$0.0500" in refused.reason
    assert refused.forecast == CHEAP


def test_a_forecast_the_budget_check_refuses_is_refused_with_its_words():
    over = "the surgical forecast may cost up to $1.50, above the budget of $1.00 (--max-usd)"
    refused = decide(facts(forecast=UsdRange(0.5, 1.5), over_cap=over), CAPPED, at(T + 9999))
    assert refused.action is Action.REFUSE and refused.reason == over and refused.notify


def test_the_days_cap_waits_for_the_next_local_day():
    settings = Settings(max_usd=1.0, daily_usd=1.0)
    waiting = decide(facts(spent_today=0.97), settings, at(T + 9999))
    assert waiting.action is Action.WAIT and waiting.until == DAY_ENDS
    assert "over --daily-usd $1.00" in waiting.reason
    assert decide(facts(spent_today=0.9), settings, at(T + 9999)).action is Action.LAUNCH


def test_a_run_still_waiting_for_its_cause_says_that_and_not_the_days_cap():
    settings = Settings(max_usd=1.0, daily_usd=1.0)
    usage = facts(cause="usage_limit", resets_at=T + 3600, spent_today=0.97)
    waiting = decide(usage, settings, at(T + 60))
    assert waiting.reason == "usage_limit: until its reset plus a margin"
    assert waiting.until == T + 3600 + RESET_MARGIN
    offline = decide(facts(cause="network", reachable=False, spent_today=0.97), settings, at(T))
    assert offline.reason.startswith("network: no TCP connection")
    assert "over --daily-usd" in decide(usage, settings, at(T + 7200)).reason


def test_a_resume_in_flight_is_followed_when_it_is_ours_and_waited_for_when_not():
    mine = decide(facts(in_flight="r1", in_flight_ours=True), CAPPED, at(T))
    assert mine.action is Action.FOLLOW
    running = facts(status="running", in_flight="r1", in_flight_ours=True)
    assert decide(running, CAPPED, at(T)).action is Action.FOLLOW
    assert decide(facts(status="running", in_flight="r1"), CAPPED, at(T)).action is (Action.NOTHING)
    theirs = decide(facts(in_flight="r1"), CAPPED, at(T + 9999))
    assert theirs.action is Action.WAIT and "started elsewhere" in theirs.reason


def test_the_guard_decides_as_it_does_for_r():
    growing = facts(guard_ok=False, guard_reason="the journal grew 5 s ago", quiet_at=T + 65)
    waiting = decide(growing, CAPPED, at(T + 9999))
    assert waiting.action is Action.WAIT and waiting.until == T + 65
    owner = facts(guard_ok=False, guard_reason="live owner: pid 4242")
    assert decide(owner, CAPPED, at(T + 9999)).action is Action.WAIT
    gone = facts(guard_ok=False, guard_reason="script not found", guard_forceable=False)
    refused = decide(gone, CAPPED, at(T + 9999))
    assert refused.action is Action.REFUSE and "script not found" in refused.reason


def test_it_never_relaunches_fresh_unless_asked():
    failed = facts(last_state="launch_failed", attempts=1, fresh_ok=True, fresh_forecast=CHEAP)
    assert decide(failed, CAPPED, at(T + 9999)).action is Action.REFUSE
    fresh = decide(failed, Settings(1.0, fallback_fresh=True), at(T + 9999))
    assert fresh.action is Action.LAUNCH and fresh.strategy == "fresh"
    dear = facts(last_state="launch_failed", fresh_ok=True, fresh_over_cap="above the budget")
    assert decide(dear, Settings(1.0, fallback_fresh=True), at(T + 9999)).action is Action.REFUSE


@pytest.mark.parametrize("status", ["running", "stalled", "completed", "superseded"])
def test_a_run_that_is_not_dead_or_partial_is_left_alone(status):
    assert decide(facts(status=status), CAPPED, at(T + 9999)).action is Action.NOTHING
