"""The engine's walk of its roots after the rows its rows cache kept are out, in a forked
child (`walked`): the engine's loop goes on meanwhile, so a view that connects then is
answered at once (its hello, the kept rows, ``kept``), where a walk on the loop held it
0.1-0.45 s at 5,000 runs, and the engine waited for the view that started it before it
walked (up to 5 s, when that view never came).

Only what the first rows need travels back: how many run folders there are, the walk's
problems, the runs superseded, the folders left to look up in the cache or read (few,
where most rows were kept), the runs whose kept rows went out and the walk did not find,
and what the child kept of its listings for the rows cache (`WalkKeep.walk_apart`). A
first start (no row kept) walks on the loop: every folder it finds is to be read here, and
would all travel back (0.2 s of CPU at 20,000 runs); it has nothing to list meanwhile.
Where no child can be forked (`wftop.core.index.fanout`'s rules) or it fails, the walk is
done here, so the answer never depends on where it was walked.
"""

from __future__ import annotations

import threading
from functools import partial
from typing import NamedTuple

from wftop.core.index.rowcache import RowCache
from wftop.core.index.walkers import in_walkers
from wftop.core.index.walkkeep import WalkKept
from wftop.core.read.discovery import run_folders_of
from wftop.core.read.runfolder import RunFolder
from wftop.core.system.platforms import can_fork_workers


class Walk(NamedTuple):
    """The roots walked, as far as the first rows need it."""

    total: int
    """Run folders found."""
    trouble: tuple[str, ...]
    superseded: dict[str, str]
    """Runs continued in another session: ident → the session that continued it."""
    left: list[RunFolder]
    """The folders to look up in the cache or read: every one but those whose kept row
    went out before the walk and holds (not superseded), in the walk's order."""
    gone: tuple[str, ...]
    """The runs whose kept rows went out and the walk did not find."""
    kept: WalkKept | None = None
    """What a forked walk kept of its listings (`WalkKeep.walk_apart`)."""


async def walked(roots: list[str], cache: RowCache, early: dict[str, str]) -> Walk:
    """The roots walked (``early``: ident → run folder path of each row sent before the
    walk), in a forked child where rows were sent (see the module)."""
    here = partial(walk_here, roots, cache, dict(early))
    if not early or not can_fork_workers() or threading.active_count() > 1:
        return here()
    from wftop.core.index.forkchild import Forked

    walk = await Forked(partial(walk_apart, roots, cache, early)).awaited(here)
    if walk.kept is not None:
        cache.walk_joined(walk.kept)
    return walk


def walk_here(roots: list[str], cache: RowCache, early: dict[str, str]) -> Walk:
    """The roots walked in this process (``early`` emptied of the runs found)."""
    from wftop.core.index.supersede import find_superseded

    folders, trouble = run_folders_of(
        roots, cache.snapshot_names, cache.run_names, walk=in_walkers(cache)
    )
    superseded = find_superseded(folders)
    left = [
        folder
        for folder in folders
        if early.pop(folder.ident, None) != folder.path or folder.ident in superseded
    ]
    problems = tuple(str(problem) for problem in trouble)
    return Walk(len(folders), problems, superseded, left, tuple(early))


def walk_apart(roots: list[str], cache: RowCache, early: dict[str, str]) -> Walk:
    """`walk_here` in a forked child, with what it kept of its listings for the parent."""
    kept = cache.walk_apart()
    return walk_here(roots, cache, early)._replace(kept=kept())
