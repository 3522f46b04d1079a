"""Why a session stopped: its termination cause, from the records the CLI wrote.

What each record means is `wftop.core.read.errors`' (the signatures, one vocabulary with the
kinds of failed calls); this module picks the cause of a session's last episode among them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from wftop.core.forensics.session_transcript import TranscriptFacts
from wftop.core.read.errors import PRIORITY, Cause, ErrorEvent, Signature, classify_event

C = Cause

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
    C.SCHEMA: "fix the script's schema or the prompt that asks for it; resume",
    C.SCRIPT_ERROR: "fix the script (the evidence is what it threw); resume",
    C.CLEAN_OR_UNKNOWN: "nothing recorded a cause: the session ended or was killed without a trace",
}

NO_ANSWER_NOTE = "the transcript ends with a request to the API that never got an answer"


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
        return None if self.event is None else self.event.evidence

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
