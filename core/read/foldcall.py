"""A call of a workflow journal as `wftop.core.read.journal.JournalFold` keeps it (`Call`,
its `CallState`, its result packed), and the one loop that folds a run's lines into new
calls (`fold_records`: a run read whole, 100,000 calls' lines with no call per line), which
`fold_whole` hands every line but a call's usual two."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from operator import add
from typing import Any, cast

import orjson


class CallState(StrEnum):
    """State of a call's latest attempt."""

    DONE = "done"
    FAILED = "failed"
    IN_FLIGHT = "in_flight"

    @property
    def word(self) -> str:
        """The state as text says it (``in flight``); JSON keeps the value."""
        return self.value.replace("_", " ")


_DONE, _FAILED, _IN_FLIGHT = CallState.DONE, CallState.FAILED, CallState.IN_FLIGHT
"""The states as constants: the fold sets one per line, and an enum member looked up on
its class costs a descriptor call each time."""


@dataclass(slots=True)
class Call:
    """One ``agent()`` call of a run, identified by its cache key."""

    key: str
    """The journal ``key``; ``agent:<agentId>`` for old lines that have none."""
    order: int
    """Position of the call's first line among the calls (0-based)."""
    first_line: int = 0
    """Journal line of the call's first record (third: the fold makes a call by position,
    ``Call(key, order, line)``; a class called with a keyword is handed a dict of them,
    about a fifth of a call's making)."""
    label: str = ""
    phase: str | None = None
    agent_ids: tuple[str, ...] = ()
    """Agent id of every ``started`` attempt, oldest first (tuples: most calls have one
    attempt, and a run list holds every call of every run)."""
    attempt_lines: tuple[int, ...] = ()
    """Journal line of every ``started`` attempt, oldest first."""
    returned_agent_ids: tuple[str, ...] = ()
    """Agent id of every ``result`` line, oldest first."""
    started_after_result: bool = False
    """A ``started`` line came after a ``result`` of this call (a resume re-ran it)."""
    state: CallState = CallState.IN_FLIGHT
    packed_result: Any = field(default=None, repr=False)
    """`result` as kept: an object or array as compact JSON bytes (see `pack`), else as is."""
    result_agent_id: str | None = None
    has_result: bool = False
    """The CLI's reader holds a result for this key (it would be served from cache)."""
    failed: bool = False
    """The key is in the CLI reader's failed set."""
    demoted: bool = False
    replaced: bool = False
    keyless: bool = False
    last_line: int = 0
    """Journal line of the call's latest record."""
    results_seen: int = 0
    failures_seen: int = 0

    @property
    def attempts(self) -> int:
        return len(self.agent_ids)

    @property
    def result(self) -> Any:
        """The latest ``result`` line's value (parsed again on each read when it was packed)."""
        kept = self.packed_result
        return orjson.loads(kept) if type(kept) is bytes else kept

    @result.setter
    def result(self, value: Any) -> None:
        self.packed_result = pack(value)


def pack(value: Any) -> Any:
    """An object or array as compact JSON bytes; anything else as it is.

    A run list holds the result of every call of every run: a parsed ``{"agent": "a1", "ok":
    true, "n": 7}`` (30 bytes of text) held 270 bytes, packed it holds 74. A value JSON
    cannot write back the same (a lone surrogate or an infinity, read the way ``JSON.parse``
    reads them) is kept as it is."""
    if type(value) is not dict and type(value) is not list:
        return value
    try:
        packed = orjson.dumps(value)
    except TypeError:  # orjson.JSONEncodeError is one
        return value
    if b"null" in packed and orjson.loads(packed) != value:  # an infinity wrote as null
        return value
    return bytes(memoryview(packed))  # a copy: orjson leaves room at the end


def fold_records(
    records: list[tuple[int, dict[str, Any]]],
    calls: dict[str, Call],
    open_keys: dict[str, None],
    failed_keys: dict[str, None],
    unlabelled: dict[str, None],
    reruns: list[str],
    packs: bool = True,
) -> Folded:
    """Fold ``records`` into ``calls`` and the key dicts of a fold, as the CLI's reader
    folds them (see `wftop.core.read.journal`), each call changed in place: the fold
    passes calls of its own (a call a snapshot shares is copied first,
    `JournalFold.feed_all`). One loop and no call per line: a plan folds 200,000 lines.
    ``packs`` False: each result is kept as it was parsed, not packed (`pack`: a third of
    the fold's time, for a process that reads one run and ends). Returns the counts and last
    values the fold adds up (`Folded`)."""
    folded = Folded()
    started = results = failures = keyless = others = 0
    last_agent: str | None = None
    last_phase: str | None = None  # a phase's text kept once where the lines repeat it
    restore: str | None = None
    in_flight, done, failed = _IN_FLIGHT, _DONE, _FAILED
    for line, record in records:
        get = record.get
        kind = get("type")
        if kind != "started" and kind != "result" and kind != "failed":
            if kind == "restoring":
                restore = "partial"
            elif kind == "restored":
                restore = "restored"
            elif kind != "launched" and kind != "resumed":
                continue
            others += 1
            continue
        key = get("key")
        if type(key) is str and key:
            call = calls.get(key)
            if call is None:
                call = calls[key] = Call(key, len(calls), line)
        else:
            keyless += 1
            key = f"agent:{get('agentId')}"
            call = calls.get(key)
            if call is None:
                call = calls[key] = Call(key, len(calls), line, keyless=True)
        call.last_line = line
        agent_id = get("agentId")
        if type(agent_id) is not str:
            agent_id = None
        elif agent_id:
            last_agent = agent_id
        if kind == "started":
            started += 1
            label, phase = get("label"), get("phase")
            if type(label) is str and label:
                call.label = label
                if unlabelled:
                    unlabelled.pop(key, None)
            if type(phase) is str and phase:
                if phase == last_phase:  # one text where the calls' lines repeat it
                    phase = last_phase
                else:
                    last_phase = phase
                call.phase = phase
            if call.has_result:
                call.has_result = False
                call.demoted = True
            if call.results_seen:
                call.started_after_result = True
                reruns.append(agent_id or "")
            call.agent_ids += (agent_id or "",)
            call.attempt_lines += (line,)
            call.state = in_flight
            open_keys[key] = None
            if failed_keys:
                failed_keys.pop(key, None)
        elif kind == "result":
            results += 1
            if call.has_result or call.demoted or call.failed:
                call.replaced = True
                call.demoted = False
            call.has_result = True
            call.packed_result = pack(get("result")) if packs else get("result")
            agents = call.agent_ids
            if agent_id and agents and agents[-1] == agent_id:  # as nearly always: the
                agent_id = agents[-1]  # text its `started` line kept, and its tuple
                if len(agents) == 1 and not call.returned_agent_ids:
                    call.returned_agent_ids = agents
                else:
                    call.returned_agent_ids += (agent_id,)
            else:
                call.returned_agent_ids += (agent_id or "",)
            call.result_agent_id = agent_id
            call.results_seen += 1
            call.state = done
            open_keys.pop(key, None)
            if failed_keys:
                failed_keys.pop(key, None)
        else:
            failures += 1
            call.has_result = False
            call.failed = True
            call.failures_seen += 1
            call.state = failed
            open_keys.pop(key, None)
            failed_keys[key] = None
        if not call.label:
            call.label = agent_id or key
            unlabelled[key] = None
    folded.counts = (started, results, failures, keyless)
    folded.others = others
    folded.last_agent_id, folded.restore_state = last_agent, restore
    return folded


FoldedInto = tuple[dict[str, Call], dict[str, None], dict[str, None], dict[str, None], list[str]]
"""What a fold folds lines into: its calls, in-flight, failed and unlabelled keys, and reruns."""


def fold_whole(
    records: list[tuple[int, dict[str, Any]]], into: FoldedInto, packs: bool = True
) -> Folded:
    """`fold_records` of ``records``, a call's usual two lines folded here: its first
    ``started`` line (keyed, labelled, naming its agent) makes the call whole at once, and a
    ``result`` of the one attempt of a call that neither returned nor failed before, from
    the agent it started, returns it. Any other line is handed to `fold_records`, those in a
    row at once. A plan folds 100,000 calls of two such lines each: making a call in one
    constructor, not field by field after it, and a return without the tests of the lines
    that may come again, is a sixth of its fold; a call made whole is made and given its
    fields here, with no call to `Call`'s __init__. ``into``: the calls and key dicts
    `fold_records` is handed, in its order."""
    calls, open_keys = into[0], into[1]
    started = results = 0
    last_agent: str | None = None
    last_phase: str | None = None
    pending: list[tuple[int, dict[str, Any]]] = []
    total = Folded()
    in_flight, done = _IN_FLIGHT, _DONE
    make = object.__new__
    for numbered in records:
        line, record = numbered
        get = record.get
        kind, key = get("type"), get("key")
        if type(key) is str and key and (kind == "started" or kind == "result"):
            if pending:  # the lines before it first: the call it names may be theirs
                folded = fold_records(pending, *into, packs)
                last_agent, pending = _added(total, folded, last_agent), []
            agent_id = get("agentId")
            if kind == "started":
                label = get("label")
                if (
                    type(agent_id) is str
                    and agent_id
                    and type(label) is str
                    and label
                    and key not in calls
                ):
                    phase = get("phase")
                    if type(phase) is not str or not phase:
                        phase = None
                    elif phase == last_phase:  # one text where the calls' lines repeat it
                        phase = last_phase
                    else:
                        last_phase = phase
                    # Its fields set here, not by `Call`'s __init__: a call to it (a frame,
                    # 18 arguments) was a sixth of the call's making, and of 100,000 calls.
                    made = calls[key] = make(Call)
                    made.key, made.order, made.first_line = key, len(calls) - 1, line
                    made.label, made.phase, made.agent_ids = label, phase, (agent_id,)
                    made.attempt_lines, made.returned_agent_ids = (line,), ()
                    made.started_after_result = made.has_result = made.failed = False
                    made.demoted = made.replaced = made.keyless = False
                    made.state, made.packed_result, made.result_agent_id = in_flight, None, None
                    made.last_line, made.results_seen, made.failures_seen = line, 0, 0
                    open_keys[key] = None
                    started += 1
                    last_agent = agent_id
                    continue
            else:
                call = calls.get(key)
                if call is not None and not call.results_seen and not call.failed:
                    agents = call.agent_ids
                    if len(agents) == 1 and agents[0] == agent_id and agent_id:
                        # its one attempt returns: no result held, not demoted, never failed
                        call.has_result = True
                        call.packed_result = pack(get("result")) if packs else get("result")
                        call.returned_agent_ids = agents
                        call.result_agent_id = last_agent = agents[0]
                        call.results_seen = 1
                        call.state = done
                        call.last_line = line
                        open_keys.pop(key, None)
                        results += 1
                        continue
        pending.append(numbered)
    if pending:
        folded = fold_records(pending, *into, packs)
        last_agent = _added(total, folded, last_agent)
    started_lines, result_lines, failures, keyless = total.counts
    total.counts = (started_lines + started, result_lines + results, failures, keyless)
    total.last_agent_id = last_agent
    return total


def _added(total: Folded, folded: Folded, last_agent: str | None) -> str | None:
    """``folded`` (of lines `fold_whole` handed on) added to ``total``; the last agent a
    line named, its or ``last_agent`` before them."""
    total.counts = cast(tuple[int, int, int, int], tuple(map(add, total.counts, folded.counts)))
    total.others += folded.others
    if folded.restore_state is not None:
        total.restore_state = folded.restore_state
    return last_agent if folded.last_agent_id is None else folded.last_agent_id


@dataclass(slots=True)
class Folded:
    """What `fold_records` adds to a fold besides its calls and key dicts."""

    counts: tuple[int, int, int, int] = (0, 0, 0, 0)
    """``started``, ``result`` and ``failed`` lines, and lines naming no key."""
    others: int = 0
    """Lines of the other types the CLI writes (``launched``, ``resumed``, ``restoring``,
    ``restored``)."""
    last_agent_id: str | None = None
    """The last agent id a line named (None: no line named one)."""
    restore_state: str | None = None
    """The last ``restoring`` (``"partial"``) or ``restored`` line's (None: neither)."""
