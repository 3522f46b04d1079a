"""One host's change-set stream as the change sets the local index hands out.

The remote ``wftop ls --watch --json`` prints the cold index first (every run ``added``),
then one line per change set. `HostFeed` reads each line's rows (`RunRow.from_json`, the
host in their identity) into a `wftop.core.engine.feed.RowFeed`, the same one a view keeps of
this machine's engine, and hands out what changed both as rows (`HostFeed.delta`) and as a
`ChangeSet` of `Run`s. A connection that drops is `lost`: the host's runs stay with their last
known state, marked stale (never ``dead``: a link going down says nothing of a run). The
first line after a reconnect is a fresh snapshot, diffed against what was known, so the
runs that changed, appeared or went while the link was down arrive as one change set: none
lost, none twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wftop.core.engine.feed import Delta, RowFeed
from wftop.core.index.changeset import ChangeSet
from wftop.core.model import Run
from wftop.core.remote.lines import HostLineError, host_line
from wftop.core.remote.rows import run_of
from wftop.core.remote.transport import Unreachable
from wftop.core.row import RowError, RunRow
from wftop.core.text.redact import Redactor, redact_value


class StreamError(ValueError):
    """A line of the remote stream that is not a change set: ``line N: why``."""


@dataclass(frozen=True)
class HostState:
    """Whether a host's runs are live: ``failure`` None while its stream flows."""

    host: str
    failure: Unreachable | None = None
    connected: bool = False
    """A snapshot arrived on the current connection."""

    def describe(self) -> str:
        if self.failure is not None:
            return self.failure.describe(self.host)
        return f"{self.host}: {'connected' if self.connected else 'connecting'}"


class HostFeed:
    """The runs one host holds, as its stream told them."""

    def __init__(self, host: str) -> None:
        self.host = host
        self.rows = RowFeed()
        """Every run of the host as a row, by its ident here (its root after ``<host>:``)."""
        self.runs: dict[str, Run] = {}
        """The same runs, as the local model holds them."""
        self.delta: Delta | None = None
        """What the last line (or `lost`) changed, as rows (None: nothing)."""
        self.synced = False
        """The current connection's snapshot has been applied."""
        self.seq = 0
        self.lines = 0
        """Lines read on the current connection (a bad one is named by its number)."""
        self.redactor = Redactor.for_json()
        """Masks a row's strings and keeps its paths, as the host's own ``ls --json`` does
        (its ``removed`` idents are made of them); the views mask a path where they show it."""

    def parse(self, line: bytes) -> dict[str, Any]:
        """The change set a line holds, read as journals are (any depth: what nests past
        orjson's limit is kept as its text); `StreamError` naming the line when it is none."""
        self.lines += 1
        try:
            payload = host_line(self.host, self.lines, line)
        except HostLineError as error:
            raise StreamError(error.where) from None
        if not isinstance(payload, dict) or not isinstance(payload.get("added", []), list):
            expected = "not a change set (expected {seq, added, changed, removed})"
            raise StreamError(f"line {self.lines}: {expected}")
        return payload

    def _rows(self, rows: Any) -> list[RunRow]:
        if not isinstance(rows, list):
            raise StreamError("added and changed must be lists of runs")
        try:
            return [
                RunRow.from_json(redact_value(row, self.redactor), host=self.host) for row in rows
            ]
        except RowError as error:
            raise StreamError(f"line {self.lines}: {error}") from None

    def apply(self, line: bytes) -> ChangeSet:
        """The change set one line of the stream makes (`StreamError` for a bad line)."""
        payload = self.parse(line)
        fresh = self._rows(payload.get("added", [])) + self._rows(payload.get("changed", []))
        if not self.synced:
            self.synced = True
            self.rows.begin()
            return self._changes(self.rows.snapshot(fresh, final=True))
        removed = payload.get("removed", [])
        if not isinstance(removed, list) or not all(isinstance(item, str) for item in removed):
            raise StreamError(f"line {self.lines}: removed must be a list of idents")
        return self._changes(self.rows.change(fresh, removed))

    def lost(self) -> ChangeSet:
        """The connection dropped: every run stays, marked stale, until the next snapshot."""
        self.synced = False
        self.lines = 0
        return self._changes(self.rows.lost(stale=True))

    def _changes(self, delta: Delta | None) -> ChangeSet:
        """The rows' delta as a change set of runs (the runs kept in step)."""
        self.delta = delta
        self.seq += 1
        if delta is None:
            return ChangeSet(self.seq)
        added = tuple(run_of(row) for row in delta.added)
        changed = tuple(run_of(row) for row in delta.changed)
        for run in (*added, *changed):
            self.runs[run.ident] = run
        for ident in delta.removed:
            self.runs.pop(ident, None)
        return ChangeSet(self.seq, added, changed, delta.removed)
