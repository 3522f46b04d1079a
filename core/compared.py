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

`record` goes further for a frozen class made a few times (settings, services, a screen's
specs): ``@record`` is ``@dataclass(frozen=True)`` whose ``__init__``, ``__setattr__`` and
``__delattr__`` are shared too, written once here, where the data class compiles the three
for each class (about 1.5 M instructions a class, more for many fields); its ``__init__``
reads the fields' defaults at each call, a few microseconds where the compiled one takes
under one: not for a class made by the thousand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, Field, FrozenInstanceError, dataclass, field, fields
from operator import attrgetter
from reprlib import recursive_repr
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T")


def compared(cls: type[T]) -> type[T]:
    """``cls``, a data class made with ``eq=False, repr=False``, with the ``__eq__``,
    ``__hash__`` and ``__repr__`` that ``eq=True, repr=True`` would have made."""
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    assert not params.eq and not params.repr, f"{cls.__qualname__}: eq=False, repr=False"
    return _compared(cls, hashable=params.frozen)


@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
def record(cls: type[T]) -> type[T]:
    """``cls`` as ``@dataclass(frozen=True)`` makes it (its fields, their defaults and
    factories, made by place or by name, compared, hashed and said by its fields, none
    assigned or deleted), its methods shared by every such class: none compiled for it."""
    made: Any = dataclass(init=False, eq=False, repr=False)(cls)  # nothing compiled
    every = fields(made)
    assert not any(each.kw_only for each in every), f"{cls.__qualname__}: no kw_only field"
    made.__made__ = tuple(
        (each.name, each.init, each.default, each.default_factory) for each in every
    )
    made.__fixed__ = frozenset(each.name for each in every)
    made.__init__ = _init
    made.__setattr__ = _setattr
    made.__delattr__ = _delattr
    return _compared(made, hashable=True)


def _init(self: Any, *args: Any, **named: Any) -> None:
    """A record made from its fields' values by place or by name, the rest their defaults,
    as the data class's ``__init__`` does."""
    kind = self.__class__
    made = kind.__made__
    taken = [name for name, init, _default, _factory in made if init]
    if len(args) > len(taken):
        said = f"takes {len(taken) + 1} positional arguments but {len(args) + 1} were given"
        raise TypeError(f"{kind.__qualname__}.__init__() {said}")
    given = dict(zip(taken, args, strict=False))
    for name, value in named.items():
        if name not in taken:
            raise TypeError(
                f"{kind.__qualname__}.__init__() got an unexpected keyword argument {name!r}"
            )
        if name in given:
            raise TypeError(
                f"{kind.__qualname__}.__init__() got multiple values for argument {name!r}"
            )
        given[name] = value
    missing = [
        name
        for name, init, default, factory in made
        if init and name not in given and default is MISSING and factory is MISSING
    ]
    if missing:
        names = " and ".join(repr(name) for name in missing)
        raise TypeError(
            f"{kind.__qualname__}.__init__() missing {len(missing)} required "
            f"positional argument{'s' if len(missing) > 1 else ''}: {names}"
        )
    for name, init, default, factory in made:
        if name in given:
            object.__setattr__(self, name, given[name])
        elif factory is not MISSING:
            object.__setattr__(self, name, factory())
        elif init and default is not MISSING:  # not made by __init__: read from the class
            object.__setattr__(self, name, default)
    post = getattr(self, "__post_init__", None)
    if post is not None:
        post()


def _setattr(self: Any, name: str, value: Any) -> None:
    if "__fixed__" in self.__class__.__dict__ or name in self.__fixed__:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def _delattr(self: Any, name: str) -> None:
    if "__fixed__" in self.__class__.__dict__ or name in self.__fixed__:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


def _compared(cls: type[T], *, hashable: bool) -> type[T]:
    """``cls`` given `_eq`, `_repr` and (``hashable``) `_hash` over its fields."""
    every = fields(cls)  # type: ignore[arg-type]
    hashed = [each.name for each in every if (each.compare if each.hash is None else each.hash)]
    made: Any = cls  # given methods and the fields' getters, as the data class gives its own
    made.__compared__ = staticmethod(_values([each.name for each in every if each.compare]))
    made.__hashed__ = staticmethod(_values(hashed))
    made.__said__ = tuple(each.name for each in every if each.repr)
    made.__eq__ = _eq
    made.__hash__ = _hash if hashable else None
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
