"""The rows a view holds, kept from a stream of snapshots and change sets: `RowFeed`.

One stream (an engine's, a host's) tells a view every run it holds in a snapshot, then
change sets. `RowFeed` keeps those rows by ident and turns each message into a `Delta`:
what was added, changed and removed for the view. A connection that ends is `lost` (the
rows stay, marked stale when the caller says so: a host that cannot be reached says
nothing of its runs); the next connection's snapshot is diffed against what was held, so
a run that changed, appeared or went meanwhile arrives once: none lost, none twice. While a
snapshot comes in batches every batch is applied at once (a first screen paints early);
what the snapshot did not name is removed when its last batch arrives.

The same feed serves this machine's engine and every other host's stream
(`wftop.core.remote`): local and remote runs take one path to a view.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from wftop.core.compared import compared
from wftop.core.row import RunRow


@compared
@dataclass(frozen=True, eq=False, repr=False)
class Delta:
    """What changed in a feed's rows: immutable, numbered from 1 per feed."""

    seq: int
    added: tuple[RunRow, ...] = ()
    changed: tuple[RunRow, ...] = ()
    removed: tuple[str, ...] = ()
    """Idents of the rows that went."""
    complete: bool = False
    """The feed holds every run of its source (its current snapshot has ended)."""

    @property
    def empty(self) -> bool:
        return not (self.added or self.changed or self.removed)


class RowFeed:
    """Every run one stream told, by ident, and the deltas its messages make."""

    def __init__(self) -> None:
        self.rows: dict[str, RunRow] = {}
        self.complete = False
        """The current connection's snapshot has ended."""
        self._named: dict[str, str] = {}
        """The ident the source names each run by (in ``removed``) → its ident here: another
        host's runs only (a run of this machine is named by its ident)."""
        self._seen: set[str] | None = None
        """Idents the current connection's snapshot has named so far."""
        self._seq = 0

    def begin(self) -> None:
        """A new connection: its snapshot comes next."""
        self.complete = False
        self._seen = set()

    def snapshot(self, rows: Iterable[RunRow], *, final: bool) -> Delta | None:
        """A batch of the current snapshot; the ``final`` one removes every run the
        snapshot did not name. None: nothing changed."""
        if self._seen is None:
            self.begin()
        seen = self._seen
        assert seen is not None
        added, changed = self._take(rows, seen)
        removed: list[str] = []
        if final:
            removed = [ident for ident in self.rows if ident not in seen]
            for ident in removed:
                del self.rows[ident]
            self._named = {
                source: ident for source, ident in self._named.items() if ident in self.rows
            }
            self._seen = None
            self.complete = True
        return self._next(added, changed, removed, force=final)

    def change(self, rows: Iterable[RunRow], removed: Iterable[str]) -> Delta | None:
        """One change set of the source (idents in ``removed`` as the source names them)."""
        added, changed = self._take(rows, self._seen)
        gone: list[str] = []
        for source in removed:
            ident = self._named.pop(source, source)
            if self.rows.pop(ident, None) is not None:
                gone.append(ident)
        return self._next(added, changed, gone)

    def lost(self, *, stale: bool) -> Delta | None:
        """The connection ended: every row stays until the next snapshot (``stale``: marked
        as the last known state)."""
        self.complete = False
        self._seen = None
        if not stale:
            return None
        marked = [replace(row, stale=True) for row in self.rows.values() if not row.stale]
        for row in marked:
            self.rows[row.ident] = row
        return self._next([], marked, [])

    def _take(
        self, rows: Iterable[RunRow], seen: set[str] | None
    ) -> tuple[list[RunRow], list[RunRow]]:
        added: list[RunRow] = []
        changed: list[RunRow] = []
        for row in rows:
            ident = row.ident
            if seen is not None:
                seen.add(ident)
            before = self.rows.get(ident)
            if before is not None and before == row:
                continue
            self.rows[ident] = row
            if row.host is not None:  # a local run's host names it by its ident
                self._named[row.folder_ident] = ident
            (added if before is None else changed).append(row)
        return added, changed

    def _next(
        self, added: list[RunRow], changed: list[RunRow], removed: list[str], force: bool = False
    ) -> Delta | None:
        if not (added or changed or removed or force):
            return None
        self._seq += 1
        return Delta(self._seq, tuple(added), tuple(changed), tuple(removed), self.complete)
