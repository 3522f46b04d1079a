"""When to resume: until when the owner session's prompt cache probably stays warm.

A resume of the owner session (``resume-owner``) sends the session's conversation again.
While the Messages API still holds that prefix in its prompt cache, the resume turn reads it
at a tenth of the input price; once it expired, the whole prefix is written again. The API
keeps a cached prefix for its TTL after it was last used (written or read): 5 minutes by
default, 1 hour where the CLI asked for it (``ENABLE_PROMPT_CACHING_1H``, some
subscriptions).

The session transcript says both: every assistant record carries the response's ``usage``,
whose ``cache_creation`` splits the tokens written to the cache by TTL
(``ephemeral_5m_input_tokens``, ``ephemeral_1h_input_tokens``), and builds since 2.1.332 also
write the TTL they asked for (``promptCacheRequested``) and the request record the response
answers (``requestRef`` → an ``api-request`` record with the time the request was sent).
This is an estimate: the API may drop a prefix earlier, and a request whose answer was never
written (the session was killed mid-request) may have kept it warm longer, which the estimate
does not count (the safe side).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from wftop.core.compared import compared
from wftop.core.read.jsonline import UnreadableLine, read_record
from wftop.core.read.snapshot import parse_iso_time

TTL_5M: Final = 300.0
TTL_1H: Final = 3600.0
REQUESTED_TTL: Final = {"5m": TTL_5M, "1h": TTL_1H}
BLOCK: Final = 256 * 1024
MAX_BYTES: Final = 8 * 1024 * 1024
"""How far back from the end of a transcript the last usage record is looked for."""


@compared
@dataclass(frozen=True, eq=False, repr=False)
class CacheWarmth:
    """What the owner session's last use of the prompt cache was."""

    last_use: float | None
    """When the last request that wrote or read the cache was sent (None: no such request,
    so no prefix of this session is cached)."""
    ttl: float | None
    """Seconds the API keeps the prefix after a use: `TTL_5M` or `TTL_1H`."""

    @property
    def until(self) -> float | None:
        """Until when the cache stays warm (an estimate); None when nothing is cached."""
        if self.last_use is None or self.ttl is None:
            return None
        return self.last_use + self.ttl

    def warm_at(self, now: float) -> bool:
        until = self.until
        return until is not None and now < until


COLD = CacheWarmth(None, None)


def cache_text(until: float | None, now: float) -> str:
    """``cache warm for 41 min`` (the minutes left, rounded down), or ``cache cold``."""
    if until is None or now >= until:
        return "cache cold"
    minutes = int((until - now) // 60)
    return f"cache warm for {minutes} min" if minutes else "cache warm for <1 min"


def _usage(record: dict[str, Any]) -> dict[str, Any] | None:
    """The usage of a main-thread response the API answered (not a synthetic message)."""
    if record.get("type") != "assistant" or record.get("isSidechain") is True:
        return None
    message = record.get("message")
    if not isinstance(message, dict) or message.get("model") == "<synthetic>":
        return None
    usage = message.get("usage")
    return usage if isinstance(usage, dict) else None


def _count(value: Any) -> int:
    return value if type(value) is int and value > 0 else 0


def _ttl(record: dict[str, Any], usage: dict[str, Any]) -> float | None:
    """The TTL a response shows: the tokens it wrote per TTL, else the TTL the CLI asked for."""
    split = usage.get("cache_creation")
    if isinstance(split, dict):
        if _count(split.get("ephemeral_1h_input_tokens")):
            return TTL_1H
        if _count(split.get("ephemeral_5m_input_tokens")):
            return TTL_5M
    elif _count(usage.get("cache_creation_input_tokens")):
        return TTL_5M  # builds that wrote no split: the API's default TTL
    requested = record.get("promptCacheRequested")
    return REQUESTED_TTL.get(requested) if isinstance(requested, str) else None


def _uses_cache(usage: dict[str, Any]) -> bool:
    return bool(
        _count(usage.get("cache_creation_input_tokens"))
        or _count(usage.get("cache_read_input_tokens"))
    )


def _lines_backwards(path: str) -> Iterator[bytes]:
    """The lines of ``path``, last first, from at most its last `MAX_BYTES`."""
    with open(path, "rb") as handle:
        end = position = handle.seek(0, os.SEEK_END)
        carry = b""
        while position > 0 and end - position < MAX_BYTES:
            size = min(BLOCK, position)
            position -= size
            handle.seek(position)
            lines = (handle.read(size) + carry).split(b"\n")
            carry = lines.pop(0) if position > 0 else b""  # the start of a line read later
            yield from reversed(lines)


def _records_backwards(path: str) -> Iterator[dict[str, Any]]:
    """The records of ``path`` that can hold a usage or a request time, last first."""
    for raw in _lines_backwards(path):
        if b'"usage"' in raw or b'"api-request"' in raw:
            try:
                yield read_record(raw)
            except UnreadableLine:
                continue


def last_response(transcript: str) -> tuple[dict[str, Any], float | None] | None:
    """The owner session's last response the API answered (its record, which holds a
    ``message`` with a ``usage``) and the TTL it shows; None when there is none."""
    try:
        for record in _records_backwards(transcript):
            usage = _usage(record)
            if usage is not None:
                return record, _ttl(record, usage)
    except (OSError, ValueError):
        return None
    return None


def read_cache_warmth(transcript: str) -> CacheWarmth:
    """The owner session's last use of the prompt cache, from its transcript's last usage
    record; `COLD` when the transcript is gone or its last response used no cache.

    The time is the request's (``requestRef``'s ``api-request`` record) where the transcript
    has it, else the response's. The TTL is the last response's; a response that only read
    the cache takes it from the TTL the CLI asked for, else from the last earlier response
    that shows one, else 5 minutes.
    """
    last: dict[str, Any] | None = None
    request: object = None
    sent: float | None = None
    ttl: float | None = None
    try:
        for record in _records_backwards(transcript):
            if last is None:
                usage = _usage(record)
                if usage is None:
                    continue
                if not _uses_cache(usage):
                    return COLD
                last, ttl = record, _ttl(record, usage)
                request = last.get("requestRef")
            elif record.get("type") == "api-request":
                if sent is None and request is not None and record.get("id") == request:
                    sent = parse_iso_time(record.get("timestamp"))
            elif ttl is None and (usage := _usage(record)) is not None:
                ttl = _ttl(record, usage)
            if last is not None and ttl is not None and (sent is not None or request is None):
                break
    except (OSError, ValueError):
        return COLD
    if last is None:
        return COLD
    when = sent or parse_iso_time(last.get("timestamp"))
    return COLD if when is None else CacheWarmth(when, ttl or TTL_5M)
