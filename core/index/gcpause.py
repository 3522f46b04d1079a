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


_HELD: list[object] = []
"""What `held_to_exit` holds last, and this list itself: a cycle."""


def held_to_exit(*objects: object) -> None:
    """Hold ``objects`` until the process ends, in place of those held before.

    A command that prints what it built and ends (``resume --dry-run``) freed it all one
    object at a time as it returned and as the interpreter exited: 0.04 s of CPU for a
    100,000-call plan, after the plan was printed. Held in a cycle that the collector never
    walks (call this inside `paused_gc` with ``freeze``: the cycle is frozen with them), they
    are never freed by the interpreter; the process's memory goes back at once as it ends.
    Only the last objects held are kept: a process that calls it again (a test) frees what
    it held before.
    """
    _HELD[:] = [*objects, _HELD]
