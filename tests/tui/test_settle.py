"""The pilot tests' `settle` fails when the app never holds every run, saying what it waited
for and what the app held then, instead of giving up quietly and leaving a later assertion to
fail on an empty table."""

from __future__ import annotations

import pytest

from tests.tui.test_tui_units import only_row
from tests.tui_kit import runs_host, settle
from wftop.tui.store import Progress


async def test_settle_that_waits_in_vain_says_what_it_waited_for_and_what_it_saw():
    host = runs_host()
    ticks = iter(range(1000))
    async with host.run_test(size=(100, 30)) as pilot:
        host.store.take([only_row("killed")])
        host.store.progressed(Progress(1, 3))
        host.store.apply()
        with pytest.raises(AssertionError) as failed:
            await settle(pilot, wait=5, clock=lambda: float(next(ticks)))
    said = str(failed.value)
    assert "never held every run (store.progress.known) in 5 s" in said
    assert "1 rows; progress Progress(read=1, total=3, loaded=False, walking=False)" in said
    assert "engine link up" in said and "screen RunsScreen" in said
    assert next(ticks) == 6  # it gave up as its clock read 5 s after the start, not later


async def test_settle_returns_once_every_run_is_held():
    host = runs_host()
    async with host.run_test(size=(100, 30)) as pilot:
        host.store.take([only_row("killed")])
        host.store.progressed(Progress(1, 1, loaded=True))
        host.store.apply()
        await settle(pilot, wait=5, clock=lambda: 0.0)
        assert len(host.store.rows) == 1
