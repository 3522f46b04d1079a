"""No cyclic garbage collection while many acyclic objects are built: `paused_gc`."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc(*, freeze: bool = False, aged: bool = False) -> Iterator[None]:
    """No cyclic garbage collection while a cold scan builds many acyclic objects.

    The collector would otherwise walk the growing heap again and again for nothing.
    ``freeze``: what was built is kept for long (a live index), so it is moved out of the
    collector's sight before collection resumes (``gc.freeze``): otherwise the first
    collections after the pause walk every object built during it, holding the interpreter
    lock for a few hundred milliseconds (for 5,000 runs) while the app's loop waits.
    ``aged``: what was built is moved to the oldest generation instead, as it would be
    after those collections but without them (frozen, collection resumed, unfrozen: every
    frozen object is then in the oldest generation), walked at its next full collection
    only; a command that prints what it built and ends never pays that walk.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze or aged:
            gc.freeze()
        if enabled:
            gc.enable()
        if aged:
            gc.unfreeze()
