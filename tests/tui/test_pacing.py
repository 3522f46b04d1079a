"""Frames paced to their grid: after a late frame, the next one waits for the next grid
point of the screen's timer, not the one after it (see `wftop.tui.pacing`)."""

from __future__ import annotations

import asyncio

import pytest
from textual import _time
from textual import timer as timer_module

from tests.tui_kit import build
from wftop.tui import pacing


def test_a_late_tick_waits_for_the_next_grid_point():
    assert pacing.ticks_gone(0.0, 10.0, 57.0) == 5  # next at 60, not 70
    assert pacing.ticks_gone(0.0, 10.0, 60.5) == 6  # next at 70
    assert pacing.ticks_gone(100.0, 1 / 60, 100.0) == 0


class Target:
    """What a timer needs of its target when it has a callback."""


async def ticks_of(run) -> list[float]:  # type: ignore[no-untyped-def]
    """When a screen-like timer ticks (interval 10, on a clock that only sleeps move):
    it ticks once, is paused (as a screen pauses it after drawing), is resumed late at 57,
    draws, and is resumed again at once."""
    clock = [0.0]
    ticks: list[float] = []

    async def sleep(seconds: float) -> None:
        clock[0] += seconds
        await asyncio.sleep(0)

    timer = timer_module.Timer(Target(), 10.0, pause=False)

    async def tick(*, next_timer: float, count: int) -> None:
        ticks.append(clock[0])
        timer.pause()

    timer._tick = tick  # type: ignore[method-assign]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_time, "get_time", lambda: clock[0])
        patch.setattr(timer_module, "sleep", sleep)  # what Textual's own timer sleeps with
        patch.setattr(_time, "sleep", sleep)
        task = asyncio.ensure_future(run(timer))
        while len(ticks) < 1:
            await asyncio.sleep(0)
        for _ in range(20):
            await asyncio.sleep(0)
        clock[0] = 57.0  # asked to draw again, late
        timer.resume()
        while len(ticks) < 2:
            await asyncio.sleep(0)
        timer.resume()  # and again at once
        while len(ticks) < 3:
            await asyncio.sleep(0)
        task.cancel()
    return ticks


async def test_the_paced_timer_draws_at_the_next_grid_point_after_a_late_frame():
    assert await ticks_of(pacing.paced_run) == [10.0, 57.0, 60.0]


async def test_textuals_own_timer_is_replaced_only_where_it_was_checked(monkeypatch):
    pacing.uninstall()
    stock = timer_module.Timer._run
    assert pacing.digest(stock) in pacing.CHECKED  # the pinned Textual is the one checked
    assert await ticks_of(stock) == [10.0, 57.0, 70.0]  # what pacing mends

    async def other(self) -> None:  # type: ignore[no-untyped-def]
        return None

    monkeypatch.setattr(timer_module.Timer, "_run", other)
    assert pacing.install() is False
    assert timer_module.Timer._run is other


def test_the_app_paces_its_frames(tui_root, tui_processes):
    pacing.uninstall()
    assert timer_module.Timer._run is not pacing.paced_run
    build(tui_root, tui_processes)
    assert timer_module.Timer._run is pacing.paced_run
