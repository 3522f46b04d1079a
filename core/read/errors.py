"""What an error the CLI wrote means: its kind, from the literal it wrote.

One vocabulary for every surface: a session's termination cause (`wftop.core.forensics.causes`)
and a failed call's kind (`wftop.core.read.failures`) are both a `Cause`. Each signature is a
string (or field value) Claude Code 2.1.332 really wrote, copied from a transcript made by the
real CLI against a mock API (``EXP``) or, where noted, from the CLI's own bundle (``B332``).
``docs/forensics.md`` lists them with the fixture that holds each one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from wftop.core.read.verdicts import Cause as Cause  # its home; named here as before

EVIDENCE_CHARS: Final = 300
"""An evidence line's text is cut to this many characters."""

INTERRUPT_MARKER = "[Request interrupted by user"
"""Prefix of both interrupt markers the CLI writes (plain and ``for tool use``)."""


def cut(text: str, limit: int) -> str:
    """``text`` shortened to ``limit`` characters, marked with an ellipsis when cut."""
    text = " ".join(text.split()) if "\n" in text else text
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


CALL_ONLY: Final = frozenset({Cause.SCHEMA, Cause.SCRIPT_ERROR})
"""Kinds only a call's failure has: no session transcript record shows them."""


@dataclass(frozen=True)
class ErrorEvent:
    """A record that tells why a turn ended: an API error, a retry, or an interrupt."""

    path: str
    line: int
    kind: str
    """``api_error`` (the turn's final error), ``retry`` (a failed attempt) or ``interrupt``."""
    text: str
    error: str | None = None
    """The record's ``error`` code, e.g. ``rate_limit``, ``authentication_failed``."""
    api_error: str | None = None
    status: int | None = None
    error_type: str | None = None
    connection: str | None = None
    timestamp: str | None = None
    resets_at: float | None = None
    """When a usage limit lifts (``apiErrorParams.rate_limit_info.resetsAt``, epoch seconds)."""
    retry_in_ms: int | None = None
    """A retry's wait before the CLI's next try (``retryInMs``)."""

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def evidence(self) -> str:
        """``<path>:<line>: <text>``, the text cut to `EVIDENCE_CHARS`."""
        return f"{self.where}: {cut(self.text, EVIDENCE_CHARS)}"


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _resets_at(params: object) -> float | None:
    info = params.get("rate_limit_info") if isinstance(params, dict) else None
    value = info.get("resetsAt") if isinstance(info, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return None
    return float(value)


def message_text(content: object) -> str:
    """Every text of a message content or tool result, joined by newlines."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict):
            if isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif "content" in block:
                parts.append(message_text(block["content"]))
    return "\n".join(part for part in parts if part)


def api_error_event(path: str, line: int, record: dict[str, Any]) -> ErrorEvent | None:
    """The error an ``isApiErrorMessage`` assistant record carries (None for any other record):
    the record the CLI writes when a request failed for good, in a session's transcript and in
    an agent's."""
    if record.get("isApiErrorMessage") is not True or record.get("type") != "assistant":
        return None
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return ErrorEvent(
        path=path,
        line=line,
        kind="api_error",
        text=message_text(content),
        error=_str(record.get("error")),
        api_error=_str(record.get("apiError")),
        status=_int(record.get("apiErrorStatus")),
        error_type=_str(record.get("apiErrorType")),
        timestamp=_str(record.get("timestamp")),
        resets_at=_resets_at(record.get("apiErrorParams")),
    )


@dataclass(frozen=True)
class Signature:
    """One thing a record may show, and the cause it means."""

    cause: Cause
    field: str
    """``text`` (substring of the message), ``error``, ``api_error`` (equal to the
    record's field), ``status`` (HTTP status), ``status_5xx``, ``connection`` (any
    connection error code)."""
    value: str | int
    source: str

    def matches(self, event: ErrorEvent) -> bool:
        if self.field == "text":
            return isinstance(self.value, str) and self.value in event.text
        if self.field == "error":
            return event.error == self.value
        if self.field == "api_error":
            return event.api_error == self.value
        if self.field == "status":
            return event.status == self.value
        if self.field == "status_5xx":
            return event.status is not None and 500 <= event.status <= 599
        if self.field == "connection":
            return event.connection is not None
        return False


def _sig(cause: Cause, field_name: str, value: str | int, source: str) -> Signature:
    return Signature(cause, field_name, value, source)


C = Cause
# fmt: off
SIGNATURES: tuple[Signature, ...] = (
    _sig(C.MACHINE_SLEPT, "text", "Connection lost while your computer was asleep",
         "EXP machine-slept"),
    _sig(C.USER_INTERRUPT, "text", INTERRUPT_MARKER, "EXP interrupted"),
    _sig(C.AUTH_EXPIRED, "error", "authentication_failed", "EXP api-401, api-401-oauth"),
    _sig(C.AUTH_EXPIRED, "text", "Invalid API key · Fix external API key", "EXP api-401"),
    _sig(C.AUTH_EXPIRED, "text", "OAuth token has expired", "EXP api-401-oauth"),
    _sig(C.AUTH_EXPIRED, "text", "Please run /login", "B332"),
    _sig(C.AUTH_EXPIRED, "status", 401, "EXP api-401"),
    _sig(C.USAGE_LIMIT, "api_error", "usage_limit_reached", "EXP usage-limit"),
    _sig(C.USAGE_LIMIT, "text", "You've hit your", "EXP usage-limit; B332"),
    _sig(C.USAGE_LIMIT, "error", "billing_error", "EXP credit-low"),
    _sig(C.USAGE_LIMIT, "text", "Credit balance is too low", "EXP credit-low"),
    _sig(C.CONTEXT_TOO_LONG, "text", "Prompt is too long", "EXP prompt-too-long"),
    _sig(C.RATE_LIMITED, "text", "Request rejected (429)", "EXP api-429"),
    _sig(C.RATE_LIMITED, "error", "rate_limit", "EXP api-429"),
    _sig(C.RATE_LIMITED, "status", 429, "EXP api-429"),
    _sig(C.API_OVERLOAD, "status", 529, "EXP api-529"),
    _sig(C.API_OVERLOAD, "text", "529 Overloaded", "EXP api-529"),
    _sig(C.API_OVERLOAD, "text", "Repeated 529 Overloaded errors", "B332"),
    _sig(C.API_5XX, "status_5xx", "500-599", "EXP api-500"),
    _sig(C.API_5XX, "text", "This is a server-side issue", "EXP api-500"),
    _sig(C.NETWORK, "text", "Connection dropped", "EXP net-drop"),
    _sig(C.NETWORK, "text", "Connection error.", "EXP net-drop"),
    _sig(C.NETWORK, "connection", "any code", "EXP net-drop"),
    _sig(C.STALLED, "text", "stream idle: no bytes for", "EXP stream-idle"),
    _sig(C.STALLED, "text", "Request timed out", "EXP request-timeout"),
    _sig(C.STALLED, "text", "No response from API", "EXP machine-slept"),
    _sig(C.STALLED, "text", "No data arrived for more than", "B332"),
    _sig(C.STALLED, "text", "agent stalled on all", "B332"),
    _sig(C.STALLED, "text", "agent lost its reply on all", "B332"),
    _sig(C.USER_INTERRUPT, "text", "agent abandoned: user requested retry", "B332"),
    _sig(C.SCHEMA, "text", "subagent completed without calling StructuredOutput",
         "B332; a snapshot log of versions/2.1.146-mid-failure"),
)
# fmt: on
"""Checked in this order; the first that matches a record names its cause."""

PRIORITY: tuple[Cause, ...] = (
    C.MACHINE_SLEPT,
    C.AUTH_EXPIRED,
    C.USAGE_LIMIT,
    C.CONTEXT_TOO_LONG,
    C.RATE_LIMITED,
    C.API_OVERLOAD,
    C.API_5XX,
    C.NETWORK,
    C.STALLED,
    C.SCHEMA,
    C.API_ERROR_UNCLASSIFIED,
)
"""When one episode shows several errors, the first cause here explains the others
(a sleep makes the next requests time out; a spent quota outlasts a retry)."""

ORDER: Final[tuple[Cause, ...]] = tuple(Cause)
"""Every kind in the order of ``docs/forensics.md``'s table: ties between kinds go to the
first (`dominant_kind`)."""


def classify_event(event: ErrorEvent) -> tuple[Cause, Signature | None]:
    """The cause one record shows; unrecognised API errors are unclassified."""
    for signature in SIGNATURES:
        if signature.matches(event):
            return signature.cause, signature
    return C.API_ERROR_UNCLASSIFIED, None


def classify_text(text: str) -> Cause:
    """The kind an error's text shows (a snapshot's ``error``, a ``failed:`` log line):
    `classify_event` of the text alone."""
    return classify_event(ErrorEvent("", 0, "api_error", text))[0]


def cause_words(cause: str | None) -> str:
    """A cause as text output and the TUI say it (``clean or unknown``); JSON keeps the
    value (``clean_or_unknown``). ``-`` for none."""
    return cause.replace("_", " ") if cause else "-"


def dominant_kind(kinds: list[str]) -> str | None:
    """The most frequent kind; a tie goes to the first in `ORDER`. None for no kinds."""
    if not kinds:
        return None
    rank = {kind.value: number for number, kind in enumerate(ORDER)}
    return min(set(kinds), key=lambda kind: (-kinds.count(kind), rank.get(kind, len(rank))))


TAGS: Final[dict[str, str]] = {
    Cause.MACHINE_SLEPT: "slept",
    Cause.AUTH_EXPIRED: "auth",
    Cause.USAGE_LIMIT: "limit",
    Cause.CONTEXT_TOO_LONG: "ctx",
    Cause.RATE_LIMITED: "429",
    Cause.API_OVERLOAD: "529",
    Cause.API_5XX: "5xx",
    Cause.NETWORK: "net",
    Cause.STALLED: "stall",
    Cause.USER_INTERRUPT: "stop",
    Cause.SCHEMA: "schema",
    Cause.SCRIPT_ERROR: "script",
    Cause.API_ERROR_UNCLASSIFIED: "api",
    Cause.CLEAN_OR_UNKNOWN: "",
}
"""A kind in a few characters, for tables that name failed calls (``a6 ✗429``)."""


def failure_tag(label: str, kind: str) -> str:
    """A failed call as a table names it: its label, ``✗`` and its kind's `TAGS` (``a6 ✗429``)."""
    return f"{label} ✗{TAGS.get(kind, kind)}"
