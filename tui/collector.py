"""The cyclic collector paused while the TUI starts: `StartPause`.

A start builds many objects and few cycles: the modules of Textual and of the app, then a
row for every run its engine sends (20,000 rows are some 200,000 objects). With the
collector on, its passes walk them again and again while the list waits: at 20,000 runs
hundreds of young passes, dozens of middle ones and a full one, a third of the app's CPU
before every run was listed. Paused from before the app is imported until every run is
first drawn, what the start built is then moved out of the collector's sight
(``gc.freeze``, as the store does once it applied many rows: `wftop.tui.store.Store`) and
collection resumes. The pause ends by `PAUSE_LIMIT` seconds after the app started
whatever comes (an engine that never ends its first rows).
"""

from __future__ import annotations

import gc

PAUSE_LIMIT = 30.0
"""Seconds after the app is mounted by which the pause ends, every run drawn or not."""


class StartPause:
    """The collector paused from now until `end` (a collector already off stays off)."""

    def __init__(self) -> None:
        self._paused = gc.isenabled()
        gc.disable()

    @property
    def paused(self) -> bool:
        return self._paused

    def end(self) -> None:
        """What was built since is kept out of the collector's sight; collection resumes
        (once: later calls do nothing)."""
        if self._paused:
            self._paused = False
            gc.freeze()
            gc.enable()
