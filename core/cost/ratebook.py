"""The rates genai-prices gave a model on a day, kept between processes: `RateBook`.

Importing the package (and pydantic under it) takes a tenth of a second or more, longer
than all else a plan of a small run does, and a plan prices one message (what resending the
owner session's conversation adds when its cache is cold). A process that priced a message
keeps the dollars per million tokens of each kind (`wftop.core.cost.prices.rates`) the
package gave its model on its UTC day, so the next process prices the same model on the same
day with no import. Kept only where the answer is the package's own for that whole day: a
model whose prices change at most from one day to the next (no constraint but a start
date), with no tiers; anything else is asked of the package every time.

One file (``rates.json`` in the spend book's folder), written whole with `atomic_write`,
merged with what another process wrote since it was read; a file of other price data, of
another version or damaged is ignored and written again.
"""

from __future__ import annotations

import contextlib
from decimal import Decimal, InvalidOperation
from pathlib import Path

import orjson

from wftop.core.system.atomic import atomic_write

VERSION = 1
"""Bump whenever what an entry holds changes."""

RATES = "rates.json"
"""The file's name, in the spend book's folder."""

Rates = tuple[Decimal, ...]

KINDS = 5
"""Rates of each kind of token, in the order of `wftop.core.cost.tokens.Tokens`' fields."""


class RateBook:
    """Rates by model and UTC day (``2026-01-31``), kept in file ``path`` for the price data
    ``prices`` (the package's version: the rates of another are not these). No lock: a
    dict's get and set are whole under the interpreter's lock, two threads loading the file
    at once load the same, and a lock held by another thread as a worker is forked would
    stay held in the worker."""

    def __init__(self, path: Path, prices: str | None, *, writable: bool = True) -> None:
        self.path = path
        self.prices = prices
        self.writable = writable
        self._rates: dict[str, Rates] | None = None
        self._new: dict[str, Rates] = {}

    def get(self, model: str, day: str) -> Rates | None:
        """The rates kept for ``model`` on ``day``; None: none kept."""
        if self._rates is None:
            self._rates = self._load()
        return self._rates.get(_key(model, day))

    def put(self, model: str, day: str, rates: Rates) -> None:
        """Keep the package's rates for ``model`` on ``day`` (written at `save`)."""
        if self._rates is None:
            self._rates = self._load()
        key = _key(model, day)
        if self._rates.get(key) != rates:
            self._rates[key] = self._new[key] = rates

    def save(self) -> None:
        """Write what this process learned, with what the file holds now. Nothing is raised:
        a rate not kept costs the next process an import, never an answer."""
        new, self._new = self._new, {}
        if not new or not self.writable or self.prices is None:
            return
        kept = self._load() | new
        entries = {key: [str(rate) for rate in rates] for key, rates in kept.items()}
        data = orjson.dumps({"version": VERSION, "prices": self.prices, "rates": entries})
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            atomic_write(self.path, data, sync=False)

    def _load(self) -> dict[str, Rates]:
        """What the file holds (nothing when it is missing, foreign or damaged)."""
        try:
            kept = orjson.loads(self.path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return {}
        if (
            not isinstance(kept, dict)
            or kept.get("version") != VERSION
            or self.prices is None
            or kept.get("prices") != self.prices
            or not isinstance(kept.get("rates"), dict)
        ):
            return {}
        found: dict[str, Rates] = {}
        for key, rates in kept["rates"].items():
            if (
                isinstance(rates, list)
                and len(rates) == KINDS
                and all(type(rate) is str for rate in rates)
            ):
                try:
                    numbers = tuple(Decimal(rate) for rate in rates)
                except InvalidOperation:
                    continue
                if all(number.is_finite() and number >= 0 for number in numbers):
                    found[key] = numbers
        return found


def _key(model: str, day: str) -> str:
    return f"{day} {model}"
