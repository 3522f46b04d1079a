"""What the live index hands out, and what it gathers while it applies one batch.

A `ChangeSet` is the immutable result of one batch of touches: the runs added, changed
and removed since the previous one. A `Batch` is the index's scratch record of the run
idents a batch of touches adds, removes or dirties, from which the change set is built.
Nothing here imports UI code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from wftop.core.model import Run

if TYPE_CHECKING:
    from wftop.core.index.reader import RunReader


@dataclass(frozen=True)
class ChangeSet:
    """What changed in the index since the previous change set."""

    seq: int
    """Monotonic, from 1 (the cold start)."""
    added: tuple[Run, ...] = ()
    changed: tuple[Run, ...] = ()
    removed: tuple[str, ...] = ()
    """Idents (``<session>/<runId>``) of runs that are gone."""
    revived: tuple[str, ...] = ()
    """Idents of runs gone before and back as they went, not read again (a tree made
    again by moving it back: `wftop.core.index.revive`): a view holds again what it held
    of each when it was told it went."""

    @property
    def empty(self) -> bool:
        return not (self.added or self.changed or self.removed or self.revived)


class Batch:
    """Runs added, removed and touched while one batch of touches is applied."""

    def __init__(self) -> None:
        self.added: set[str] = set()
        self.removed: set[str] = set()
        self.dirty: set[str] = set()
        self.run_ids: set[str] = set()
        """Run ids whose superseded relation must be decided again."""
        self.revived: set[str] = set()
        """Runs tracked again with the reader they went with, dozing (`added` too): kept
        as they went unless something else in the batch dirties them."""
        self.left: dict[str, RunReader] = {}
        """The readers of the runs untracked in this batch (those held by their rows may
        be revived)."""
