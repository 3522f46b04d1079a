"""A journal file read into its fold, and read once while nothing changes it.

Planning a resume asks for the fold of the same journal several times: the plan, the heal
of the surgical strategy, the forensics of why the run stopped (which digests every run
its session launched). A run of 100,000 calls took half a second to fold each time. Inside
`reading_once`, the fold of a journal whose size and time are those of the fold kept for
it is that fold (a run already read can hand its own in: ``known``); outside, every ask
reads the file.

The folds handed out are shared: a caller reads them and never feeds them lines.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from wftop.core.read.journal import JournalFold
from wftop.core.read.jsonl import read_all

Stamp = tuple[int, float]
"""(size, mtime) of a journal."""

_kept: ContextVar[dict[str, tuple[Stamp, JournalFold]] | None] = ContextVar(
    "journal folds kept", default=None
)


@contextmanager
def reading_once(
    known: Mapping[str, tuple[tuple[int, float], JournalFold]] | None = None,
) -> Iterator[None]:
    """While this lasts, `journal_fold` keeps what it reads (and starts from ``known``:
    path → (the stamp it was read at, its fold))."""
    token = _kept.set(dict(known or {}))
    try:
        yield
    finally:
        _kept.reset(token)


def journal_fold(path: str) -> JournalFold:
    """The fold of every record of the journal at ``path`` (empty when it cannot be read)."""
    kept = _kept.get()
    stamp: Stamp | None = None
    if kept is not None:
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            info = None
        if info is not None:
            stamp = (info.st_size, info.st_mtime)
            hit = kept.get(path)
            if hit is not None and hit[0] == stamp:
                return hit[1]
    fold = JournalFold().feed_all(read_all(path).records)
    if kept is not None and stamp is not None:
        kept[path] = (stamp, fold)
    return fold
