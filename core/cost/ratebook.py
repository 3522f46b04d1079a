"""The rates genai-prices gives a model, kept between processes: `RateBook`.

Importing the package (and pydantic under it) takes a quarter of a second or more, longer
than all else a plan of a small run does, and than a listing's first read of a few hundred
runs. A process that priced a model keeps what the package says of it: its schedule, the
dollars per million tokens of each kind (`wftop.core.cost.prices.rates`) from each day its
prices start (`on_day` picks a day's as the package does), or that it prices no such model.
The next process prices the same model on any day with no import. Kept only where the
answer is the package's own for every whole day: a model whose prices change at most from
one day to the next (no constraint but a start date); a period of prices with tiers is kept
as such (its messages are priced by the package, one by one), and anything else is asked of
the package every time. The package's data is its bundled snapshot, never updated while it
is installed: the rates of one version of it hold as long as that version does.

One file (``rates.json`` in the spend book's folder), written whole with `atomic_write`,
merged with what another process wrote since it was read; a file of other price data, of
another version or damaged is ignored and written again. Listings read it whether or not
they use their rows cache (``--no-cache``: it keeps the package's answers, not a run's).
"""

from __future__ import annotations

import contextlib
from decimal import Decimal, InvalidOperation
from pathlib import Path

import orjson

from wftop.core.system.atomic import atomic_write

VERSION = 2
"""Bump whenever what an entry holds changes (2: a model's schedule, where 1 kept its rates
by day)."""

RATES = "rates.json"
"""The file's name, in the spend book's folder."""

Rates = tuple[Decimal, ...]

Schedule = tuple[tuple[str | None, Rates | None], ...]
"""A model's prices as the package holds them, in its order: from which UTC day
(``2026-01-31``; None: any day) each applies, and its rates (None: prices with tiers, each
message priced alone). Empty: the package prices no such model."""

KINDS = 5
"""Rates of each kind of token, in the order of `wftop.core.cost.tokens.Tokens`' fields."""


class RateBook:
    """Models' schedules, kept in file ``path`` for the price data ``prices`` (the package's
    version: the rates of another are not these). No lock: a dict's get and set are whole
    under the interpreter's lock, two threads loading the file at once load the same, and a
    lock held by another thread as a worker is forked would stay held in the worker."""

    def __init__(self, path: Path, prices: str | None, *, writable: bool = True) -> None:
        self.path = path
        self.prices = prices
        self.writable = writable
        self._models: dict[str, Schedule] | None = None
        self._new: dict[str, Schedule] = {}

    def schedule(self, model: str) -> Schedule | None:
        """What is kept of ``model`` (`Schedule`); None: nothing."""
        if self._models is None:
            self._models = self._load()
        return self._models.get(model)

    def get(self, model: str, day: str) -> Rates | None:
        """The rates kept for ``model`` on UTC day ``day``; None: none kept, or the package
        has none of it, or they have tiers."""
        found = self.schedule(model)
        return on_day(found, day) if found else None

    def put(self, model: str, schedule: Schedule) -> None:
        """Keep the package's ``schedule`` of ``model`` (written at `save`)."""
        if self._models is None:
            self._models = self._load()
        if self._models.get(model) != schedule:
            self._models[model] = self._new[model] = schedule

    def save(self) -> None:
        """Write what this process learned, with what the file holds now. Nothing is raised:
        a rate not kept costs the next process an import, never an answer."""
        new, self._new = self._new, {}
        if not new or not self.writable or self.prices is None:
            return
        kept = self._load() | new
        models = {
            model: [
                [start, None if rates is None else [str(rate) for rate in rates]]
                for start, rates in schedule
            ]
            for model, schedule in kept.items()
        }
        data = orjson.dumps({"version": VERSION, "prices": self.prices, "models": models})
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            atomic_write(self.path, data, sync=False)

    def _load(self) -> dict[str, Schedule]:
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
            or not isinstance(kept.get("models"), dict)
        ):
            return {}
        found: dict[str, Schedule] = {}
        for model, schedule in kept["models"].items():
            read = _schedule(schedule)
            if read is not None:
                found[model] = read
        return found


def on_day(schedule: Schedule, day: str) -> Rates | None:
    """The rates of ``schedule`` on UTC day ``day``, chosen as the package chooses a
    model's prices (the last that has started, or applies any day; else the first)."""
    for start, rates in reversed(schedule):
        if start is None or start <= day:
            return rates
    return schedule[0][1]


def _schedule(kept: object) -> Schedule | None:
    """A schedule as the file holds it, checked (None: damaged)."""
    if not isinstance(kept, list):
        return None
    found: list[tuple[str | None, Rates | None]] = []
    for entry in kept:
        if not isinstance(entry, list) or len(entry) != 2:
            return None
        start, rates = entry
        if start is not None and not _is_day(start):
            return None
        if rates is None:
            found.append((start, None))
            continue
        numbers = _rates(rates)
        if numbers is None:
            return None
        found.append((start, numbers))
    return tuple(found)


def _is_day(kept: object) -> bool:
    """Whether ``kept`` is a UTC day as `datetime.date.isoformat` writes it (``2026-01-31``:
    days compare as text)."""
    if type(kept) is not str or len(kept) != 10 or kept[4] != "-" or kept[7] != "-":
        return False
    digits = kept[:4] + kept[5:7] + kept[8:]
    return digits.isascii() and digits.isdigit()


def _rates(kept: object) -> Rates | None:
    if not (isinstance(kept, list) and len(kept) == KINDS and all(type(r) is str for r in kept)):
        return None
    try:
        numbers = tuple(Decimal(rate) for rate in kept)
    except InvalidOperation:
        return None
    return numbers if all(number.is_finite() and number >= 0 for number in numbers) else None
