"""Telling with no TUI: the engine's rows, turned into events as they change.

`RowEvents` keeps what the rules read of every run an engine's stream told (`Facts`) and
turns each `wftop.core.engine.feed.Delta` into the events it makes (`Tracker`): the first
snapshot only sets what was there, so a run already dead when the watch started is never
told. `follow` reads a link's updates until ``stop`` is set and hands each event to
``tell``, each loss of the engine and each problem to ``say``: ``wftop watch`` prints them,
and with ``--notify`` sends them on the channels (`wftop.core.notify.setup`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable

from wftop.core.engine.feed import Delta
from wftop.core.engine.link import EngineLost, Update
from wftop.core.engine.protocol import ProblemSeen
from wftop.core.engine.until import until_stopped
from wftop.core.notify.events import Event, Facts, Tracker

Clock = Callable[[], float]


class RowEvents:
    """The events the changes of rows make (``started``: when the watch began)."""

    def __init__(self, started: float) -> None:
        self.tracker = Tracker(started)
        self.facts: dict[str, Facts] = {}

    def take(self, delta: Delta, now: float) -> list[Event]:
        """The events of one delta, in the order its rows came."""
        events: list[Event] = []
        for row in (*delta.added, *delta.changed):
            after = Facts.of_row(row)
            event = self.tracker.observe(self.facts.get(row.ident), after, now)
            self.facts[row.ident] = after
            if event is not None:
                events.append(event)
        for ident in delta.removed:
            self.facts.pop(ident, None)
        return events


async def follow(
    updates: AsyncGenerator[Update, None],
    events: RowEvents,
    *,
    clock: Clock,
    tell: Callable[[Event], None],
    say: Callable[[str], None],
    stop: asyncio.Event,
    failed: Callable[[str], None] | None = None,
) -> None:
    """Tell every event the updates make until ``stop`` is set; ``say`` how many runs are
    watched once the engine has told them all. ``failed`` is handed the line of an engine
    that failed and stopped reading (it is said too)."""
    ready = False
    async for update in until_stopped(updates, stop):
        if isinstance(update, EngineLost):
            say(f"{update.why}; starting another engine")
        elif isinstance(update, ProblemSeen):
            say(update.text)
            if update.fatal and failed is not None:
                failed(update.text)
        elif isinstance(update, Delta):
            for event in events.take(update, clock()):
                tell(event)
            if update.complete and not ready:
                ready = True
                count = len(events.facts)
                say(f"watching {count} run{'s' if count != 1 else ''}")
