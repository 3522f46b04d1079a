"""The one fold of a workflow ``journal.jsonl``, with the CLI's own reader semantics.

Records come from `wftop.core.read.jsonl` (the one reader); every view of a journal folds them
here. Per call key the fold keeps what Claude Code's journal reader keeps (results,
started attempts, failed, demoted, replaced), so a forecast can predict what the CLI will
serve from cache, plus what a person wants to see: label, phase, attempts, agent ids and
the state of the latest attempt. Old lines without a ``key`` are folded per agent id
(``agent:<agentId>``); no computed key ever matches them. A line repeated folds as the
CLI folds it: a second ``result`` replaces the first (``replaced``), a second
``started`` is another attempt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, cast

from wftop.core.read.foldcall import Call as Call
from wftop.core.read.foldcall import CallState as CallState
from wftop.core.read.foldcall import fold_whole
from wftop.core.read.jsonl import Sink
from wftop.core.read.problem import Problem
from wftop.core.read.shared import Chunks, FrozenTable, Prefix

LINE_TYPES: Final = frozenset(
    {"launched", "started", "result", "failed", "resumed", "restoring", "restored"}
)
"""Every ``type`` of line the CLI writes in a journal (2.1.332). Any other is skipped by the
CLI's reader and the fold alike; the readers say so (a format change must not go unnoticed)."""


def call_key(record: dict[str, Any]) -> str:
    """The key of the call a journal line is filed under: its ``key``, or for a line naming
    none a call of its agent's own (``agent:<agentId>``), as `JournalFold` files it."""
    key = record.get("key")
    return key if type(key) is str and key else f"agent:{record.get('agentId')}"


def unknown_type(record: dict[str, Any]) -> str | None:
    """Why a journal record is of no type the CLI writes; None when it is one."""
    kind = record.get("type")
    if type(kind) is str and kind in LINE_TYPES:
        return None
    shown = repr(kind) if type(kind) is str else "none"
    return f"a line of type {shown}, which wftop does not know (the CLI skips it too)"


def unknown_lines(path: str, records: list[tuple[int, dict[str, Any]]]) -> list[Problem]:
    """A problem for each record of no type the CLI writes (`unknown_type`), by line."""
    found = []
    for line, record in records:
        why = unknown_type(record)
        if why is not None:
            found.append(Problem(path, line, why))
    return found


def folding(fold: JournalFold, path: str) -> Sink:
    """A `JsonlTail.sink` that folds the records of ``path`` into ``fold`` as they are read,
    and finds those of no type the CLI writes as a reader's read does (`unknown_lines`)."""

    def take(records: list[tuple[int, dict[str, Any]]]) -> list[Problem]:
        known = fold.known_lines
        fold.feed_all(records)
        return unknown_lines(path, records) if fold.known_lines - known != len(records) else []

    return take


@dataclass
class JournalFold:
    """Accumulates journal records in order; feed it records from `wftop.core.read.jsonl`."""

    calls: Mapping[str, Call] = field(default_factory=dict)
    """Every call by key, in the order of their first lines (a dict, in a fold fed lines; a
    `wftop.core.read.shared.FrozenTable` in a `snapshot`)."""
    started_lines: int = 0
    result_lines: int = 0
    failed_lines: int = 0
    other_lines: int = 0
    """Lines of the other types the CLI writes (`LINE_TYPES`: ``launched``, ``resumed``,
    ``restoring``, ``restored``)."""
    restore_state: str | None = None
    """``None``, ``"partial"`` (``restoring`` without ``restored``) or ``"restored"``."""
    keyless_lines: int = 0
    last_agent_id: str | None = None
    open_keys: dict[str, None] = field(default_factory=dict)
    """Keys of the calls whose latest attempt is in flight (kept as lines come, so a live
    run's view costs what is open, not every call it ever made)."""
    failed_keys: dict[str, None] = field(default_factory=dict)
    """Keys of the calls whose latest attempt failed."""
    unlabelled: dict[str, None] = field(default_factory=dict)
    """Keys of the calls no line labelled (journals before 2.1.265): their label is their
    agent id (`name` gives them one read elsewhere)."""
    rerun_agent_ids: Sequence[str] = field(default_factory=list)
    """Agent id of every attempt started after its call had returned (a resume re-ran a
    call whose result it held), in journal order; empty ids are kept as ``""``."""
    packs: bool = field(default=True, compare=False)
    """Results are packed as they are folded (`wftop.core.read.foldcall.pack`: what a list
    or a view holds); False: kept as parsed, by a process that reads one run and ends (a
    plan: memory it holds anyway as its lines are read, and a fifth of its fold's time)."""
    _shared: bool = field(default=False, repr=False, compare=False)
    """A `snapshot` holds these `Call` objects: copy one before changing it."""
    _own: set[str] = field(default_factory=set, repr=False, compare=False)
    """Keys of the calls copied (or made) since the last snapshot."""
    _own_dicts: bool = field(default=True, repr=False, compare=False)
    """The key dicts are this fold's alone (False after a snapshot, until a line comes)."""
    _chunks: Chunks[Call] | None = field(default=None, repr=False, compare=False)
    """The calls in order, chunk by chunk, once a snapshot has been taken (`FrozenTable`)."""

    def snapshot(self) -> JournalFold:
        """The fold as it is now, left as it is by later feeds (another thread may read it
        while this one folds on). Costs a pointer per chunk of 256 calls
        (`wftop.core.read.shared`): the calls are shared, and a later line copies the chunk of
        the call it changes and that call; the in-flight and failed keys are copied when the
        next line comes."""
        if type(self.calls) is not dict:
            self._take_dicts()
        live = cast(dict[str, Call], self.calls)
        if self._chunks is None:
            self._chunks = Chunks(live.values())
        reruns = cast(list[str], self.rerun_agent_ids)
        self._shared, self._own, self._own_dicts = True, set(), False
        copy = JournalFold(
            calls=FrozenTable(live, self._chunks.freeze(), len(live)),
            started_lines=self.started_lines,
            result_lines=self.result_lines,
            failed_lines=self.failed_lines,
            other_lines=self.other_lines,
            restore_state=self.restore_state,
            keyless_lines=self.keyless_lines,
            last_agent_id=self.last_agent_id,
            open_keys=self.open_keys,
            failed_keys=self.failed_keys,
            unlabelled=self.unlabelled,
            rerun_agent_ids=Prefix(reruns, len(reruns)),
            packs=self.packs,
        )
        copy._shared, copy._own_dicts = True, False
        return copy

    def _take_dicts(self) -> None:
        """Before the first line after a snapshot: key dicts of this fold's own (the calls
        stay shared, `_unshared` copies one as a line changes it)."""
        if type(self.calls) is not dict:  # a snapshot fed lines: a table of its own
            self.calls = dict(self.calls.items())
            self._chunks = None
        if type(self.rerun_agent_ids) is not list:
            self.rerun_agent_ids = list(self.rerun_agent_ids)
        self.open_keys = dict(self.open_keys)
        self.failed_keys = dict(self.failed_keys)
        self.unlabelled = dict(self.unlabelled)
        self._own_dicts = True

    def _unshared(self, call: Call) -> Call:
        if call.key in self._own:
            return call
        mine = replace(call)
        cast(dict[str, Call], self.calls)[call.key] = mine
        if self._chunks is not None:
            self._chunks.put(mine)
        self._own.add(call.key)
        return mine

    def feed(self, line: int, record: dict[str, Any]) -> None:
        """Fold one record; kinds a fold has no use for (``launched``, ``resumed``, any
        other) pass by."""
        self.feed_all([(line, record)])

    def feed_all(self, records: list[tuple[int, dict[str, Any]]]) -> JournalFold:
        if records and not self._own_dicts:
            self._take_dicts()
        if not self._shared and self._chunks is None:
            self._fold(records)  # a run read whole: one loop over its lines
            return self
        calls = cast(dict[str, Call], self.calls)
        for numbered in records:
            key = call_key(numbered[1])
            call = calls.get(key)
            if call is not None and self._shared:
                self._unshared(call)  # a snapshot holds it: this fold's own copy changes
            count = len(calls)
            self._fold([numbered])
            if len(calls) > count:  # a call of its own
                if self._chunks is not None:
                    self._chunks.put(calls[key])
                if self._shared:
                    self._own.add(key)
        return self

    def _fold(self, records: list[tuple[int, dict[str, Any]]]) -> None:
        """`fold_whole` into this fold's own calls and key dicts, its counts added up."""
        calls = cast(dict[str, Call], self.calls)
        reruns = cast(list[str], self.rerun_agent_ids)
        into = (calls, self.open_keys, self.failed_keys, self.unlabelled, reruns)
        folded = fold_whole(records, into, self.packs)
        started, results, failures, keyless = folded.counts
        self.started_lines += started
        self.result_lines += results
        self.failed_lines += failures
        self.keyless_lines += keyless
        self.other_lines += folded.others
        if folded.last_agent_id is not None:
            self.last_agent_id = folded.last_agent_id
        if folded.restore_state is not None:
            self.restore_state = folded.restore_state

    def name(self, names: Mapping[str, tuple[str, str | None]]) -> bool:
        """Give the calls no line labelled the (label, phase) ``names`` holds for their latest
        agent (a snapshot's rows); True when one was named."""
        if not self.unlabelled:
            return False
        named = False
        for key in list(self.unlabelled):
            call = self.calls[key]
            found = names.get(call.agent_ids[-1] if call.agent_ids else "")
            if found is None:
                continue
            if not self._own_dicts:
                self._take_dicts()
            if self._shared:
                call = self._unshared(call)
            call.label, phase = found
            call.phase = call.phase or phase
            del self.unlabelled[key]
            named = True
        return named

    @property
    def known_lines(self) -> int:
        """Lines folded of a type the CLI writes (`LINE_TYPES`): all of them, when a batch
        adds as many as it held (its lines' types need no other look)."""
        return self.started_lines + self.result_lines + self.failed_lines + self.other_lines

    # -- views -----------------------------------------------------------------------------

    def ordered_calls(self) -> list[Call]:
        # Calls are only ever added, numbered in insertion order: the dict is in order.
        return list(self.calls.values())

    def calls_in(self, state: CallState) -> list[Call]:
        if state is CallState.DONE:
            return [call for call in self.calls.values() if call.state is state]
        keys = self.open_keys if state is CallState.IN_FLIGHT else self.failed_keys
        return sorted((self.calls[key] for key in keys), key=lambda call: call.order)

    def agent_ids(self) -> set[str]:
        return {agent_id for call in self.calls.values() for agent_id in call.agent_ids if agent_id}
