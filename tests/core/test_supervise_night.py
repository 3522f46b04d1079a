"""One night under the supervisor, its clock injected: a 429 storm that clears, a usage limit
with a reset time, a run that keeps failing; and a longer one with a network outage, a run
killed with no error recorded, a forecast above the per-run cap and the day's cap. Every
decision is in the audit log (``python bench/supervise_night.py`` prints the longer one)."""

from __future__ import annotations

from tests.supervise_kit import (
    LONG_NIGHT,
    NIGHT,
    OUTAGE_ENDS,
    RESETS_AT,
    SPENT,
    TREES,
    Night,
    live_through,
    long_night,
)
from wftop.core.supervise.rules import RESET_MARGIN, backoff_delay, seeded_jitter

ANSWERS = {"storm": [True, False], "usage": [False], "stubborn": [True, True]}
"""How each launch ends, in turn: True, the failed call fails again."""


def test_one_night(tmp_path):
    night = Night(tmp_path)
    live_through(night, 4, ANSWERS)
    lines = night.store.audit.read()
    runs = {name: night.run_id(name) for name in TREES}
    said = {
        name: [(line.decision, line.reason) for line in lines if line.run == run]
        for name, run in runs.items()
    }
    words = {name: [decision for decision, _reason in found] for name, found in said.items()}
    assert words["storm"] == ["considered", "waiting", "launched", "finished"] * 2
    assert words["usage"] == ["considered", "waiting", "launched", "finished"]
    assert words["stubborn"] == [
        *(["considered", "waiting", "launched", "finished"] * 2),
        "considered",
        "refused",
    ]
    assert said["stubborn"][-1][1].startswith("2 of 2 resumes for rate_limited used")
    jitter = seeded_jitter("night")
    storm = [line for line in lines if line.run == runs["storm"]]
    first_wait = NIGHT - 40 + backoff_delay(60, 0, jitter(runs["storm"], 0))
    assert storm[1].until is not None and abs(storm[1].until - first_wait) < 1.0
    assert storm[1].until <= storm[2].at < storm[1].until + 30
    second_wait = storm[3].at + backoff_delay(60, 1, jitter(runs["storm"], 1))
    assert storm[5].until is not None and abs(storm[5].until - second_wait) < 1.0
    assert storm[5].until <= storm[6].at < storm[5].until + 30
    assert storm[3].reason.startswith("completed_with_failures: failed calls: a6")
    assert storm[7].reason.startswith("completed: ") and storm[7].cost_usd == SPENT
    usage = [line for line in lines if line.run == runs["usage"]]
    assert usage[0].cause == "usage_limit" and "You've hit your 5-hour limit" in usage[0].reason
    assert usage[1].until == RESETS_AT + RESET_MARGIN
    assert RESETS_AT + RESET_MARGIN <= usage[2].at < RESETS_AT + RESET_MARGIN + 60
    launches = [line for line in lines if line.decision == "launched"]
    assert len(launches) == len(night.launcher.launches) == 5
    heard = [(note.run, note.decision) for note in night.notes.notes]
    assert heard.count((runs["stubborn"], "refused")) == 1
    assert len([word for _run, word in heard if word == "finished"]) == 5


def test_a_longer_night_with_an_outage_a_crash_and_caps(tmp_path):
    night = long_night(tmp_path)
    lines = night.store.audit.read()
    runs = {name: night.run_id(name) for name in LONG_NIGHT}
    mine = {name: [line for line in lines if line.run == run] for name, run in runs.items()}
    words = {name: [line.decision for line in found] for name, found in mine.items()}
    assert words["storm"] == ["considered", "waiting", "launched", "finished"] * 2
    assert words["stubborn"] == [
        *["considered", "waiting", "launched", "finished"],
        *["considered", "waiting", "waiting", "waiting", "launched", "finished"],
        *["considered", "refused"],
    ]
    day_waits = [line for line in mine["stubborn"][6:8] if "over --daily-usd" in line.reason]
    assert len(day_waits) == 2  # what the day's launches cost is said anew as it moves
    assert words["usage"] == ["considered", "waiting", "launched", "finished"]
    assert words["outage"] == ["considered", "waiting", "waiting", "launched", "finished"]
    assert words["crashed"] == words["dear"] == ["considered", "refused"]
    outage = mine["outage"]
    assert outage[1].reason == "network: no TCP connection to api.anthropic.com:443 yet"
    assert "over --daily-usd $0.1000" in outage[2].reason
    assert outage[2].at >= OUTAGE_ENDS and outage[3].at == NIGHT + 2 * 3600  # midnight UTC
    assert set(night.probed) == {("api.anthropic.com", 443)}
    assert mine["usage"][2].at == RESETS_AT + RESET_MARGIN
    assert mine["dear"][1].reason == "forecast $1.20–$3.40 above the budget of $1.00"
    assert mine["crashed"][1].reason.startswith("stopped by clean_or_unknown: not a cause")
    assert mine["stubborn"][-1].reason.startswith("2 of 2 resumes for rate_limited used")
    finished = [line for line in lines if line.decision == "finished"]
    assert len(finished) == len(night.launcher.launches) == 6
    for day in (NIGHT, NIGHT + 2 * 3600):
        spent = sum(line.cost_usd or 0 for line in finished if day <= line.at < day + 7200)
        assert 0 < spent <= 0.10
    told = {(note.run, note.decision) for note in night.notes.notes if note.decision != "finished"}
    assert told == {(runs[name], "refused") for name in ("crashed", "dear", "stubborn")}
