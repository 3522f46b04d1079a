"""The TUI's side of notifications and of the runs marked seen: `Notices`.

A run's change of state, as the store applies it, goes through the same rules as a headless
``wftop watch`` (`wftop.core.notify.events.Tracker`) and out on the same channels
(`wftop.core.notify.setup`), once across every wftop of the user, never for a run whose screen
is the one shown. The terminal channels (the bell, OSC 9/99/777) write through the app's
driver, on the app's loop. The marks are read in a thread as the app starts (the list dims
the runs seen); the notifier is made in a thread once the list is first drawn (tmux is
asked), and what tells a change (`wftop.core.notify.events`) is imported when a change is
first told: none of it is the first frame's. Until the notifier is made the app rings its
own bell.

``a`` marks the run under the cursor (or the one shown) seen, ``A`` every run that needs
you (`wftop.tui.messages.MarkSeen`); a seen run leaves the title's count until it changes
again, and its row is dimmed. The marks are the state dir's (`wftop.core.notify.acks`),
shared with ``wftop ack`` and ``wftop status``; under ``--read-only`` they last the session.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wftop.core.attention import RunState
from wftop.core.notify.acks import Acks
from wftop.core.row import RunRow

if TYPE_CHECKING:  # imported when a change is first told, and with the notifier
    from wftop.core.notify.events import Event, Facts, Tracker
    from wftop.core.notify.notifier import Notifier


def state_of(row: RunRow) -> RunState:
    return RunState(row.ident, row.run_id, row.shown_status, row.last_activity)


class Notices:
    """What the app tells, and the runs marked seen.

    Args:
        started: when the app started (a run already dead then is never told).
        state: the state dir (None under ``--read-only``: marks last the session).
    """

    def __init__(self, started: float, state: Path | None) -> None:
        self.started = started
        self.state = state
        self.acks = Acks(state)
        self.notifier: Notifier | None = None
        """None until made (`ready`), or when none could be."""
        self.notes: tuple[str, ...] = ()
        """What could not be set up, said once."""
        self._telling: tuple[Tracker, type[Facts]] | None = None

    def marks_read(self, acks: dict[str, Any]) -> None:
        """The marks read (in a thread), handed over on the loop."""
        self.acks.entries = dict(acks)

    def ready(self, notifier: Notifier | None, notes: Iterable[str]) -> None:
        """The notifier made (in a thread), handed over on the loop."""
        self.notifier = notifier
        self.notes = tuple(notes)

    def event(self, before: RunRow | None, after: RunRow, now: float) -> Event | None:
        """The event a row's change makes, if any. A run first seen that was last active
        before the app started makes none (`wftop.core.notify.events.Tracker.observe`'s
        rule), and is told so without its facts made or the rules imported: the last rows
        of a first read come with the moment every run is known (up to a thousand at
        20,000 runs), every one of them first seen, as the list waits to be drawn."""
        if before is None and (after.last_activity is None or after.last_activity < self.started):
            return None
        tracker, facts = self.telling
        was = facts.of_row(before) if before is not None else None
        return tracker.observe(was, facts.of_row(after), now)

    @property
    def telling(self) -> tuple[Tracker, type[Facts]]:
        """What tells a change (the rules of ``wftop watch``, since the app started), made
        when first asked for."""
        if self._telling is None:
            from wftop.core.notify.events import Facts, Tracker

            self._telling = Tracker(self.started), Facts
        return self._telling

    def tell(self, event: Event, shown: str | None) -> bool:
        """Queue ``event`` on the channels (not when its run's screen is ``shown``)."""
        return self.notifier is not None and self.notifier.submit(event, shown=shown)

    def seen(self, row: RunRow) -> bool:
        """``row``'s run is marked seen as it stands. A run no mark names is not, and is
        told so by its ident alone: the title asks it of every run within the attention
        window at each change of the store (some 300 runs, 80 times over, while a first
        read of 20,000 runs comes in), and most were never marked."""
        acks = self.acks
        return row.ident in acks.entries and acks.seen(state_of(row))

    def mark(self, rows: Iterable[RunRow], now: float) -> Callable[[], int]:
        """The work of marking ``rows`` seen (to run in a thread: it writes the state dir)."""
        states = [state_of(row) for row in rows]
        return lambda: self.acks.ack(states, now)

    def close(self) -> None:
        if self.notifier is not None:
            self.notifier.close(0.5)
