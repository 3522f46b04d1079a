"""The resume state machine: one transition table and one pure function.

The states and events it moves between are named in ``wftop.core.resume.states`` (and
exported from here too, with the rules).

Theory of operation (h11's shape):

* Rule 1: everything that decides which state a resume request moves to lives in
  this module. Callers never assign a state; they feed an event to `advance` and
  persist what it returns (``wftop.core.resume.store`` does both).
* Rule 2: transitions are data. `TRANSITIONS` maps ``(state, event)`` to the next
  state; a pair missing from it is illegal and raises `IllegalTransition`.
* Rule 3: one guard complements the table. A request may launch at most
  `MAX_LAUNCH_ATTEMPTS` times. ``attempts`` counts the launches already made for
  the request (entries into ``launching`` from another state). Entering
  ``launching``, ``relocating`` or ``fallback`` from another state needs
  ``attempts < MAX_LAUNCH_ATTEMPTS``: a third launch is refused with
  `AttemptsExhausted`, and so are the steps that only lead to one.
* Rule 4: `TERMINAL_STATES` accept no event. ``launch_failed`` is not terminal (it
  accepts ``fall_back``) but it is final once the attempts are used up; see
  `is_final`.

Path of one request::

    planned -> preflight -> blocked
                         -> confirmed -> [relocating ->] launching -> running -> outcome
    launching -> launch_failed -> fallback -> relocating | launching   (capped)

``launching`` means the process was (or is being) started but the CLI has not yet
been seen to relaunch the workflow; ``spawned`` records the pid without leaving it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from wftop.core.resume.errors import AttemptsExhausted, IllegalTransition
from wftop.core.resume.states import ACTIVE_STATES, ResumeEvent, ResumeState

__all__ = [
    "ACTIVE_STATES",
    "CAPPED_STATES",
    "MAX_LAUNCH_ATTEMPTS",
    "TERMINAL_STATES",
    "TRANSITIONS",
    "ResumeEvent",
    "ResumeState",
    "advance",
    "counts_as_launch",
    "is_final",
]

MAX_LAUNCH_ATTEMPTS: Final = 2
"""Launches allowed per user request (the first try plus one fallback)."""


_S = ResumeState
_E = ResumeEvent

TRANSITIONS: Final[Mapping[tuple[ResumeState, ResumeEvent], ResumeState]] = MappingProxyType(
    {
        (_S.PLANNED, _E.BEGIN_PREFLIGHT): _S.PREFLIGHT,
        (_S.PLANNED, _E.STOPPED_BY_USER): _S.STOPPED,
        (_S.PREFLIGHT, _E.GUARD_REFUSED): _S.BLOCKED,
        (_S.PREFLIGHT, _E.USER_CONFIRMED): _S.CONFIRMED,
        (_S.PREFLIGHT, _E.STOPPED_BY_USER): _S.STOPPED,
        (_S.CONFIRMED, _E.RELOCATE): _S.RELOCATING,
        (_S.CONFIRMED, _E.LAUNCH): _S.LAUNCHING,
        (_S.CONFIRMED, _E.STOPPED_BY_USER): _S.STOPPED,
        (_S.RELOCATING, _E.RELOCATED): _S.LAUNCHING,
        (_S.RELOCATING, _E.RELOCATION_FAILED): _S.LAUNCH_FAILED,
        (_S.LAUNCHING, _E.SPAWNED): _S.LAUNCHING,
        (_S.LAUNCHING, _E.STARTED): _S.RUNNING,
        (_S.LAUNCHING, _E.LAUNCH_ERROR): _S.LAUNCH_FAILED,
        (_S.LAUNCHING, _E.STOPPED_BY_USER): _S.STOPPED,
        (_S.LAUNCHING, _E.PROCESS_VANISHED): _S.LOST,
        (_S.RUNNING, _E.EXITED_OK): _S.COMPLETED,
        (_S.RUNNING, _E.EXITED_WITH_FAILURES): _S.COMPLETED_WITH_FAILURES,
        (_S.RUNNING, _E.EXITED_FAILED): _S.FAILED,
        (_S.RUNNING, _E.STOPPED_BY_USER): _S.STOPPED,
        (_S.RUNNING, _E.PROCESS_VANISHED): _S.LOST,
        (_S.LAUNCH_FAILED, _E.FALL_BACK): _S.FALLBACK,
        (_S.FALLBACK, _E.RELOCATE): _S.RELOCATING,
        (_S.FALLBACK, _E.LAUNCH): _S.LAUNCHING,
        (_S.FALLBACK, _E.STOPPED_BY_USER): _S.STOPPED,
    }
)

TERMINAL_STATES: Final = frozenset(
    {_S.BLOCKED, _S.COMPLETED, _S.COMPLETED_WITH_FAILURES, _S.FAILED, _S.STOPPED, _S.LOST}
)
"""States that accept no event."""

CAPPED_STATES: Final = frozenset({_S.LAUNCHING, _S.RELOCATING, _S.FALLBACK})
"""Entering one of these from another state needs a launch attempt left."""


def advance(state: ResumeState, event: ResumeEvent, *, attempts: int) -> ResumeState:
    """Return the state that ``event`` moves a request in ``state`` to.

    Args:
        state: The request's current state.
        event: What happened.
        attempts: Launches already made for this request (0 before the first).

    Returns:
        The next state.

    Raises:
        IllegalTransition: The table has no entry for ``(state, event)``.
        AttemptsExhausted: The transition would lead to launch number
            ``MAX_LAUNCH_ATTEMPTS + 1``.
        ValueError: ``attempts`` is negative.
    """
    if attempts < 0:
        msg = f"attempts must be >= 0, got {attempts!r}"
        raise ValueError(msg)
    try:
        target = TRANSITIONS[state, event]
    except KeyError:
        msg = f"can't handle event {event.value!r} in state {state.value!r}"
        raise IllegalTransition(msg) from None
    if target in CAPPED_STATES and target is not state and attempts >= MAX_LAUNCH_ATTEMPTS:
        msg = (
            f"can't handle event {event.value!r} in state {state.value!r}: "
            f"{attempts} of {MAX_LAUNCH_ATTEMPTS} launch attempts already used for this request"
        )
        raise AttemptsExhausted(msg)
    return target


def counts_as_launch(state: ResumeState, target: ResumeState) -> bool:
    """Whether moving from ``state`` to ``target`` uses up one launch attempt."""
    return target is ResumeState.LAUNCHING and state is not ResumeState.LAUNCHING


def is_final(state: ResumeState, *, attempts: int) -> bool:
    """Whether a request in ``state`` can still move (terminal, or out of attempts)."""
    if state in TERMINAL_STATES:
        return True
    return state is ResumeState.LAUNCH_FAILED and attempts >= MAX_LAUNCH_ATTEMPTS
