"""One host's change-set stream as the change sets the local index hands out.

The remote ``wftop ls --watch --json`` prints the cold index first (every run ``added``),
then one line per change set. `HostFeed` turns each line into a `ChangeSet` of `Run`s whose
identity carries the host. A connection that drops is `lost`: the host's runs stay with
their last known state, marked stale (never ``dead``: a link going down says nothing of a
run). The first line after a reconnect is a fresh snapshot, diffed against what was known,
so the runs that changed, appeared or went while the link was down arrive as one change
set: none lost, none twice.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import orjson

from wftop.core.index.changeset import ChangeSet
from wftop.core.model import Run
from wftop.core.remote.rows import run_from_row
from wftop.core.remote.transport import Unreachable
from wftop.core.row import RowError
from wftop.core.text.redact import Redactor


class StreamError(ValueError):
    """A line of the remote stream that is not a change set."""


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
        self.runs: dict[str, Run] = {}
        """Every run of the host, by its ident here (its root after ``<host>:``)."""
        self.idents: dict[str, str] = {}
        """The ident the host itself names each run by (in ``removed``) → its ident here."""
        self.synced = False
        """The current connection's snapshot has been applied."""
        self.seq = 0
        self.redactor = Redactor.for_json()
        """Masks a row's strings and keeps its paths, as the host's own ``ls --json`` does
        (its ``removed`` idents are made of them); the views mask a path where they show it."""

    def parse(self, line: bytes) -> dict[str, Any]:
        try:
            payload = orjson.loads(line)
        except orjson.JSONDecodeError as error:
            raise StreamError(f"not a JSON line ({error})") from None
        if not isinstance(payload, dict) or not isinstance(payload.get("added", []), list):
            raise StreamError("not a change set (expected {seq, added, changed, removed})")
        return payload

    def _runs(self, rows: Any) -> list[Run]:
        if not isinstance(rows, list):
            raise StreamError("added and changed must be lists of runs")
        try:
            return [run_from_row(row, self.host, self.redactor) for row in rows]
        except RowError as error:
            raise StreamError(str(error)) from None

    def apply(self, line: bytes) -> ChangeSet:
        """The change set one line of the stream makes (`StreamError` for a bad line)."""
        payload = self.parse(line)
        fresh = self._runs(payload.get("added", [])) + self._runs(payload.get("changed", []))
        if not self.synced:
            return self._resync(fresh)
        removed_raw = payload.get("removed", [])
        if not isinstance(removed_raw, list):
            raise StreamError("removed must be a list of idents")
        added: list[Run] = []
        changed: list[Run] = []
        for run in fresh:
            (changed if run.ident in self.runs else added).append(run)
            self.runs[run.ident] = run
            self.idents[run.folder.ident] = run.ident
        removed = []
        for ident in removed_raw:
            key = self.idents.pop(str(ident), None)
            if key is not None and self.runs.pop(key, None) is not None:
                removed.append(key)
        return self._next(added, changed, removed)

    def _resync(self, snapshot: list[Run]) -> ChangeSet:
        """A connection's first line: every run the host has now, against what was known."""
        self.synced = True
        now = {run.ident: run for run in snapshot}
        added = [run for ident, run in now.items() if ident not in self.runs]
        changed = [run for ident, run in now.items() if ident in self.runs]
        removed = [ident for ident in self.runs if ident not in now]
        self.runs = now
        self.idents = {run.folder.ident: run.ident for run in snapshot}
        return self._next(added, changed, removed)

    def lost(self) -> ChangeSet:
        """The connection dropped: every run stays, marked stale, until the next snapshot."""
        self.synced = False
        stale = [replace(run, stale=True) for run in self.runs.values() if not run.stale]
        for run in stale:
            self.runs[run.ident] = run
        return self._next([], stale, [])

    def _next(self, added: list[Run], changed: list[Run], removed: list[str]) -> ChangeSet:
        self.seq += 1
        return ChangeSet(self.seq, tuple(added), tuple(changed), tuple(removed))
