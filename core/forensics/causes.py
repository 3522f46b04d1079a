"""Why a session stopped: its termination cause, from the records the CLI wrote.

Each signature is a string (or field value) Claude Code 2.1.332 really wrote,
copied from a transcript made by the real CLI against a mock API (``EXP``) or,
where noted, from the CLI's own bundle (``B332``). ``docs/forensics.md`` lists
them with the fixture that holds each one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from wftop.core.forensics.limits import EVIDENCE_CHARS, cut
from wftop.core.forensics.session_transcript import INTERRUPT_MARKER, ErrorEvent, TranscriptFacts


class Cause(StrEnum):
    AUTH_EXPIRED = "auth_expired"
    USAGE_LIMIT = "usage_limit"
    RATE_LIMITED = "rate_limited"
    API_OVERLOAD = "api_overload"
    API_5XX = "api_5xx"
    NETWORK = "network"
    STALLED = "stalled"
    MACHINE_SLEPT = "machine_slept"
    CONTEXT_TOO_LONG = "context_too_long"
    USER_INTERRUPT = "user_interrupt"
    API_ERROR_UNCLASSIFIED = "api_error_unclassified"
    CLEAN_OR_UNKNOWN = "clean_or_unknown"


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
    C.API_ERROR_UNCLASSIFIED,
)
"""When one episode shows several errors, the first cause here explains the others
(a sleep makes the next requests time out; a spent quota outlasts a retry)."""

CLEARS: dict[Cause, str] = {
    C.AUTH_EXPIRED: "sign in again (/login or `claude auth login`) or fix the API key; resume",
    C.USAGE_LIMIT: "wait for the reset named in the evidence, or add usage or credit, then resume",
    C.RATE_LIMITED: "wait a minute and retry; run fewer agents at once",
    C.API_OVERLOAD: "nothing on your side: the API was overloaded; retry later",
    C.API_5XX: "nothing on your side: the API failed; retry later",
    C.NETWORK: "check the network, proxy and ANTHROPIC_BASE_URL; retry once it answers",
    C.STALLED: "retry; if it recurs, check proxies and API_TIMEOUT_MS",
    C.MACHINE_SLEPT: "nothing to fix: resume now that the machine is awake",
    C.CONTEXT_TOO_LONG: "run /compact (or start a new session) before going on",
    C.USER_INTERRUPT: "nothing to clear: resume if the work is still wanted",
    C.API_ERROR_UNCLASSIFIED: "read the evidence line: an API error wftop does not recognise",
    C.CLEAN_OR_UNKNOWN: "nothing recorded a cause: the session ended or was killed without a trace",
}

NO_ANSWER_NOTE = "the transcript ends with a request to the API that never got an answer"


def classify_event(event: ErrorEvent) -> tuple[Cause, Signature | None]:
    """The cause one record shows; unrecognised API errors are unclassified."""
    for signature in SIGNATURES:
        if signature.matches(event):
            return signature.cause, signature
    return C.API_ERROR_UNCLASSIFIED, None


def cause_words(cause: str | None) -> str:
    """A cause as text output and the TUI say it (``clean or unknown``); JSON keeps the
    value (``clean_or_unknown``). ``-`` for none."""
    return cause.replace("_", " ") if cause else "-"


@dataclass(frozen=True)
class Verdict:
    cause: Cause
    event: ErrorEvent | None = None
    signature: Signature | None = None
    also_seen: tuple[Cause, ...] = ()
    note: str | None = None
    from_worker: bool = False
    """The evidence is in a dead worker's transcript, not the session's own."""

    @property
    def clears(self) -> str:
        return CLEARS[self.cause]

    @property
    def evidence(self) -> str | None:
        if self.event is None:
            return None
        return f"{self.event.where}: {cut(self.event.text, EVIDENCE_CHARS)}"

    def to_json(self) -> dict[str, object]:
        return {
            "cause": self.cause.value,
            "evidence": self.evidence,
            "signature": None if self.signature is None else str(self.signature.value),
            "signature_source": None if self.signature is None else self.signature.source,
            "from_worker": self.from_worker,
            "also_seen": [cause.value for cause in self.also_seen],
            "clears": self.clears,
            "note": self.note,
        }


def verdict_of(events: Iterable[ErrorEvent], *, from_worker: bool = False) -> Verdict | None:
    """The cause among one episode's events, or None when there is none."""
    ordered = list(events)
    if not ordered:
        return None
    last = ordered[-1]
    if last.kind == "interrupt":
        _, signature = classify_event(last)
        return Verdict(C.USER_INTERRUPT, last, signature, from_worker=from_worker)
    ranked = []
    for event in ordered:
        if event.kind == "interrupt":
            continue
        cause, signature = classify_event(event)
        final = 0 if event.kind == "api_error" else 1
        ranked.append((PRIORITY.index(cause), final, -event.line, cause, signature, event))
    if not ranked:
        return None
    ranked.sort(key=lambda item: item[:3])
    _, _, _, cause, signature, event = ranked[0]
    seen = tuple(dict.fromkeys(item[3] for item in ranked if item[3] is not cause))
    return Verdict(cause, event, signature, seen, from_worker=from_worker)


def session_verdict(facts: TranscriptFacts, worker_events: list[ErrorEvent]) -> Verdict:
    """The cause from the session's last episode, else from its dead workers' transcripts."""
    episode = [
        event
        for event in facts.events
        if event.line > facts.last_prompt_line and event.line >= facts.tail_start_line
    ]
    found = verdict_of(episode)
    if found is None:
        found = verdict_of(
            sorted(worker_events, key=lambda e: (e.timestamp or "", e.line)), from_worker=True
        )
    if found is not None:
        return found
    note = NO_ANSWER_NOTE if facts.last_type == "api-request" else None
    return Verdict(C.CLEAN_OR_UNKNOWN, note=note)
