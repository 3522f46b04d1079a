"""How each field of a `wftop.core.row.RunRow` crosses a pipe: its `Wire` kind (how its JSON
value is made, and read back checked: `RowError` names the field and what it expected), the
call states' `Tally`, and `wire`, which declares a row field of a kind.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import field
from enum import StrEnum
from typing import Any, NamedTuple

from wftop.core.cost.tokens import TOKEN_FIELDS, Tokens
from wftop.core.read.isotime import parse_iso_time
from wftop.core.read.verdicts import Cause, Liveness
from wftop.core.status import Status, iso_utc


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


_MISSING = object()
"""A field a row does not hold (`PlainRows`)."""

_PLAIN_TYPES: dict[Wire, frozenset[type]] = {
    TEXT: frozenset({str}),
    NAME: frozenset({str}),
    MAYBE_TEXT: frozenset({str, type(None)}),
    COUNT: frozenset({int}),
    MAYBE_COUNT: frozenset({int, type(None)}),
    FLAG: frozenset({bool}),
    LABELS: frozenset({list}),
    STATUS: frozenset({str}),
    LIVENESS: frozenset({str}),
    MOMENT: frozenset({str, type(None)}),
    TALLY: frozenset({dict}),
    DOLLARS: frozenset({float, int, type(None)}),
    TOKENS: frozenset({dict}),
    FAILURES: frozenset({list}),
}
"""The JSON types a field of each kind holds in a row as wftop prints it (`bool` is not an
``int`` here: `type`, not `isinstance`)."""


def plain_types(kind: Wire) -> frozenset[type]:
    """The JSON types a field of ``kind`` holds in a row as wftop prints it."""
    return _PLAIN_TYPES[kind]


def _picker(positions: list[int]) -> Callable[[list[Any]], tuple[Any, ...]]:
    """The values at ``positions`` of a list, as a tuple (`operator.itemgetter`'s, which
    gives one position's value alone)."""
    if len(positions) == 1:
        (only,) = positions
        return lambda values: (values[only],)
    return operator.itemgetter(*positions)


def _loaded(kind: Wire, key: str) -> Callable[[Any], Any]:
    return lambda value: kind.load(value, key)


class _Shared:
    """One value of each set of counts (a row's `Tally`, its `Tokens`) for every row that
    holds the same counts: most of 20,000 rows hold one of a few (made once, held once)."""

    KEPT = 4096
    """Sets of counts kept at most (a set past them is made for its row alone)."""

    def __init__(self, names: tuple[str, ...], make: Callable[[tuple[int, ...]], Any]) -> None:
        self.names = names
        self.ints = tuple(int for _ in names)
        """The types of such counts, one a name (`bool` is not an ``int`` here)."""
        self.make = make
        self.made: dict[tuple[int, ...], Any] = {}

    def one(self, counts: tuple[int, ...]) -> Any:
        """The value of ``counts`` (whole numbers ≥ 0, checked by the caller)."""
        found = self.made.get(counts)
        if found is None:
            found = self.make(counts)
            if len(self.made) < self.KEPT:
                self.made[counts] = found
        return found


class PlainRows:
    """The fields of a row as wftop prints it, read in a few passes over all of them where
    `Wire.load` takes one call a field: a view reads every row of its engine's snapshot
    (20,000 at a start). `read` gives every field's value in ``fields``' order, or None
    for a row it does not vouch for: one missing a field (other than ``sparse`` ones, read
    as their defaults), holding another type than wftop prints, or any value the field's
    `Wire.load` would refuse; the caller then reads it field by field, which says what is
    wrong. Each value it gives is the one `Wire.load` gives."""

    def __init__(self, fields: tuple[tuple[str, Wire], ...], sparse: dict[str, Any]) -> None:
        self.names = tuple(name for name, _kind in fields)
        self._missing = tuple(_MISSING for _ in fields)
        self._allowed = tuple(
            _PLAIN_TYPES[kind] | ({type(_MISSING)} if name in sparse else set())
            for name, kind in fields
        )
        self._verdicts: dict[tuple[type, ...], bool] = {}
        at: dict[Wire, list[int]] = {}
        for number, (_name, kind) in enumerate(fields):
            at.setdefault(kind, []).append(number)
        self._named = _picker(at.get(NAME, []))
        self._counted = _picker(at.get(COUNT, []))
        self._maybe_counts = at.get(MAYBE_COUNT, [])
        self._labels = at.get(LABELS, [])
        words = [(STATUS, Status), (LIVENESS, Liveness)]
        self._words = [
            (number, {word.value: word for word in enum})
            for kind, enum in words
            for number in at.get(kind, [])
        ]
        self._moments = at.get(MOMENT, [])
        self._dollars = at.get(DOLLARS, [])
        counted = [
            (TALLY, _Shared(Tally._fields, Tally._make)),
            (TOKENS, _Shared(TOKEN_FIELDS, lambda counts: Tokens(*counts))),
        ]
        self._counts = [
            (number, shared, _loaded(kind, fields[number][0]))
            for kind, shared in counted
            for number in at.get(kind, [])
        ]
        self._failures = [
            (number, _loaded(FAILURES, fields[number][0])) for number in at.get(FAILURES, [])
        ]
        self._sparse = sorted((self.names.index(name), default) for name, default in sparse.items())
        self._printed = tuple(name for name in self.names if name not in sparse)
        """The keys of a row as wftop prints it without its sparse fields, in order."""

    def _plain(self, types: tuple[type, ...]) -> bool:
        verdict = self._verdicts.get(types)
        if verdict is None:
            verdict = all(map(operator.contains, self._allowed, types))
            if len(self._verdicts) < 256:
                self._verdicts[types] = verdict
        return verdict

    def read(self, data: dict[str, Any]) -> list[Any] | None:
        """Every field's value, as `Wire.load` reads it (None: read the row field by field)."""
        keys = tuple(data)
        if keys == self.names:  # as wftop prints it: each field once, in order
            values = list(data.values())
        elif keys == self._printed:  # the same, without the sparse fields (their defaults)
            values = list(data.values())
            for at, default in self._sparse:
                values.insert(at, default)
        else:
            values = list(map(data.get, self.names, self._missing))
        if not self._plain(tuple(map(type, values))) or not all(self._named(values)):
            return None
        if min(self._counted(values), default=0) < 0:
            return None
        for at in self._maybe_counts:
            if values[at] is not None and values[at] < 0:
                return None
        for at in self._labels:
            labels = values[at]
            if labels and set(map(type, labels)) != {str}:
                return None
            values[at] = tuple(labels)
        for at, members in self._words:
            values[at] = members.get(values[at])
            if values[at] is None:
                return None
        for at in self._moments:
            if values[at] is not None:
                values[at] = parse_iso_time(values[at])
                if values[at] is None:
                    return None
        for at in self._dollars:
            if values[at] is not None:
                if not values[at] >= 0:
                    return None
                values[at] = float(values[at])
        try:
            for at, shared, load in self._counts:
                counts = values[at]
                if tuple(counts) == shared.names:  # as printed: each count once, in order
                    counts = tuple(counts.values())
                    if tuple(map(type, counts)) == shared.ints and min(counts) >= 0:
                        values[at] = shared.one(counts)
                        continue
                values[at] = load(counts)
            for at, load in self._failures:
                values[at] = load(values[at]) if values[at] else ()
        except RowError:
            return None
        for at, default in self._sparse:
            if values[at] is _MISSING:
                values[at] = default
        return values
