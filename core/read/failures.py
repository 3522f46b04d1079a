"""Which calls of a run failed, and why: read from wherever the CLI wrote it.

The CLI writes a call's failure in several places, and in none of them every time:

* the journal's ``failed`` line (not for an API error that ended the run's last call, nor
  before 2.1.246, nor for a usage limit until a later call returned);
* the agent's own transcript, whose last reply is the ``isApiErrorMessage`` record the CLI
  writes when a request failed for good (the status, the error code, a usage limit's reset);
* the end-of-run snapshot: the agent's row (``state: "error"``, its ``error``, ``skipped``)
  and the run's log lines ``[<label>] failed: …`` (``parallel[<i>] failed: …`` when the
  script caught no label), and ``error`` when the script threw;
* the ``<failures>`` block of the Workflow's completion notice in the session transcript
  (the same lines as the snapshot's log).

`find_failures` joins them into one `Failure` per failed call, with the most precise evidence
first (the transcript's record, then the snapshot, then the notice, then the journal line), so
every surface that asks gets the same kind for the same call.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

import orjson

from wftop.core.read.agent_transcript import transcript_path
from wftop.core.read.errors import (
    EVIDENCE_CHARS,
    Cause,
    ErrorEvent,
    api_error_event,
    classify_event,
    classify_text,
    cut,
    message_text,
)
from wftop.core.read.journal import JournalFold
from wftop.core.read.jsonl import read_all
from wftop.core.read.memo import FileMemo
from wftop.core.read.snapshot import SKIPPED, Snapshot, parse_iso_time

TAIL_BYTES: Final = 256 * 1024
"""How much of the end of an agent transcript is searched for its last reply."""

SOURCES: Final = ("transcript", "snapshot", "session", "journal", "remote")
"""Where a failure's evidence was read, most precise first (``remote``: a row another host
sent, which holds no evidence)."""

FAILED_LINE: Final = re.compile(r"^(?:\[(?P<label>[^\]\n]*)\]|(?P<slot>\w+\[\d+\])) failed: (.*)$")
"""A failure line of a snapshot's log or a notice's ``<failures>`` block."""

_FAILURES: Final = re.compile(r"<failures>(.*?)</failures>", re.S)
_NOTICE: Final = re.compile(r"<task-notification>(.*?)</task-notification>", re.S)


@dataclass(frozen=True, slots=True)
class Failure:
    """Why one call failed."""

    key: str
    """The call's journal key."""
    label: str
    kind: str
    """A `Cause` value: the causes of ``docs/forensics.md``, ``schema`` or ``script_error``."""
    evidence: str | None
    """``<file>:<line>: <text>`` that says so (None when nothing does)."""
    source: str
    """One of `SOURCES`."""
    resets_at: float | None = None
    """When a usage limit lifts (epoch seconds), if the CLI recorded it."""
    at: float | None = None
    """When the evidence was written (epoch seconds), if it says."""


class Candidate(NamedTuple):
    """A call that may have failed: its latest attempt failed, or never returned."""

    key: str
    label: str
    agent_id: str
    """The agent of its latest attempt (``""`` when the journal named none)."""
    line: int
    """The journal line of its latest record."""
    failed_line: bool
    """Its latest attempt ended with a ``failed`` line."""


@dataclass(frozen=True)
class RunEnd:
    """What decides which open calls failed: how the run stands."""

    snapshot: Snapshot | None
    """The run's snapshot, when it is current (describes the journal's latest run)."""
    over: bool
    """Nothing will continue the run (no live owner, or it ended): an open call whose agent
    got an error it could not retry failed, although no ``failed`` line says so."""


class LastReplies:
    """The last reply of agent transcripts, read once per file version (size, time, inode),
    and not looked at again until said to have changed (`changed`): a run of thousands of
    open calls whose owner is gone stat'ed each of their transcripts at every line it got."""

    def __init__(self) -> None:
        self._memo: FileMemo[ErrorEvent | None] = FileMemo(last_api_error)
        self._told: dict[str, ErrorEvent | None] = {}
        """What each transcript looked at ended on, while no change of it was said."""

    def tell(self, path: str, data: bytes) -> None:
        """What transcript ``path`` ends on, from ``data``, its bytes as just read whole
        (`last_api_error_of`): not read again when `error` is next asked, until said to have
        changed (a first listing read the transcripts of a run's failed calls for what they
        spent, then opened each again for its last reply)."""
        self._told[path] = last_api_error_of(path, data)

    def error(self, path: str | None) -> ErrorEvent | None:
        """The API error an agent's transcript ends on; None when it ends otherwise."""
        if path is None:
            return None
        told = self._told
        if path in told:
            return told[path]
        found = told[path] = self._memo.get(path)
        return found

    def changed(self, paths: Iterable[str] | None) -> bool:
        """These transcripts may have changed (None: any may have): looked at again when
        next asked. True when one of them was looked at (what it said may be stale)."""
        told = self._told
        if paths is None:
            stale = bool(told)
            told.clear()
            return stale
        gone = [told.pop(path, told) for path in paths]
        return any(was is not told for was in gone)


def last_api_error(path: str) -> ErrorEvent | None:
    """The ``isApiErrorMessage`` record an agent's transcript ends its replies on, if it does.

    Only the last `TAIL_BYTES` are parsed; the lines before them are counted, so the
    evidence names the record's line.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError):
        return None
    try:
        size = os.fstat(fd).st_size
        start = max(0, size - TAIL_BYTES)
        before = 0
        offset = 0
        while offset < start:
            block = os.pread(fd, min(1 << 20, start - offset), offset)
            if not block:
                break
            before += block.count(b"\n")
            offset += len(block)
        tail = os.pread(fd, size - start, start)
    except OSError:
        return None
    finally:
        os.close(fd)
    return _ends_on(path, tail, start, before)


def last_api_error_of(path: str, data: bytes) -> ErrorEvent | None:
    """`last_api_error` of transcript ``path`` whose bytes were read whole (``data``)."""
    start = max(0, len(data) - TAIL_BYTES)
    return _ends_on(path, data[start:], start, data.count(b"\n", 0, start))


def _ends_on(path: str, tail: bytes, start: int, before: int) -> ErrorEvent | None:
    """The API error record a transcript's replies end on, in its ``tail`` from byte
    ``start`` on (the lines before: ``before``)."""
    lines = tail.split(b"\n")
    first = 1 if start else 0  # a tail's first piece ends a line that began before it
    for index in range(len(lines) - 1, first - 1, -1):
        raw = lines[index]
        if b'"assistant"' not in raw:
            continue
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if type(record) is not dict or record.get("type") != "assistant":
            continue
        line = before + index + 1
        return api_error_event(path, line, record)
    return None


def notice_failures(transcript: str, run_id: str) -> list[tuple[str, str]]:
    """The ``<failures>`` lines of the newest completion notice of ``run_id`` in a session
    transcript, as (``<file>:<line>``, failure line); none when no notice names the run."""
    found: list[tuple[str, str]] = []
    for line, record in read_all(transcript).records:
        for text in notice_texts(record):
            for block in _NOTICE.findall(text):
                if run_id not in block:
                    continue
                listed = _FAILURES.search(block)
                items = listed.group(1).split("\n") if listed else []
                found = [(f"{transcript}:{line}", item.strip()) for item in items if item.strip()]
    return found


def notice_texts(record: dict[str, Any]) -> list[str]:
    """The texts of a session record that may hold ``<task-notification>`` blocks, in the three
    shapes the CLI writes them (``docs/forensics.md``, *Workers*)."""
    kind = record.get("type")
    if kind == "queue-operation":
        content = record.get("content")
        return [content] if isinstance(content, str) else []
    if kind == "attachment":
        attachment = record.get("attachment")
        prompt = attachment.get("prompt") if isinstance(attachment, dict) else None
        return [prompt] if isinstance(prompt, str) else []
    if kind == "user":
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        return [message_text(content)] if content else []
    return []


def fold_candidates(fold: JournalFold) -> list[Candidate]:
    """Every call of a fold whose latest attempt failed or never returned, in call order."""
    keys = sorted([*fold.failed_keys, *fold.open_keys], key=lambda key: fold.calls[key].order)
    found = []
    for key in keys:
        call = fold.calls[key]
        agent = call.agent_ids[-1] if call.agent_ids else ""
        found.append(Candidate(key, call.label, agent, call.last_line, key in fold.failed_keys))
    return found


def find_failures(
    maybe: Iterable[Candidate],
    *,
    folder: str,
    journal: str,
    end: RunEnd,
    replies: LastReplies,
    notice: Callable[[], list[tuple[str, str]]] | None = None,
) -> tuple[Failure, ...]:
    """The calls among ``maybe`` that failed, each with its kind and evidence.

    A call failed when its latest attempt has a ``failed`` line; when the current snapshot
    says the script returned or threw while the call was open, or marks its agent's row as an
    error; or, once nothing will continue the run, when its agent's transcript ends on an
    error the CLI did not retry. ``notice`` reads the session's ``<failures>`` lines, asked
    only when a failed call has no other evidence and there is no current snapshot (whose log
    holds the same lines).
    """
    snapshot = end.snapshot
    status = (snapshot.status or "completed") if snapshot is not None else None
    ended_normally = status in ("completed", "failed")
    errors: Mapping[str, str] = snapshot.row_errors if snapshot is not None else {}
    failed: list[tuple[Candidate, ErrorEvent | None]] = []
    for call in maybe:
        event = None
        if call.failed_line or end.over or call.agent_id in errors:
            event = replies.error(transcript_path(folder, call.agent_id))
        if call.failed_line or ended_normally or call.agent_id in errors or event is not None:
            failed.append((call, event))
    if not failed:
        return ()
    logs: list[tuple[str, str | None, str]] | None = None  # parsed when first needed
    found: dict[str, Failure] = {}
    unexplained: list[Candidate] = []
    for call, event in failed:
        made = _from_event(call, event) or _from_row(call, snapshot, errors)
        if made is None and snapshot is not None:
            logs = _log_lines(snapshot) if logs is None else logs
            made = _from_log(call, logs, "snapshot", snapshot.timestamp)
        if made is None:
            unexplained.append(call)
        else:
            found[call.key] = made
    if unexplained and snapshot is not None:
        logs = _log_lines(snapshot) if logs is None else logs
        unexplained = _give_slot_lines(unexplained, logs, "snapshot", found)
    if unexplained and notice is not None and snapshot is None:
        listed = _parse(notice())
        still = []
        for call in unexplained:
            made = _from_log(call, listed, "session")
            if made is None:
                still.append(call)
            else:
                found[call.key] = made
        unexplained = _give_slot_lines(still, listed, "session", found)
    for call in unexplained:
        found[call.key] = _unexplained(call, snapshot, status, journal)
    return tuple(found[call.key] for call, _ in failed)


def _log_lines(snapshot: Snapshot) -> list[tuple[str, str | None, str]]:
    """(where, label or None, text) of every failure line of a snapshot's log (its object
    parsed, for a snapshot read for a list: asked only where a row does not explain a call)."""
    return _parse([(f"{snapshot.path}:1", line) for line in snapshot.logs])


def _parse(lines: Iterable[tuple[str, str]]) -> list[tuple[str, str | None, str]]:
    parsed = []
    for where, line in lines:
        match = FAILED_LINE.match(line.strip())
        if match is not None:
            parsed.append((where, match.group("label"), match.group(3)))
    return parsed


def _from_event(call: Candidate, event: ErrorEvent | None) -> Failure | None:
    if event is None:
        return None
    kind, _signature = classify_event(event)
    at = parse_iso_time(event.timestamp)
    return Failure(
        call.key, call.label, kind.value, event.evidence, "transcript", event.resets_at, at
    )


def _from_text(
    call: Candidate, text: str, where: str, source: str, at: float | None = None
) -> Failure:
    evidence = f"{where}: {cut(text, EVIDENCE_CHARS)}"
    kind = classify_text(text).value
    return Failure(call.key, call.label, kind, evidence, source, at=at)


def _from_row(
    call: Candidate, snapshot: Snapshot | None, errors: Mapping[str, str]
) -> Failure | None:
    if snapshot is None or call.agent_id not in errors:
        return None
    text = errors[call.agent_id]
    where = f"{snapshot.path}:1"
    if text == SKIPPED:
        evidence = f"{where}: the agent's row says it was skipped"
        return Failure(call.key, call.label, Cause.USER_INTERRUPT.value, evidence, "snapshot")
    if not text:
        return None
    return _from_text(call, text, where, "snapshot", snapshot.timestamp)


def _from_log(
    call: Candidate, logs: list[tuple[str, str | None, str]], source: str, at: float | None = None
) -> Failure | None:
    """The last failure line that names the call's label."""
    for where, label, text in reversed(logs):
        if label == call.label:
            return _from_text(call, text, where, source, at)
    return None


def _give_slot_lines(
    calls: list[Candidate],
    lines: list[tuple[str, str | None, str]],
    source: str,
    found: dict[str, Failure],
) -> list[Candidate]:
    """Failure lines that name no label (``parallel[1] failed: …``) given, in order, to the
    calls no other evidence explains; the calls left without one."""
    slots = [(where, text) for where, label, text in lines if label is None]
    left = []
    for call in calls:
        if slots:
            where, text = slots.pop(0)
            found[call.key] = _from_text(call, text, where, source)
        else:
            left.append(call)
    return left


def _unexplained(
    call: Candidate, snapshot: Snapshot | None, status: str | None, journal: str
) -> Failure:
    """A failed call nothing explains: the script threw, or the failure is all there is."""
    if snapshot is not None and status == "failed" and not call.failed_line:
        thrown = (snapshot.error or "the script threw").strip().split("\n", 1)[0]
        evidence = f"{snapshot.path}:1: {cut(thrown, EVIDENCE_CHARS)}"
        return Failure(call.key, call.label, Cause.SCRIPT_ERROR.value, evidence, "snapshot")
    if call.failed_line:
        evidence = f"{journal}:{call.line}: a failed line; nothing recorded why"
        return Failure(call.key, call.label, Cause.CLEAN_OR_UNKNOWN.value, evidence, "journal")
    where = snapshot.path if snapshot is not None else journal
    evidence = f"{where}:1: the run ended and the call never returned; nothing recorded why"
    return Failure(call.key, call.label, Cause.CLEAN_OR_UNKNOWN.value, evidence, "snapshot")
