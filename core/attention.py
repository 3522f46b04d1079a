"""What needs a person: a run's state as attention sees it, and the attention window.

A run needs you when it is stalled or unreadable, or dead, failed or partial with its last
activity within the attention window (`needs_you`), unless it was marked seen in that state
(`wftop.core.notify.acks`). Below the index, the engine and the views: it reads nothing.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from wftop.core.status import PARTIAL, Status

RECENT: Final = frozenset({Status.DEAD.value, Status.FAILED.value, PARTIAL})
"""Shown statuses that need you while recent (within the attention window)."""


SAME: Final = 0.002
"""Seconds apart two last activities may be and still be the same moment."""


class RunState(NamedTuple):
    """A run as attention sees it: who, how it stands, when it last grew."""

    ident: str
    run_id: str
    shown: str
    last_activity: float | None


def needs_you(shown: str, last_activity: float | None, now: float, window: float) -> bool:
    """Stalled or unreadable; or dead, failed or partial and last active within ``window``
    seconds."""
    if shown in (Status.STALLED.value, Status.UNREADABLE.value):
        return True
    if shown in RECENT:
        return last_activity is None or now - last_activity <= window
    return False
