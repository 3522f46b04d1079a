"""A data class's comparison, hash and repr without the code `dataclasses` compiles for each
class: `compared`.

`dataclasses.dataclass` writes each method it makes as source text and compiles it as the
module is imported, for every class: the parse and compile of ``__eq__``, ``__hash__`` and
``__repr__`` are about 1.3 M instructions for a class of a few fields and 5 M for
`wftop.core.row.RunRow`'s 39, on the way to a view's first list. A data class made with
``eq=False, repr=False`` and given to `compared` gets the three from here instead, written
once: each reads the class's fields with one `operator.attrgetter` (the tuple made in C) and
answers as the generated one does, field by field (each field's ``compare``, ``hash`` and
``repr`` respected), the hash given where the data class gives it (frozen: by the fields;
not frozen: none). Not for a class compared by the thousand (`wftop.core.row.RunRow`,
`wftop.core.cost.tokens.Tokens`): the generated method reads each field with the
interpreter's specialised load of a slot, which an attrgetter's generic read of 39 slots
takes about three times as long as (3 us an equal row, against 1.1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from operator import attrgetter
from reprlib import recursive_repr
from typing import Any, TypeVar

T = TypeVar("T")


def compared(cls: type[T]) -> type[T]:
    """``cls``, a data class made with ``eq=False, repr=False``, with the ``__eq__``,
    ``__hash__`` and ``__repr__`` that ``eq=True, repr=True`` would have made."""
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    assert not params.eq and not params.repr, f"{cls.__qualname__}: eq=False, repr=False"
    every = fields(cls)  # type: ignore[arg-type]
    hashed = [each.name for each in every if (each.compare if each.hash is None else each.hash)]
    made: Any = cls  # given methods and the fields' getters, as the data class gives its own
    made.__compared__ = staticmethod(_values([each.name for each in every if each.compare]))
    made.__hashed__ = staticmethod(_values(hashed))
    made.__said__ = tuple(each.name for each in every if each.repr)
    made.__eq__ = _eq
    made.__hash__ = _hash if params.frozen else None
    made.__repr__ = _repr
    return cls


def _values(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The fields' values as one tuple, as the generated methods make it (of one field too)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda value: (one(value),)
    return lambda _value: ()


def _eq(self: Any, other: object) -> Any:
    values: Callable[[Any], tuple[Any, ...]] = self.__compared__
    if other.__class__ is self.__class__:
        return values(self) == values(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self.__hashed__(self))


@recursive_repr()
def _repr(self: Any) -> str:
    said = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__said__)
    return f"{self.__class__.__qualname__}({said})"
