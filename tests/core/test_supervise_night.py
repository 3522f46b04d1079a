"""One night under the supervisor, its clock injected: a 429 storm that clears, a usage limit
with a reset time, a run that keeps failing. Every decision is in the audit log."""

from __future__ import annotations

from tests.supervise_kit import NIGHT, RESETS_AT, SPENT, TREES, Night
from wftop.core.supervise.rules import RESET_MARGIN, backoff_delay, seeded_jitter

ANSWERS = {"storm": [True, False], "usage": [False], "stubborn": [True, True]}
"""How each launch ends, in turn: True, the failed call fails again."""


def live_through(night: Night, hours: float, step: float = 30.0) -> None:
    """Passes every ``step`` seconds while something is due, else on to the next wait's end."""
    answers = {name: list(outcomes) for name, outcomes in ANSWERS.items()}
    while night.clock.now < NIGHT + hours * 3600:
        supervisor = night.supervisor
        supervisor.step()
        for name in TREES:
            if night.run_id(name) in supervisor.following:
                night.answer(name, fail=answers[name].pop(0))
        supervisor.poll()
        due = supervisor.next_until()
        busy = any(
            decision.action.value in ("launched", "follow") for _r, decision in supervisor.said
        )
        later = night.clock.now + step
        night.clock.now = later if busy or due is None else max(later, due)
        if due is None and not busy:
            night.clock.now = max(later, night.clock.now + 3600)


def test_one_night(tmp_path):
    night = Night(tmp_path)
    live_through(night, 4)
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
