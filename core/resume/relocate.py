"""Copy-only relocation of a run's journal into another session, optionally healed.

The target is ``<target_session_dir>/subagents/workflows/<runId>/journal.jsonl``, the
only file the CLI needs to resume a run from another session. The source is opened
read-only, snapshotted into a private temp file next to the target, and the copy is
written to a second temp file, fsynced and renamed into place: no half-written
journal is ever visible under the target name. Directories are created 0700 and the
journal 0600. An identical existing target is a no-op; a different one is refused.

Theory of the heal (``heal=True``, the surgical strategy). The CLI's reader keeps per
key ``results``, ``started``, ``failed``, ``demoted``; on resume a key with ``started``
lines that is neither failed nor demoted was "in flight" and re-runs *without*
ending cache reuse, while a failed key ends reuse for every later call (spec B.2,
C.5). Dropping the ``failed`` lines of a call turns it into an in-flight call. A
call's failed lines are dropped only when the reader holds it as failed and that is
all that changes (`heal_plan`):

* it has no result now and never had one: dropping cannot bring back a result, and the
  call re-runs, then chains from its key exactly as after its failure (C.3 applies
  only to calls that had a result, failure or demotion record);
* it has at least one ``started`` line (otherwise it reads as never started, which
  ends reuse anyway);
* it is not demoted (a demoted key ends reuse whether or not it also failed);
* it has a ``key`` (keyless old lines never match a computed key; left as they are).

A call that failed and later returned a result keeps its failed line: the line is what
makes the CLI chain past that call with the ``replaced`` rule, so removing it would
change the keys of every later call. Every other line is copied byte for byte,
unparseable lines included. ``agentId`` plays no part (it may be ``""``).

One reader. The heal decides from the records of `wftop.core.read.jsonl.read_all` (the reader
every view uses), and `healed_fold` predicts the fold of the copy from the same records,
numbered as the copy numbers them: the fold of the copy, read back, equals it.

Torn last line (no newline). The CLI splits the file on newlines and parses every piece,
so a tail that is complete JSON is a record (the reader reads it too): it is copied with
its newline added. A tail that does not parse is skipped by the CLI and is dropped from
the copy: left as is, the CLI's next append would add a ``resumed`` marker, and completed
with a newline it would become an unreadable line in mid-file, which makes the CLI refuse
the next resume. A tail that may be a ``launched`` record is refused, as the CLI refuses
to resume such a journal.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from wftop.core.compared import compared
from wftop.core.read.journal import Call, JournalFold, call_key
from wftop.core.read.jsonl import read_all
from wftop.core.read.jsonline import UnreadableLine, parse_line
from wftop.core.resume.errors import RelocationError
from wftop.core.resume.ids import validate_run_id, validate_session_id
from wftop.core.resume.runfolderwrite import install, make_run_dir, temp_path

LAUNCHED_PREFIX: Final = b'{"type":"launched"'
"""How a ``launched`` record starts; the CLI refuses a torn tail that may be one."""


@compared
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class DroppedLine:
    """A ``failed`` line the heal left out of the copy."""

    line: int
    """1-based line number in the source journal."""
    key: str
    label: str
    agent_id: str


@compared
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class KeptFailure:
    """A call with ``failed`` lines that the heal kept, and why."""

    key: str
    label: str
    reason: str


@compared
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class HealPlan:
    """Which calls' ``failed`` lines a heal drops (see the module docstring)."""

    drop_keys: frozenset[str]
    kept: tuple[KeptFailure, ...]


@compared
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class RelocationResult:
    """What `relocate_journal` did."""

    source: Path
    target: Path
    run_id: str
    healed: bool
    dropped: tuple[DroppedLine, ...]
    kept: tuple[KeptFailure, ...]
    """Calls whose failed lines were kept by the heal (empty without heal)."""
    torn_tail: Literal["none", "completed", "dropped"]
    torn_tail_bytes: int
    already_present: bool
    """An identical target existed: nothing was written."""
    sha256: str
    """Digest of the target journal's content."""
    source_sha256: str


def heal_plan(fold: JournalFold) -> HealPlan:
    """Decide, from a journal fold, which calls' ``failed`` lines a heal drops (a fold of no
    ``failed`` line: none, and no call looked at)."""
    if not fold.failed_lines:
        return HealPlan(frozenset(), ())
    drop: set[str] = set()
    kept: list[KeptFailure] = []
    for call in fold.ordered_calls():
        if call.failures_seen == 0:
            continue
        reason = _keep_reason(call)
        if reason is None:
            drop.add(call.key)
        else:
            kept.append(KeptFailure(call.key, call.label, reason))
    return HealPlan(frozenset(drop), tuple(kept))


def _dropped_by(record: dict[str, Any], plan: HealPlan) -> bool:
    key = record.get("key")
    return record.get("type") == "failed" and isinstance(key, str) and key in plan.drop_keys


def healed_fold(
    records: list[tuple[int, dict[str, Any]]], packs: bool = True, plan: HealPlan | None = None
) -> tuple[JournalFold, set[int]]:
    """The fold of the healed copy (its results packed or not: ``packs``), and the source
    line numbers the heal drops. ``records`` are the source journal's records as
    `wftop.core.read.jsonl.read_all` gives them; the rules are `relocate_journal`'s, decided
    from the lines of the calls that failed (a call folds from its own lines alone) unless
    ``plan`` is the heal decided already (from the fold of the same records), and the kept
    records are numbered as in the copy (a dropped line moves those after it up one)."""
    if plan is None:
        failed = {call_key(record) for _number, record in records if record.get("type") == "failed"}
        plan = heal_plan(
            JournalFold().feed_all([line for line in records if call_key(line[1]) in failed])
        )
    drop = {number for number, record in records if _dropped_by(record, plan)}
    return JournalFold(packs=packs).feed_all(renumbered(records, drop)), drop


def renumbered(
    records: list[tuple[int, dict[str, Any]]], drop: set[int]
) -> list[tuple[int, dict[str, Any]]]:
    """The records not dropped, numbered as in a copy without the dropped lines."""
    kept: list[tuple[int, dict[str, Any]]] = []
    gone = 0
    for number, record in records:
        if number in drop:
            gone += 1
        else:
            kept.append((number - gone, record))
    return kept


def _keep_reason(call: Call) -> str | None:
    if call.keyless:
        return "keyless old line: no computed key can match it"
    if call.has_result:
        return "failed, then returned a result: its failed line drives the replaced-key chain"
    if call.demoted:
        return "a newer attempt demoted its result: it ends cache reuse either way"
    if call.results_seen:
        return "an earlier result of this call would be served again"
    if not call.agent_ids:
        return "never started: it ends cache reuse either way"
    return None


def may_be_launched(fragment: bytes) -> bool:
    """The CLI's test for a torn tail that may hold (the start of) a ``launched`` record."""
    start = fragment.find(b"{")
    while start != -1:
        rest = fragment[start:]
        if rest.startswith(LAUNCHED_PREFIX) or LAUNCHED_PREFIX.startswith(rest):
            return True
        start = fragment.find(b"{", start + 1)
    return False


def fold_lines(path: Path) -> tuple[JournalFold, dict[int, dict[str, Any]]]:
    """Fold a journal as the CLI reads it; also return the record of each line.

    The records are `wftop.core.read.jsonl.read_all`'s: the reader every view uses.
    """
    records = read_all(path).records
    return JournalFold().feed_all(records), dict(records)


def relocate_journal(
    source_journal: Path, target_session_dir: Path, run_id: str, *, heal: bool
) -> RelocationResult:
    """Copy a run's journal into another session's run folder, atomically.

    Args:
        source_journal: The run's ``journal.jsonl`` (only ever read).
        target_session_dir: ``<projects>/<slug>/<sessionId>`` of the target session.
        run_id: The run (validated; names the target folder).
        heal: Drop the ``failed`` lines of the failed calls (see `heal_plan`).

    Returns:
        What was written, dropped and kept.

    Raises:
        InvalidIdentifier: Bad run id, or the target folder is not named by a session id.
        RelocationConflict: The target exists with different content.
        RelocationError: The source cannot be read, the target folder is a link, or a
            torn last line may be a ``launched`` record.
    """
    run_id = validate_run_id(run_id)
    validate_session_id(target_session_dir.name)
    run_dir = target_session_dir / "subagents" / "workflows" / run_id
    target = run_dir / "journal.jsonl"
    make_run_dir(run_dir)
    snapshot = temp_path(run_dir)
    output = temp_path(run_dir)
    try:
        source_sha = _snapshot(source_journal, snapshot)
        fold, records = fold_lines(snapshot)
        plan = heal_plan(fold) if heal else HealPlan(frozenset(), ())
        dropped, torn, torn_bytes, digest = _write_copy(snapshot, output, fold, records, plan)
        present = install(output, target)
    except RelocationError:
        raise
    except OSError as error:  # a full disk, a read error: the target name is never touched
        msg = f"could not copy the journal to {str(target)!r}: {error.strerror or error}"
        raise RelocationError(msg) from error
    finally:
        for leftover in (snapshot, output):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(leftover)
    return RelocationResult(
        source=source_journal,
        target=target,
        run_id=run_id,
        healed=heal,
        dropped=dropped,
        kept=plan.kept,
        torn_tail=torn,
        torn_tail_bytes=torn_bytes,
        already_present=present,
        sha256=digest,
        source_sha256=source_sha,
    )


def _write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is written (a write may take fewer than asked)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _create_private(path: Path) -> int:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW
    return os.open(path, flags, 0o600)


def _snapshot(source: Path, snapshot: Path) -> str:
    digest = hashlib.sha256()
    try:
        source_fd = os.open(source, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as error:
        msg = f"cannot read the source journal {str(source)!r}: {error.strerror}"
        raise RelocationError(msg) from error
    try:
        snapshot_fd = _create_private(snapshot)
        try:
            while chunk := os.read(source_fd, 1 << 20):
                digest.update(chunk)
                _write_all(snapshot_fd, chunk)
        finally:
            os.close(snapshot_fd)
    finally:
        os.close(source_fd)
    return digest.hexdigest()


def _write_copy(
    snapshot: Path,
    output: Path,
    fold: JournalFold,
    records: dict[int, dict[str, Any]],
    plan: HealPlan,
) -> tuple[tuple[DroppedLine, ...], Literal["none", "completed", "dropped"], int, str]:
    dropped: list[DroppedLine] = []
    digest = hashlib.sha256()
    torn: Literal["none", "completed", "dropped"] = "none"
    tail = b""
    fd = _create_private(output)
    try:
        with open(snapshot, "rb") as handle:
            number = 0
            while raw := handle.readline():
                number += 1
                if not raw.endswith(b"\n"):
                    tail = raw
                    if not _parses(tail):
                        if may_be_launched(tail):
                            msg = (
                                "the journal's torn last line may be a 'launched' record; "
                                "the CLI refuses to resume such a journal"
                            )
                            raise RelocationError(msg)
                        torn = "dropped"
                        break
                    torn = "completed"
                    raw = tail + b"\n"
                record = records.get(number)
                if record is not None and _dropped_by(record, plan):
                    call = fold.calls[str(record["key"])]
                    agent = record.get("agentId")
                    agent_id = agent if isinstance(agent, str) else ""
                    dropped.append(DroppedLine(number, call.key, call.label, agent_id))
                    continue
                digest.update(raw)
                _write_all(fd, raw)
        os.fsync(fd)
    finally:
        os.close(fd)
    return tuple(dropped), torn, len(tail), digest.hexdigest()


def _parses(line: bytes) -> bool:
    """The CLI parses this line
    (any JSON value, as `wftop.core.read.jsonline.parse_line` reads it)."""
    try:
        parse_line(line)
    except UnreadableLine:
        return False
    return True
