"""When running runs turn stalled: the live index's one timer per running run.

No file event says that time passed, so `wftop.core.index.live.LiveIndex` keeps a timer for
every running run, due when its stall window ends after its last activity. A timer is
moved on, not duplicated, as the run grows: a due timer whose run has grown since is set
again for the new end; one whose run is still quiet says the run must be classified again.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping

from wftop.core.model import Run, Status


class StallTimers:
    """Stall-window timers of the running runs, soonest first."""

    def __init__(self, stall_window: float) -> None:
        self.stall_window = stall_window
        self._heap: list[tuple[float, str]] = []
        self._set: set[str] = set()

    def watch(self, run: Run, moment: float) -> None:
        """Set a timer for a running run that has none (other runs need none)."""
        if run.status is Status.RUNNING and run.ident not in self._set:
            self._set.add(run.ident)
            deadline = (run.last_activity or moment) + self.stall_window
            heapq.heappush(self._heap, (deadline, run.ident))

    def due(self, moment: float, runs: Mapping[str, Run]) -> set[str]:
        """Idents of the running runs whose stall window has ended by ``moment``."""
        found: set[str] = set()
        while self._heap and self._heap[0][0] <= moment:
            _deadline, ident = heapq.heappop(self._heap)
            self._set.discard(ident)
            run = runs.get(ident)
            if run is None or run.status is not Status.RUNNING:
                continue
            deadline = (run.last_activity or moment) + self.stall_window
            if deadline <= moment:
                found.add(ident)
            else:
                self._set.add(ident)
                heapq.heappush(self._heap, (deadline, ident))
        return found

    def next_due(self) -> float | None:
        """When (on the index's clock) the soonest timer is due; None without timers."""
        return self._heap[0][0] if self._heap else None
