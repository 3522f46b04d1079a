"""A run's status and the words a view shows for it (`Status`, `PARTIAL`, `status_word`), and
how a row's names and moments are made safe to print (`json_safe_dict`, `iso_utc`): what a
view needs of the run model without the run itself (`wftop.core.model.Run`, whose data class
is made as its module is imported, some 11 M instructions, on the way to a view's first list).
`wftop.core.model` names each of them too."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import orjson


class Status(StrEnum):
    RUNNING = "running"
    STALLED = "stalled"
    DEAD = "dead"
    COMPLETED = "completed"
    FAILED = "failed"
    KILLED = "killed"
    SUPERSEDED = "superseded"
    UNREADABLE = "unreadable"
    """Its journal is on disk but cannot be read (a mode, a link loop, not a file): nothing
    about its calls is known, so it is neither dead nor anything else
    (`wftop.core.model.Run.unreadable_reason`)."""


ENDED = frozenset({Status.COMPLETED, Status.FAILED, Status.KILLED, Status.SUPERSEDED})
PARTIAL = "partial"
"""The word shown for a run that completed with failed calls: it needs attention (it is
resumable: the plan forecasts what each strategy would run again). It is a word of the
views (rows, counts, ``wftop status``), not a `Status`: ``ls --json`` keeps
``status: completed`` and lists the calls in ``failed_calls``."""

NEEDS_YOU = ("dead", "stalled", "failed", PARTIAL, "unreadable")
"""The shown statuses that need a person, in the order a status line names them (an
unreadable run needs someone to make it readable)."""

SNAPSHOT_STATUSES = {
    "completed": Status.COMPLETED,
    "failed": Status.FAILED,
    "killed": Status.KILLED,
}


def status_word(status: str, failed_calls: int) -> str:
    """The word a view shows for a run: its status, or `PARTIAL` for a run that completed
    with ``failed_calls`` > 0."""
    return PARTIAL if failed_calls and status == Status.COMPLETED.value else status


def printable(text: str) -> str:
    """A name read from disk as valid UTF-8: undecodable bytes become ``\\xNN``."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        try:
            raw = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a surrogate that stands for no byte: ``\udNNN``
            return text.encode("utf-8", "backslashreplace").decode("utf-8", "backslashreplace")
        return raw.decode("utf-8", "backslashreplace")
    return text


def json_safe_dict(value: dict[str, Any]) -> dict[str, Any]:
    """`json_safe` for the dict shapes of ``--json`` output (the dict itself when every
    string in it is valid UTF-8 already, which one encoder call tells)."""
    try:
        orjson.dumps(value)
    except TypeError:
        return {printable(key): json_safe(item) for key, item in value.items()}
    return value


def json_safe(value: Any) -> Any:
    """``value`` with every string made `printable`, ready for a JSON encoder."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable(str(key)): json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    return value


def iso_utc(timestamp: float | None) -> str | None:
    if timestamp is None:
        return None
    moment = datetime.fromtimestamp(timestamp, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
