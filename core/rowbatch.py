"""A batch of rows as wftop prints them, read a field at a time over every row of the batch
(`PlainBatch`): a view reads every row of its engine's snapshot at its start, 1,000 rows a
message, and each field's check over all of them is one pass in C where a row at a time
(`wftop.core.rowwire.PlainRows`) takes a few calls a field and row.

A batch is read this way only when every row of it is one wftop would print, as
`PlainRows.read` vouches for one; anything else (a field missing or out of order, another
type, a value a field's `Wire.load` would refuse) leaves the whole batch to be read a row at
a time, which says what is wrong with which row. Each value it gives is the one
`PlainRows.read` gives for its row.

The rows of a batch are then made a batch at a time too (`SlotFiller`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from itertools import chain, repeat
from operator import itemgetter, methodcaller
from typing import Any

from wftop.core.cost.tokens import TOKEN_FIELDS, Tokens
from wftop.core.read.verdicts import Liveness
from wftop.core.rowwire import (
    COUNT,
    DOLLARS,
    FAILURES,
    LABELS,
    LIVENESS,
    MAYBE_COUNT,
    MOMENT,
    NAME,
    STATUS,
    TALLY,
    TOKENS,
    RowError,
    Tally,
    Wire,
    plain_types,
)
from wftop.core.status import Status

_UTC = methodcaller("replace", "Z", "+00:00")
_AT_LEAST_0 = (0.0).__le__
"""Whether a number is ≥ 0 (NaN is not)."""


class _Refused(Exception):
    """A batch not every row of which is as wftop prints it: read it a row at a time."""


def _moments(column: Sequence[Any]) -> list[Any]:
    """Each ISO 8601 time of ``column`` in seconds since the epoch, None kept, as
    `wftop.core.read.isotime.parse_iso_time` reads one (`_Refused` at one it refuses)."""
    times = [value for value in column if value is not None] if None in column else column
    try:
        parsed = list(map(datetime.timestamp, map(datetime.fromisoformat, map(_UTC, times))))
    except ValueError:
        raise _Refused from None
    if times is column:
        return parsed
    found = iter(parsed)
    return [None if value is None else next(found) for value in column]


def _counts(column: Sequence[Any], names: tuple[str, ...], make: Callable[..., Any]) -> list[Any]:
    """Each object of counts of ``column`` as its value (``make(*counts)``), one value for
    every row that holds the same counts, when each names ``names`` in order, whole numbers
    ≥ 0 (`_Refused` otherwise: `PlainRows.read` reads other objects its own way)."""
    try:
        counts = list(map(itemgetter(*names), column))  # what `Wire.load` reads of each
    except KeyError:
        raise _Refused from None
    each = list(chain.from_iterable(counts))
    if set(map(type, each)) - {int} or min(each, default=0) < 0:
        raise _Refused
    made = {one: make(*one) for one in set(counts)}
    return list(map(made.__getitem__, counts))


class PlainBatch:
    """Reads a batch of rows (`columns`) whose every row is as wftop prints one with the
    fields ``fields`` (in order; ``sparse`` ones may be left out, read as their defaults)."""

    def __init__(self, fields: tuple[tuple[str, Wire], ...], sparse: dict[str, Any]) -> None:
        self.names = tuple(name for name, _kind in fields)
        self._printed = tuple(name for name in self.names if name not in sparse)
        self._sparse = sorted((self.names.index(name), default) for name, default in sparse.items())
        self._types = [plain_types(kind) for _name, kind in fields]
        self._kinds = [kind for _name, kind in fields]
        self._failures = FAILURES.load
        self._words: dict[Wire, dict[str, Any]] = {
            STATUS: {word.value: word for word in Status},
            LIVENESS: {word.value: word for word in Liveness},
        }

    def _rows(self, datas: Sequence[Any]) -> list[tuple[Any, ...]] | None:
        """The fields' values of every row, one tuple a field (None: not every row is an
        object with the fields as wftop prints them, each once, in order)."""
        if set(map(type, datas)) != {dict}:
            return None
        keys = set(map(tuple, datas))
        if keys != {self.names} and keys != {self._printed}:
            return None
        by_field = list(zip(*map(dict.values, datas), strict=True))
        if keys == {self._printed}:  # each printed without its sparse fields: their defaults
            for at, default in self._sparse:
                by_field.insert(at, (default,) * len(datas))
        return by_field

    def columns(self, datas: Sequence[Any]) -> list[list[Any]] | None:
        """Every field's values over the rows of ``datas``, in ``fields``' order, as
        `PlainRows.read` reads each row's (None: read the batch a row at a time)."""
        if not datas:
            return [[] for _name in self.names]
        return self._checked(self._rows(datas))

    def array_columns(self, arrays: Sequence[Any]) -> list[list[Any]] | None:
        """`columns` of rows each an array of every field's value in ``fields``' order (the
        engine's stream: `wftop.core.row.array_line`), none left out: no key to compare."""
        if not arrays:
            return [[] for _name in self.names]
        if set(map(type, arrays)) != {list} or set(map(len, arrays)) != {len(self.names)}:
            return None
        return self._checked(list(zip(*arrays, strict=True)))

    def _checked(self, by_field: list[tuple[Any, ...]] | None) -> list[list[Any]] | None:
        """Each field's values read (None: read the batch a row at a time)."""
        if by_field is None:
            return None
        try:
            return [
                self._column(kind, allowed, values)
                for kind, allowed, values in zip(self._kinds, self._types, by_field, strict=True)
            ]
        except _Refused:
            return None

    def _column(self, kind: Wire, allowed: frozenset[type], values: Sequence[Any]) -> list[Any]:
        """One field's values over every row, read (`_Refused` at one not as printed)."""
        if not set(map(type, values)) <= allowed:
            raise _Refused
        if kind is NAME:
            if not all(values):
                raise _Refused
        elif kind is COUNT or kind is MAYBE_COUNT or kind is DOLLARS:
            present = [value for value in values if value is not None] if None in values else values
            if not all(map(_AT_LEAST_0, present)):  # NaN is not
                raise _Refused
            if kind is DOLLARS:
                return [None if value is None else float(value) for value in values]
        elif kind is LABELS:
            if set(map(type, chain.from_iterable(values))) - {str}:
                raise _Refused
            return list(map(tuple, values))
        elif kind in self._words:
            words = list(map(self._words[kind].get, values))
            if None in words:
                raise _Refused
            return words
        elif kind is MOMENT:
            return _moments(values)
        elif kind is TALLY:
            return _counts(values, Tally._fields, Tally)
        elif kind is TOKENS:
            return _counts(values, TOKEN_FIELDS, Tokens)
        elif kind is FAILURES:
            try:
                return [self._failures(value, "failures") if value else () for value in values]
            except RowError:
                raise _Refused from None
        return list(values)


class SlotFiller:
    """Makes instances of a slotted class (``cls``: a frozen data class's rows) a batch at a
    time, every slot given: where a frozen class's fields are set one call each (its own
    ``__init__`` calls ``object.__setattr__`` for each, a slot's setter costs as much), each
    instance is made as one of a plain class of the same slots, filled by plain
    assignments (the interpreter's quickest store, into the same places), then given
    ``cls`` as its class, as the interpreter allows between two classes of one layout:
    5,000 rows of 44 fields, 117 -> 46 M instructions. What it makes is a ``cls`` like any
    other (frozen as ``cls`` is)."""

    def __init__(self, cls: type, names: Sequence[str]) -> None:
        """``names``: every slot of ``cls``, in the order `made` takes their values."""
        slots = cls.__dict__.get("__slots__")
        if slots is None or sorted(slots) != sorted(names) or len(set(names)) != len(names):
            raise ValueError(f"{cls.__name__}: name each of its slots once: {slots}")
        if not all(name.isidentifier() for name in names):
            raise ValueError(f"{cls.__name__}: slots must be names: {names}")
        self._cls = cls
        self._plain = type(f"{cls.__name__}Filled", (), {"__slots__": tuple(slots)})
        values = ", ".join(f"v{at}" for at in range(len(names)))
        stores = "".join(f"    row.{name} = v{at}\n" for at, name in enumerate(names))
        made: dict[str, Any] = {}
        exec(f"def fill(row, {values}):\n{stores}", made)  # the slots' names alone, checked
        self._fill: Callable[..., None] = made["fill"]

    def made(self, count: int, columns: Sequence[Iterable[Any]]) -> list[Any]:
        """``count`` instances, the values of each slot in ``columns`` (in ``names``' order),
        one value an instance."""
        rows: list[Any] = list(map(object.__new__, repeat(self._plain, count)))
        deque(map(self._fill, rows, *columns), 0)
        deque(map(setattr, rows, repeat("__class__"), repeat(self._cls)), 0)
        return rows
