"""The price data imported ahead of a first listing's reading, where its runs will need it.

A listing that reads every run reads every agent transcript; where they carry the usage of
a model the rate book does not hold (`wftop.core.cost.ratebook`: a user's first listing
ever), each reading process imports genai_prices and pydantic when it first prices a
message, after it is forked: about 0.27 s of CPU in each. Imported by the parent while its
walkers walk (`wftop.core.index.walkers.in_walkers`), before the readers are forked, it is
imported once and beside the walk. One transcript tells whether it will be needed: the
first of the first run folder found (`first_transcript`); a listing whose transcripts carry
no usage, or whose models the book holds, imports nothing ahead.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

import orjson

from wftop.core.cost.prices import SYNTHETIC, known, price_data
from wftop.core.cost.ratebook import RATES, RateBook

MOST_FOLDERS = 64
"""Folders looked in for a run's first transcript at most (a tree of sessions without a
run is given up on, and nothing imported ahead)."""

SAMPLE_BYTES = 1 << 16
"""What is read of the transcript: its first lines say which model answered."""


def price_ahead(roots: Iterable[str], spends: Path | None) -> bool:
    """Import the price data now (and find the model there) when the first transcript under
    ``roots`` has a response of a model that the rate book in folder ``spends`` (None: no
    book) does not hold; whether it did."""
    path = first_transcript(roots)
    if path is None:
        return False
    model = _first_model(path)
    if model is None:
        return False
    if spends is not None:
        book = RateBook(spends / RATES, price_data()["version"], writable=False)
        if book.schedule(model) is not None:
            return False
    known(model)  # the package imported, its data built and the model found, kept
    return True


def first_transcript(roots: Iterable[str]) -> str | None:
    """The first agent transcript of the first run folder found under ``roots``
    (``projects/<project>/<session>/subagents/workflows/wf_*/agent-*.jsonl``), looking in
    at most `MOST_FOLDERS` folders; None: none found."""
    budget = [MOST_FOLDERS]
    for root in roots:
        for project in _names(os.path.join(root, "projects"), budget, dirs=True):
            for session in _names(project, budget, dirs=True):
                runs = os.path.join(session, "subagents", "workflows")
                for run in _names(runs, budget, dirs=True, prefix="wf_"):
                    for found in _names(run, budget, dirs=False, prefix="agent-"):
                        if found.endswith(".jsonl"):
                            return found
                if budget[0] <= 0:
                    return None
    return None


def _names(folder: str, budget: list[int], *, dirs: bool, prefix: str = "") -> Iterator[str]:
    """The entries of ``folder`` (folders, or files), by path, while ``budget`` lasts."""
    if budget[0] <= 0:
        return
    budget[0] -= 1
    try:
        with os.scandir(folder) as entries:
            found = [
                entry.path
                for entry in entries
                if entry.name.startswith(prefix) and entry.is_dir(follow_symlinks=False) == dirs
            ]
    except (OSError, ValueError):
        return
    yield from found


def _first_model(path: str) -> str | None:
    """The model of the first response with usage in transcript ``path`` (its first
    `SAMPLE_BYTES`); None: none, or the CLI's own."""
    from wftop.core.cost.usage import usage_lines

    try:
        with open(path, "rb") as file:
            data = file.read(SAMPLE_BYTES)
    except (OSError, ValueError):
        return None
    for line in usage_lines(data):
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        message = record.get("message") if isinstance(record, dict) else None
        model = message.get("model") if isinstance(message, dict) else None
        if isinstance(model, str) and model and model != SYNTHETIC:
            return model
    return None
