"""The supervisor that runs on: it watches the roots through the engine and passes over a
run only when something about it may have changed.

The engine (`wftop.core.engine`) follows the disk and streams every run's row; the
supervisor reads no root itself between passes. `Watch` keeps which runs a pass must look
at: a run in scope whose row says it may be resumed (dead, partial, failed, killed) when
its row comes or changes, a run whose wait ends (the ``until`` of its last decision), every
run still waiting when a launch ends (the day's spending moved), the runs newly marked auto
(``m`` in the TUI; the state file is read every `STATE_EVERY` seconds, for the off switch
too), and the whole scope again every `RECHECK` seconds (a resume log written elsewhere).
A pass reads only those runs from disk (`Supervisor.step`), so a supervisor over thousands
of runs costs nothing while nothing happens.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from wftop.core.engine.feed import Delta
from wftop.core.engine.link import EngineLink, EngineLost
from wftop.core.row import RunRow
from wftop.core.supervise.decide import CANDIDATES, Action
from wftop.core.supervise.state import SuperviseState
from wftop.core.supervise.supervisor import Supervisor

RECHECK: Final = 15 * 60.0
"""Seconds between two passes over every run in scope, whatever the engine said."""
FOLLOW_EVERY: Final = 1.0
"""Seconds between two polls of the launches followed."""
STATE_EVERY: Final = 30.0
"""Seconds between two reads of the state file (the marks, the off switch)."""


@dataclass
class Watch:
    """Which runs the next pass looks at, from the engine's rows and the last decisions."""

    supervisor: Supervisor
    rows: dict[str, RunRow] = field(default_factory=dict)
    """The engine's rows, by ident."""
    dirty: set[str] = field(default_factory=set)
    """Run ids a pass must look at."""
    waits: dict[str, float | None] = field(default_factory=dict)
    """Run ids whose last decision was to wait, and until when (None: until a change)."""
    marks: frozenset[tuple[str, str]] = frozenset()
    checked: float | None = None
    """When every run in scope was last looked at."""

    def takes(self, row: RunRow, state: SuperviseState) -> bool:
        return row.host is None and self.supervisor.scope.takes_row(row, state)

    def seen(self, rows: Iterable[RunRow], state: SuperviseState) -> None:
        """Rows the engine added or changed: those in scope that may be resumed, or that
        were waiting, are looked at."""
        for row in rows:
            if self.takes(row, state) and (
                row.shown_status in CANDIDATES or row.run_id in self.waits
            ):
                self.dirty.add(row.run_id)

    def everything(self, state: SuperviseState) -> None:
        self.seen(self.rows.values(), state)

    def read_marks(self, state: SuperviseState) -> None:
        """The marks changed: the runs newly marked are looked at."""
        marks = frozenset((mark.run, mark.root or "") for mark in state.marks)
        if marks != self.marks:
            self.marks = marks
            self.everything(state)

    def due(self, now: float) -> set[str]:
        return {run for run, until in self.waits.items() if until is not None and until <= now}

    def next_due(self) -> float | None:
        return min((until for until in self.waits.values() if until is not None), default=None)

    def passed(self) -> None:
        """Note the decisions of the pass just made."""
        for run, decision in self.supervisor.said:
            if decision.action is Action.WAIT:
                self.waits[run.run_id] = decision.until
            else:
                self.waits.pop(run.run_id, None)

    def take(self, now: float) -> set[str]:
        """The runs the pass at ``now`` looks at (and forget them)."""
        wanted = self.dirty | self.due(now)
        self.dirty = set()
        return wanted


async def watch(
    link: EngineLink,
    supervisor: Supervisor,
    *,
    stopping: asyncio.Event,
    clock: Callable[[], float],
    say: Callable[[str], None] = lambda _text: None,
    recheck: float = RECHECK,
) -> Watch:
    """Pass over the runs in scope as the engine's rows change, until ``stopping`` is set or
    the supervision is switched off; returns what it watched."""
    at = Watch(supervisor)
    started = clock()
    wake = asyncio.Event()
    complete = asyncio.Event()

    async def read() -> None:
        async for update in link.updates():
            if isinstance(update, EngineLost):
                say(f"{update.why}; starting another engine")
            elif isinstance(update, Delta):
                at.rows = dict(link.rows)
                state = supervisor.store.read_state()
                if update.complete and not complete.is_set():
                    complete.set()
                    at.everything(state)
                else:
                    at.seen((*update.added, *update.changed), state)
                wake.set()

    reader = asyncio.ensure_future(read())
    try:
        await _wait(complete, stopping, reader)
        while not stopping.is_set() and not reader.done():
            state = await asyncio.to_thread(supervisor.store.read_state)
            if state.off_at is not None and state.off_at >= started:
                break
            at.read_marks(state)
            now = clock()
            if at.checked is None or now - at.checked >= recheck:
                at.everything(state)
                at.checked = now
            wanted = at.take(now)
            if wanted:
                following = set(supervisor.following)
                await asyncio.to_thread(supervisor.step, wanted)
                at.passed()
                if following - set(supervisor.following):
                    at.dirty |= set(at.waits)  # a launch ended: the day's spending moved
            elif supervisor.following:
                following = set(supervisor.following)
                await asyncio.to_thread(supervisor.poll)
                if following - set(supervisor.following):
                    at.dirty |= set(at.waits)
            pause = min(STATE_EVERY, recheck - (clock() - (at.checked or now)))
            due = at.next_due()
            if due is not None:
                pause = min(pause, due - clock())
            if supervisor.following or at.dirty:
                pause = min(pause, FOLLOW_EVERY)
            wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(_wait(wake, stopping, reader), max(pause, 0.05))
    finally:
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
            await reader
        await link.close()
    return at


async def _wait(
    event: asyncio.Event, stopping: asyncio.Event, reader: asyncio.Future[None]
) -> None:
    """Until ``event`` or ``stopping`` is set, or the engine's stream ends for good."""
    waits: set[asyncio.Future[Any]] = {
        asyncio.ensure_future(event.wait()),
        asyncio.ensure_future(stopping.wait()),
        reader,
    }
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiting in waits:
            if waiting is not reader:
                waiting.cancel()
