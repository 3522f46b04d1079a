"""The runs a view holds, and the one signal that says what changed: `Store`.

Theory of operation. Every run the TUI knows is a `wftop.core.row.RunRow` (immutable, made
by the engine or another host), held in ``rows`` by ident; nothing else about a run is kept
for every run (its calls, journal and transcripts are read when a screen opens them). The
app feeds the store what the engine link and the hosts say (`take`, `progressed`,
`host_changed`); each is folded into one pending `Change` at once, and at most one
`Change` is applied per frame (`FRAME`; while the first read goes on and some runs are
held, per `READING_FRAME`): ``rows`` are updated and the ``changed`` signal is published
once with the whole delta, whatever burst of updates came in between. A screen that is
not shown keeps nothing but a flag, and catches up when it shows again.

What a `Change` carries tells a screen how much to redraw: ``progress`` only (the cold
start read more runs: the header), ``links`` (the engine or a host's link went or came
back, or a root appeared), ``clock`` (time moved, or the theme: every visible row's
cells), and rows added, changed (by ident) and removed.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable
from dataclasses import field
from typing import TYPE_CHECKING

from textual.signal import Signal

from wftop.core.compared import record
from wftop.core.row import RunRow
from wftop.core.system.memory import give_back_memory
from wftop.tui.needy import NeedyRuns

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from wftop.core.remote.feed import HostState

FRAME = 1 / 60
"""Seconds between two applications of what came in (a frame)."""
READING_FRAME = 0.1
"""Seconds between two applications while the first read goes on, once some runs are held:
what they change until every run is known is the header's count of runs read (the list
holds them back, `wftop.tui.screens.runs.RunsScreen`) and the title's count. Each
application costs the loop some 5 ms beside its rows (the header drawn, the title counted,
the screens told), and the engine sends a batch every 20-30 ms, each applied in a frame of
its own: 80 applications at 20,000 runs, on the CPUs its workers read them with."""
SETTLE_ROWS = 1000
"""Rows an application adds or replaces from which what the process holds then is moved
out of the cyclic collector's reach (`gc.freeze`): 20,000 rows are some 200,000 objects it
would walk again and again, 70-110 ms a full pass, landing on whatever key comes then."""


@record
class Progress:
    """How far the first read of every run has come."""

    read: int = 0
    total: int = 0
    loaded: bool = False
    """Every run is known (the engine's snapshot has ended once), or ``walking``."""
    walking: bool = False
    """Loaded with every run the engine's rows cache kept, while its walk of the roots goes
    on: what that finds (runs not kept, gone or changed meanwhile) comes before the snapshot
    ends (`wftop.core.engine.protocol.Kept`)."""

    @property
    def known(self) -> bool:
        """Every run is known: the engine's snapshot has ended once."""
        return self.loaded and not self.walking


@record
class Change:
    """What one application of the store changed (immutable: screens keep none of it)."""

    added: tuple[RunRow, ...] = ()
    changed: tuple[RunRow, ...] = ()
    """New rows of runs held before (by ident)."""
    removed: tuple[str, ...] = ()
    """Idents of runs that went."""
    progress: bool = False
    """The first read went on (or ended): the header."""
    links: bool = False
    """The engine's link or a host's changed state (lost, back), or a root appeared."""
    clock: bool = False
    """Time moved (ages) or the theme did (colours): every row shown is drawn again."""
    before: dict[str, RunRow] = field(default_factory=dict, repr=False, compare=False)
    """The rows ``changed`` replaced, by ident (what alerts compare)."""

    @property
    def rows(self) -> bool:
        """Runs were added, changed or removed."""
        return bool(self.added or self.changed or self.removed)

    def touches(self, ident: str) -> bool:
        """The run ``ident`` was added, changed or removed."""
        return (
            ident in self.removed
            or any(row.ident == ident for row in self.changed)
            or any(row.ident == ident for row in self.added)
        )


class Store:
    """Every run the view holds, its hosts, how far the first read is, and what changed."""

    def __init__(
        self,
        owner: DOMNode,
        schedule: Callable[[Callable[[], object]], object],
        *,
        reading: Callable[[Callable[[], object]], object] | None = None,
        settle: Callable[[], None] = gc.freeze,
        give_back: Callable[[], object] = give_back_memory,
    ) -> None:
        """Args:
        owner: the node the ``changed`` signal belongs to (the app).
        schedule: runs its argument a frame from now (the app's ``set_timer``).
        reading: runs its argument `READING_FRAME` from now: what comes while the first read
            goes on and some runs are held is applied so (None: a frame from now).
        settle: called after an application of `SETTLE_ROWS` rows or more (rows are
            acyclic: freed when let go, frozen or not).
        give_back: gives what the process freed back to the system
            (`wftop.core.system.memory`), a frame after such an application, once the rows
            it replaced are let go of (the `Change` that published them holds them until
            then): the spends filled in replace every row, and the allocator kept what
            the first rows took, some 10 MB at 20,000 runs.
        """
        self._settle = settle
        self._give_back = give_back
        self._giving_back = False
        self.rows: dict[str, RunRow] = {}
        """Every run, by ident, as the last application left it."""
        self.hosts: dict[str, HostState] = {}
        """Every other host read, and whether its runs are live."""
        self.progress = Progress()
        self.engine = ""
        """What is wrong with the engine's link ("": it is up)."""
        self.missing: tuple[str, ...] = ()
        """The roots not on disk (Claude Code has not run there yet): the list says so."""
        self.changed: Signal[Change] = Signal(owner, "store-changed")
        """Published once per application, with what it changed."""
        self.applied = 0
        """Applications so far (tests and benchmarks count them)."""
        self.filling = 0
        """Rows whose spend is still to come (`RunRow.cost_pending`: a large first read
        sends every row before what it spent, and replaces each when it has read it)."""
        self._needy = NeedyRuns()
        self._schedule = schedule
        self._reading = reading
        self._pending: dict[str, RunRow | None] = {}
        """Rows to apply by ident (None: the run went), the newest of each."""
        self._flags = {"progress": False, "links": False, "clock": False}
        self._progress: Progress | None = None
        """Progress to apply with the next frame."""
        self._due = False

    # -- taking what came in -----------------------------------------------------------------

    def take(self, rows: Iterable[RunRow] = (), removed: Iterable[str] = ()) -> None:
        """Rows added or changed and runs removed: applied with the next frame."""
        pending = self._pending
        for row in rows:
            pending[row.ident] = row
        for ident in removed:
            pending[ident] = None
        self._due_soon()

    def replace_all(self, rows: Iterable[RunRow], keep: Callable[[RunRow], bool]) -> None:
        """Every run ``keep`` says is of one source is ``rows`` now: the others of it go."""
        fresh = {row.ident: row for row in rows}
        gone = [ident for ident, row in self.rows.items() if keep(row) and ident not in fresh]
        gone += [
            ident
            for ident, row in self._pending.items()
            if row is not None and keep(row) and ident not in fresh and ident not in self.rows
        ]
        self.take(fresh.values(), gone)

    def progressed(self, progress: Progress) -> None:
        """How far the first read has come: applied with the rows that came before it (a
        view that reads ``progress.loaded`` finds every run in ``rows``). The moments the
        list is drawn (``loaded``, then ``known``) are applied at once, with every row
        pending: the list's first frame waits for no frame timer (on a loop busy reading
        the last rows, one fired 20-50 ms late)."""
        told = self._progress or self.progress
        if progress == told:
            return
        self._progress = progress
        if (progress.loaded, progress.known) == (told.loaded, told.known):
            self._flag("progress")
            return
        self._flags["progress"] = True
        due = self._due
        self.apply()
        self._due = due  # an application asked of the frame timer still comes (if any)

    @property
    def told(self) -> Progress:
        """The progress last told, applied or not yet."""
        return self._progress or self.progress

    def host_changed(self, state: HostState) -> None:
        self.hosts[state.host] = state
        self._flag("links")

    def engine_state(self, trouble: str) -> None:
        """The engine's link is up ("") or not, and why."""
        if trouble != self.engine:
            self.engine = trouble
            self._flag("links")

    def roots_missing(self, missing: tuple[str, ...]) -> None:
        """The roots not on disk now (a root that appears is read as it fills)."""
        if missing != self.missing:
            self.missing = missing
            self._flag("links")

    def tick(self) -> None:
        """Time moved (or the theme changed): every row shown is drawn again."""
        self._flag("clock")

    def _flag(self, name: str) -> None:
        self._flags[name] = True
        self._due_soon()

    def _due_soon(self) -> None:
        if not self._due:
            self._due = True
            reading = self._reading
            if reading is not None and self.rows and not self.progress.loaded:
                reading(self.apply)  # the first read goes on: its count of runs read
            else:
                self._schedule(self.apply)

    # -- applying ----------------------------------------------------------------------------

    def apply(self) -> Change:
        """Apply what came in since the last frame and publish it (once)."""
        self._due = False
        pending, self._pending = self._pending, {}
        if self._progress is not None:
            self.progress, self._progress = self._progress, None
        flags = self._flags
        self._flags = {"progress": False, "links": False, "clock": False}
        rows, needy = self.rows, self._needy
        added: list[RunRow] = []
        changed: list[RunRow] = []
        removed: list[str] = []
        before: dict[str, RunRow] = {}
        held = 0  # the new runs handed to needy so far: at once, before a changed one is
        for ident, row in pending.items():
            old = rows.get(ident)
            if old is None:
                if row is not None:  # a new run: nothing to compare it with
                    added.append(row)
                    rows[ident] = row
                continue
            if row is None:
                del rows[ident]
                needy.drop(ident)
                removed.append(ident)
                self.filling -= old.cost_pending
                continue
            if old == row:
                continue
            changed.append(row)
            before[ident] = old
            self.filling += row.cost_pending - old.cost_pending
            rows[ident] = row
            if held < len(added):
                needy.add(added[held:])
                held = len(added)
            needy.put(ident, row)
        if added:
            needy.add(added[held:] if held else added)
            self.filling += sum([row.cost_pending for row in added])
        change = Change(tuple(added), tuple(changed), tuple(removed), before=before, **flags)
        if change.rows or any(flags.values()):
            self.applied += 1
            self.changed.publish(change)
        if len(added) + len(changed) >= SETTLE_ROWS:
            self.settle()
            if not self._giving_back:
                self._giving_back = True
                self._schedule(self._given_back)
        return change

    def settle(self) -> None:
        """What the process holds now is kept for good: out of the cyclic collector's reach
        (after a big application, and once what opening a run needs is loaded)."""
        self._settle()

    def _given_back(self) -> None:
        self._giving_back = False
        self._give_back()

    # -- reading -----------------------------------------------------------------------------

    def attention(self, now: float, window: float) -> int:
        """Runs that need a person: stalled ones, and dead or partial ones (completed with
        failed calls) last active within ``window`` seconds of ``now``."""
        return len(self.needing(now, window))

    def needing(
        self, now: float, window: float, seen: Callable[[RunRow], bool] | None = None
    ) -> list[RunRow]:
        """The runs `attention` counts, less those ``seen`` says were marked seen."""
        return self._needy.within(now, window, seen)
