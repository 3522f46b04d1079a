"""The resume state machine: every (state, event) pair, and the launch attempts cap."""

from __future__ import annotations

import itertools

import pytest

from wftop.core.resume.errors import AttemptsExhausted, IllegalTransition
from wftop.core.resume.machine import (
    MAX_LAUNCH_ATTEMPTS,
    TERMINAL_STATES,
    TRANSITIONS,
    ResumeEvent,
    ResumeState,
    advance,
    counts_as_launch,
    is_final,
)

S, E = ResumeState, ResumeEvent

# Written out independently of the module, so a changed table fails here.
EXPECTED = {
    (S.PLANNED, E.BEGIN_PREFLIGHT): S.PREFLIGHT,
    (S.PLANNED, E.STOPPED_BY_USER): S.STOPPED,
    (S.PREFLIGHT, E.GUARD_REFUSED): S.BLOCKED,
    (S.PREFLIGHT, E.USER_CONFIRMED): S.CONFIRMED,
    (S.PREFLIGHT, E.STOPPED_BY_USER): S.STOPPED,
    (S.CONFIRMED, E.RELOCATE): S.RELOCATING,
    (S.CONFIRMED, E.LAUNCH): S.LAUNCHING,
    (S.CONFIRMED, E.STOPPED_BY_USER): S.STOPPED,
    (S.RELOCATING, E.RELOCATED): S.LAUNCHING,
    (S.RELOCATING, E.RELOCATION_FAILED): S.LAUNCH_FAILED,
    (S.LAUNCHING, E.SPAWNED): S.LAUNCHING,
    (S.LAUNCHING, E.STARTED): S.RUNNING,
    (S.LAUNCHING, E.LAUNCH_ERROR): S.LAUNCH_FAILED,
    (S.LAUNCHING, E.STOPPED_BY_USER): S.STOPPED,
    (S.LAUNCHING, E.PROCESS_VANISHED): S.LOST,
    (S.RUNNING, E.EXITED_OK): S.COMPLETED,
    (S.RUNNING, E.EXITED_WITH_FAILURES): S.COMPLETED_WITH_FAILURES,
    (S.RUNNING, E.EXITED_FAILED): S.FAILED,
    (S.RUNNING, E.STOPPED_BY_USER): S.STOPPED,
    (S.RUNNING, E.PROCESS_VANISHED): S.LOST,
    (S.LAUNCH_FAILED, E.FALL_BACK): S.FALLBACK,
    (S.FALLBACK, E.RELOCATE): S.RELOCATING,
    (S.FALLBACK, E.LAUNCH): S.LAUNCHING,
    (S.FALLBACK, E.STOPPED_BY_USER): S.STOPPED,
}
ALL_PAIRS = list(itertools.product(ResumeState, ResumeEvent))


def test_state_names_are_the_agreed_ones():
    assert [state.value for state in ResumeState] == [
        "planned", "preflight", "blocked", "confirmed", "relocating", "launching", "running",
        "completed", "completed_with_failures", "failed", "stopped", "lost", "launch_failed",
        "fallback",
    ]


def test_table_is_exactly_the_expected_one():
    assert dict(TRANSITIONS) == EXPECTED


@pytest.mark.parametrize(("state", "event"), ALL_PAIRS, ids=lambda v: str(v))
def test_every_pair(state, event):
    if (state, event) in EXPECTED:
        assert advance(state, event, attempts=0) is EXPECTED[state, event]
        assert advance(state, event, attempts=1) is EXPECTED[state, event]
    else:
        with pytest.raises(IllegalTransition, match=f"{event.value}.*{state.value}"):
            advance(state, event, attempts=0)


@pytest.mark.parametrize("state", sorted(TERMINAL_STATES))
def test_terminal_states_accept_nothing(state):
    for event in ResumeEvent:
        with pytest.raises(IllegalTransition):
            advance(state, event, attempts=0)
    assert is_final(state, attempts=0)


def test_terminal_states_are_the_outcomes_and_blocked():
    assert {S.BLOCKED, S.COMPLETED, S.COMPLETED_WITH_FAILURES, S.FAILED, S.STOPPED, S.LOST} == set(
        TERMINAL_STATES
    )


@pytest.mark.parametrize(
    ("state", "event"),
    [
        (S.CONFIRMED, E.LAUNCH),
        (S.CONFIRMED, E.RELOCATE),
        (S.RELOCATING, E.RELOCATED),
        (S.LAUNCH_FAILED, E.FALL_BACK),
        (S.FALLBACK, E.LAUNCH),
        (S.FALLBACK, E.RELOCATE),
    ],
)
def test_no_third_launch(state, event):
    assert MAX_LAUNCH_ATTEMPTS == 2
    advance(state, event, attempts=1)
    with pytest.raises(AttemptsExhausted, match="2 of 2"):
        advance(state, event, attempts=2)


def test_attempts_do_not_limit_staying_in_launching_or_finishing():
    assert advance(S.LAUNCHING, E.SPAWNED, attempts=2) is S.LAUNCHING
    assert advance(S.LAUNCHING, E.STARTED, attempts=2) is S.RUNNING
    assert advance(S.RUNNING, E.EXITED_OK, attempts=2) is S.COMPLETED
    assert advance(S.LAUNCHING, E.LAUNCH_ERROR, attempts=2) is S.LAUNCH_FAILED


def test_negative_attempts_are_refused():
    with pytest.raises(ValueError, match="attempts"):
        advance(S.PLANNED, E.BEGIN_PREFLIGHT, attempts=-1)


def test_a_request_walks_to_its_second_launch_and_no_further():
    state, attempts = S.PLANNED, 0
    for event in (E.BEGIN_PREFLIGHT, E.USER_CONFIRMED, E.LAUNCH, E.SPAWNED, E.LAUNCH_ERROR,
                  E.FALL_BACK, E.RELOCATE, E.RELOCATED, E.SPAWNED, E.LAUNCH_ERROR):
        target = advance(state, event, attempts=attempts)
        attempts += counts_as_launch(state, target)
        state = target
    assert (state, attempts) == (S.LAUNCH_FAILED, 2)
    assert is_final(state, attempts=attempts)
    assert not is_final(S.LAUNCH_FAILED, attempts=1)
    with pytest.raises(AttemptsExhausted):
        advance(state, E.FALL_BACK, attempts=attempts)


def test_counts_as_launch_only_on_entering_launching():
    assert counts_as_launch(S.CONFIRMED, S.LAUNCHING)
    assert counts_as_launch(S.RELOCATING, S.LAUNCHING)
    assert counts_as_launch(S.FALLBACK, S.LAUNCHING)
    assert not counts_as_launch(S.LAUNCHING, S.LAUNCHING)
    assert not counts_as_launch(S.CONFIRMED, S.RELOCATING)


def test_the_table_cannot_be_changed_at_runtime():
    with pytest.raises(TypeError):
        TRANSITIONS[S.COMPLETED, E.LAUNCH] = S.LAUNCHING  # type: ignore[index]
