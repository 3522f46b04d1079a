"""What a call keeps in memory, counted exactly: the blocks it allocated, and nothing else.

tracemalloc's totals count every thread of the process: a thread another test left running
(an engine's reader, a watch) allocates while the call runs and would count as the call's.
`held` counts only the blocks whose traceback passes through its own call of the work (a
block another thread allocates never does). It collects the garbage before the work (no
finalizer of an earlier test's objects runs under it, and the interpreter's free lists are
emptied, so every object the work makes is a block counted, not one an earlier test left
there), runs the work with the collector off (no collection starts under it) and collects
after it (what it dropped is not what it keeps)."""

from __future__ import annotations

import gc
import inspect
import tracemalloc
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

FRAMES = 1024
"""Frames kept of each allocation's traceback: deeper than a test's stack can be (Python's
recursion limit is 1,000), so none is cut before it reaches the call of the work."""


def held(work: Callable[[], T]) -> tuple[T, int]:
    """What ``work()`` returned, and the bytes it allocated that are still held once it
    returned and its garbage is collected (what it returned among them)."""
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    frame = inspect.currentframe()
    assert frame is not None
    tracemalloc.start(FRAMES)
    try:
        line = frame.f_lineno + 1
        result = work()  # the line `line` names: every block the work allocates passes here
        gc.collect()
        traces = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
        if was_enabled:
            gc.enable()
    here = frame.f_code.co_filename
    return result, sum(
        stat.size
        for stat in traces.statistics("traceback")  # one a traceback: the same line's blocks
        if any(place.lineno == line and place.filename == here for place in stat.traceback)
    )
