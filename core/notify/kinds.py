"""The kinds of event wftop tells (`wftop.core.notify.events`), apart: the settings name
them (`wftop.core.notify.settings`), and reading the settings must not import the run model
(a view reads them before it starts its engine)."""

from __future__ import annotations

from enum import StrEnum


class Kind(StrEnum):
    """The kinds of event, as the ``[notifications]`` table and the JSON name them."""

    DIED = "died"
    PARTIAL = "partial"
    FAILED = "failed"
    KILLED = "killed"
    STALLED = "stalled"
    RESUME = "resume"
    SUPERVISOR = "supervisor"
    COMPLETED = "completed"
