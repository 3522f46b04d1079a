"""How each field of a `wftop.core.row.RunRow` crosses a pipe: its `Wire` kind (how its JSON
value is made, and read back checked: `RowError` names the field and what it expected), the
call states' `Tally`, and `wire`, which declares a row field of a kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from enum import StrEnum
from typing import Any, NamedTuple

from wftop.core.cost.tokens import TOKEN_FIELDS, Tokens
from wftop.core.model import Status, iso_utc
from wftop.core.read.errors import Cause
from wftop.core.read.sessions import Liveness
from wftop.core.read.snapshot import parse_iso_time


class RowError(ValueError):
    """A row that is not a run: the message names the field and what it expected."""


class Tally(NamedTuple):
    """How many of a run's calls stand in each state of `wftop.core.calls.State`
    (`wftop.core.model.count_calls`)."""

    done: int = 0
    cached: int = 0
    """Returned because the resume that wrote the current snapshot served them from cache."""
    failed: int = 0
    running: int = 0
    dead: int = 0
    """Open, and nothing will finish them: their process died, or their run ended."""

    @property
    def total(self) -> int:
        return self.done + self.cached + self.failed + self.running + self.dead


class Wire(NamedTuple):
    """How one field of a row crosses a pipe: ``dump`` makes its JSON value, ``load`` reads
    one back (`RowError` naming ``key`` when it is not such a value)."""

    dump: Callable[[Any], Any]
    load: Callable[[Any, str], Any]


def wrong(key: str, expected: str, value: Any) -> RowError:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return RowError(f"{key}: expected {expected}, got {shown}")


def _same(value: Any) -> Any:
    return value


def _text(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise wrong(key, "a string", value)
    return value


def _name(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value:
        raise wrong(key, "a non-empty string", value)
    return value


def _maybe_text(value: Any, key: str) -> str | None:
    return None if value is None else _text(value, key)


def _count(value: Any, key: str) -> int:
    if type(value) is not int or value < 0:
        raise wrong(key, "a whole number ≥ 0", value)
    return value


def _maybe_count(value: Any, key: str) -> int | None:
    return None if value is None else _count(value, key)


def _flag(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise wrong(key, "true or false", value)
    return value


def _labels(value: Any, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise wrong(key, "a list of strings", value)
    return tuple(value)


def _failures(value: Any, key: str) -> tuple[tuple[str, str], ...]:
    expected = "a list of {label, kind} objects"
    if not isinstance(value, list):
        raise wrong(key, expected, value)
    found = []
    for item in value:
        if not isinstance(item, dict):
            raise wrong(key, expected, item)
        label, kind = item.get("label"), item.get("kind")
        if not isinstance(label, str) or kind not in KINDS:
            raise wrong(key, f"{expected} (kind one of the kinds of docs/forensics.md)", item)
        found.append((label, kind))
    return tuple(found)


def _word(words: type[StrEnum]) -> Callable[[Any, str], Any]:
    """A reader of one of the words of ``words`` (a `StrEnum`)."""

    def load(value: Any, key: str) -> Any:
        try:
            return words(value)
        except ValueError:
            names = ", ".join(word.value for word in words)
            raise wrong(key, f"one of {names}", value) from None

    return load


def moment(value: Any, key: str) -> float | None:
    if value is None:
        return None
    moment = parse_iso_time(value)
    if moment is None:
        raise wrong(key, "an ISO 8601 time or null", value)
    return moment


def _counts(value: Any, key: str, names: tuple[str, ...]) -> list[int]:
    """The counts ``names`` of an object (0 where one is missing), each a whole number ≥ 0
    (`RowError` naming the first that is not)."""
    if not isinstance(value, dict):
        raise wrong(key, f"an object of counts ({', '.join(names)})", value)
    counts = [value.get(name, 0) for name in names]
    for count in counts:
        if type(count) is not int or count < 0:
            for name, each in zip(names, counts, strict=True):
                _count(each, f"{key}.{name}")
    return counts


def _tally(value: Any, key: str) -> Tally:
    return Tally._make(_counts(value, key, Tally._fields))


def _dollars(value: Any, key: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise wrong(key, "a number of dollars ≥ 0 or null", value)
    return float(value)


def _tokens(value: Any, key: str) -> Tokens:
    return Tokens(*_counts(value, key, TOKEN_FIELDS))


TEXT = Wire(_same, _text)
NAME = Wire(_same, _name)
MAYBE_TEXT = Wire(_same, _maybe_text)
COUNT = Wire(_same, _count)
MAYBE_COUNT = Wire(_same, _maybe_count)
FLAG = Wire(_same, _flag)
LABELS = Wire(list, _labels)
STATUS = Wire(lambda status: status.value, _word(Status))
LIVENESS = Wire(lambda liveness: liveness.value, _word(Liveness))
MOMENT = Wire(iso_utc, moment)
TALLY = Wire(lambda tally: tally._asdict(), _tally)
DOLLARS = Wire(lambda cost: None if cost is None else round(cost, 6), _dollars)
TOKENS = Wire(lambda tokens: tokens.to_json(), _tokens)
FAILURES = Wire(lambda pairs: [{"label": label, "kind": kind} for label, kind in pairs], _failures)
KINDS = frozenset(kind.value for kind in Cause)


def wire(kind: Wire, **options: Any) -> Any:
    """A row field that crosses the wire as ``kind`` (``options``: `dataclasses.field`'s)."""
    return field(metadata={"wire": kind}, **options)
