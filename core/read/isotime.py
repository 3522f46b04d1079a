"""`parse_iso_time`: an ISO 8601 moment as JSON holds it, as seconds since the epoch. Alone
in its module: a view reads one in every row (`wftop.core.rowwire`) and needs nothing else
of a snapshot's reader."""

from __future__ import annotations

from datetime import datetime


def parse_iso_time(value: object) -> float | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
