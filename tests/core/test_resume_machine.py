"""The resume state machine: properties of its table, and the launch attempts cap.

The table itself is not restated here: these tests say what any table must satisfy
(every state reachable, outcomes final, illegal pairs refused, no dead ends, at most
`MAX_LAUNCH_ATTEMPTS` launches however events arrive), so a changed table passes only
while it keeps the machine's promises.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wftop.core.resume.errors import AttemptsExhausted, IllegalTransition
from wftop.core.resume.machine import (
    ACTIVE_STATES,
    CAPPED_STATES,
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
INITIAL = S.PLANNED
ALL_PAIRS = list(itertools.product(ResumeState, ResumeEvent))
ILLEGAL = [pair for pair in ALL_PAIRS if pair not in TRANSITIONS]
OUTCOMES = {S.COMPLETED, S.COMPLETED_WITH_FAILURES, S.FAILED, S.STOPPED, S.LOST}


def reachable(starts: Iterable[ResumeState]) -> set[ResumeState]:
    """States the table leads to from ``starts`` (they included), ignoring the cap."""
    seen = set(starts)
    frontier = list(seen)
    while frontier:
        state = frontier.pop()
        for (source, _event), target in TRANSITIONS.items():
            if source is state and target not in seen:
                seen.add(target)
                frontier.append(target)
    return seen


def test_state_names_are_the_agreed_ones():
    """They are written to resume logs: renaming one orphans the logs already written."""
    assert [state.value for state in ResumeState] == [
        "planned",
        "preflight",
        "blocked",
        "confirmed",
        "relocating",
        "launching",
        "running",
        "completed",
        "completed_with_failures",
        "failed",
        "stopped",
        "lost",
        "launch_failed",
        "fallback",
    ]


def test_every_state_is_reachable_from_the_initial_one():
    assert reachable([INITIAL]) == set(ResumeState)


def test_every_transition_joins_known_states_by_known_events():
    for (state, event), target in TRANSITIONS.items():
        assert isinstance(state, ResumeState)
        assert isinstance(event, ResumeEvent)
        assert isinstance(target, ResumeState)


def test_the_terminal_states_are_exactly_those_with_no_way_out():
    way_out = {state for state, _event in TRANSITIONS}
    assert set(TERMINAL_STATES) == set(ResumeState) - way_out
    assert OUTCOMES | {S.BLOCKED} == set(TERMINAL_STATES)


def test_every_state_can_still_end():
    """No dead ends: from every state the table leads to an outcome or a refusal."""
    for state in ResumeState:
        assert reachable([state]) & set(TERMINAL_STATES), state


def test_the_user_can_stop_every_request_that_has_not_launched_or_is_live():
    for state in (S.PLANNED, S.PREFLIGHT, S.CONFIRMED, S.FALLBACK, *ACTIVE_STATES):
        assert advance(state, E.STOPPED_BY_USER, attempts=0) is S.STOPPED


def test_active_states_are_post_launch_and_not_final():
    assert set(ACTIVE_STATES) <= reachable([S.LAUNCHING])
    assert not set(ACTIVE_STATES) & set(TERMINAL_STATES)


@pytest.mark.parametrize(("state", "event"), list(TRANSITIONS), ids=lambda v: str(v))
def test_every_legal_pair_leads_where_the_table_says(state, event):
    for attempts in range(MAX_LAUNCH_ATTEMPTS):
        assert advance(state, event, attempts=attempts) is TRANSITIONS[state, event]


@pytest.mark.parametrize(("state", "event"), ILLEGAL, ids=lambda v: str(v))
def test_every_illegal_pair_is_refused(state, event):
    for attempts in range(MAX_LAUNCH_ATTEMPTS + 1):
        with pytest.raises(IllegalTransition, match=f"{event.value}.*{state.value}"):
            advance(state, event, attempts=attempts)


@pytest.mark.parametrize("state", sorted(TERMINAL_STATES))
def test_terminal_states_accept_nothing(state):
    for event in ResumeEvent:
        with pytest.raises(IllegalTransition):
            advance(state, event, attempts=0)
    assert is_final(state, attempts=0)


@given(st.lists(st.sampled_from(list(ResumeEvent)), max_size=40))
def test_no_sequence_of_events_launches_more_than_the_cap(events):
    """Whatever arrives, in whatever order: refusals leave the request where it was, a
    request never launches more than `MAX_LAUNCH_ATTEMPTS` times, and a final one stays."""
    state, attempts = INITIAL, 0
    for event in events:
        final = is_final(state, attempts=attempts)
        try:
            target = advance(state, event, attempts=attempts)
        except AttemptsExhausted:
            assert attempts >= MAX_LAUNCH_ATTEMPTS
            assert TRANSITIONS[state, event] in CAPPED_STATES
            continue
        except IllegalTransition:
            assert (state, event) not in TRANSITIONS or final
            continue
        assert not final
        assert target is TRANSITIONS[state, event]
        attempts += counts_as_launch(state, target)
        state = target
        assert attempts <= MAX_LAUNCH_ATTEMPTS


@given(st.sampled_from(sorted(set(CAPPED_STATES))), st.integers(min_value=0, max_value=5))
def test_entering_a_capped_state_needs_an_attempt_left(target, attempts):
    for (state, event), leads_to in TRANSITIONS.items():
        if leads_to is not target:
            continue
        if state is target or attempts < MAX_LAUNCH_ATTEMPTS:
            assert advance(state, event, attempts=attempts) is target
        else:
            with pytest.raises(AttemptsExhausted, match=f"{attempts} of {MAX_LAUNCH_ATTEMPTS}"):
                advance(state, event, attempts=attempts)


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
    for event in (
        E.BEGIN_PREFLIGHT,
        E.USER_CONFIRMED,
        E.LAUNCH,
        E.SPAWNED,
        E.LAUNCH_ERROR,
        E.FALL_BACK,
        E.RELOCATE,
        E.RELOCATED,
        E.SPAWNED,
        E.LAUNCH_ERROR,
    ):
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
