"""Frames paced to their grid: a refresh asked for after a late frame waits for the next
grid point, not the one after it.

A Textual screen draws from an interval timer (60 a second) that it pauses while nothing
changed and resumes when something did. After a late tick, the timer skips ahead to the
tick *after* the next grid point (``textual.timer.Timer._run`` computes
``int(late / interval + 1)`` ticks gone and then waits for one more), so the frame that
follows a late one comes 17 to 33 ms later instead of within 17. While change sets arrive
every 40 ms (a journal growing), most frames are late ones, and a key waited for that
skipped tick: p99 50–54 ms, against 25–37 ms paced (`bench/loop_cost.py`, docs/performance.md).

`install` replaces that one method with `paced_run`, which differs only in where it skips
to (`ticks_gone`), and only when Textual's own method is the one this was written against
(its source text compared); any other Textual keeps its own timer.
"""

from __future__ import annotations

import hashlib
import inspect
from typing import Any, Final

from textual import _time
from textual import timer as timer_module

CHECKED: Final = frozenset(
    {
        "60c942a84c1a8765",  # textual 8.0.0 to 8.2.8
    }
)
"""Digests (`digest`) of the ``Timer._run`` this replaces."""

_stock: Any = None


def ticks_gone(start: float, interval: float, now: float) -> int:
    """The ticks of a grid from ``start`` that are due by ``now``: the next one to wait for
    is one more (at ``start + (ticks_gone + 1) * interval``, the first grid point after
    ``now``)."""
    return int((now - start) / interval)


async def paced_run(self: Any) -> None:
    """``Timer._run`` of Textual 8.2, but a late tick waits for the next grid point."""
    count = 0
    _repeat = self._repeat
    _interval = self._interval
    self._active  # noqa: B018  (made in this task, as Textual's own does)
    await self._active.wait()
    start = _time.get_time()
    while _repeat is None or count <= _repeat:
        next_timer = start + ((count + 1) * _interval)
        now = _time.get_time()
        if self._skip and next_timer < now:
            count = ticks_gone(start, _interval, now)
            continue
        await _time.sleep(max(0, next_timer - _time.get_time()))
        count += 1
        await self._active.wait()
        if self._reset:
            start = _time.get_time()
            count = 0
            self._reset = False
            continue
        try:
            await self._tick(next_timer=next_timer, count=count)
        except timer_module.EventTargetGone:
            break


def digest(function: Any) -> str:
    """A short digest of a function's source text ("" when it cannot be read): the same
    under every Python version, unlike its byte code."""
    try:
        text = inspect.getsource(function)
    except (OSError, TypeError):
        return ""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def install() -> bool:
    """Pace Textual's timers (`paced_run`) if its ``Timer._run`` is the one checked; True
    when they are paced."""
    global _stock
    current = timer_module.Timer._run
    if current is paced_run:
        return True
    if digest(current) not in CHECKED:
        return False
    _stock = current
    timer_module.Timer._run = paced_run  # type: ignore[method-assign]
    return True


def uninstall() -> None:
    """Textual's own timer again (for tests)."""
    global _stock
    if _stock is not None:
        timer_module.Timer._run = _stock  # type: ignore[method-assign]
        _stock = None
