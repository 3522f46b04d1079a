"""The collector paused while a listing builds its rows (`paused_gc`), and what it finds
when it resumes."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from wftop.core.index.gcpause import paused_gc


@pytest.fixture
def collector() -> Iterator[None]:
    """The collector on, nothing frozen, before and after the test."""
    was = gc.isenabled()
    gc.unfreeze()
    gc.collect()
    gc.enable()
    yield
    gc.unfreeze()
    if not was:
        gc.disable()


def test_what_a_listing_built_is_left_to_the_oldest_generation_not_frozen(collector: None) -> None:
    """Resuming the collector after a listing built 300,000 objects had its next young
    collections walk every one of them (0.09 s of a cached ls at 20,000 runs); frozen
    instead, they would stay out of its sight for the rest of the process (a test process
    runs many listings). ``aged``: nothing stays frozen, and nothing built is young."""
    with paused_gc(aged=True):
        built = [[index, str(index)] for index in range(100_000)]
        assert gc.get_count()[0] > len(built)  # all of it young while the collector waits
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert gc.get_count()[0] < 1_000 and gc.is_tracked(built[0])
