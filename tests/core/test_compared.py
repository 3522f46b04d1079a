"""A data class given `compared` (made with ``eq=False, repr=False``) compares, hashes and
says itself as the same data class made with ``eq=True, repr=True`` does, field by field,
without the methods compiled for each class as its module is imported."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from wftop.core.compared import compared
from wftop.core.config import Config
from wftop.core.cost.tokens import Tokens
from wftop.core.row import RunRow
from wftop.core.text.redact import Redactor
from wftop.tui.services import Services


def twins(**options: Any) -> tuple[type, type]:
    """The same class made by `compared` and by `dataclass` alone."""

    def body() -> dict[str, Any]:
        return {
            "__annotations__": {"a": "int", "b": "str", "c": "Any", "d": "int", "e": "int"},
            "b": "x",
            "c": field(default=None, repr=False),
            "d": field(default=0, compare=False),
            "e": field(default=0, hash=False),
        }

    ours = compared(dataclass(**options, eq=False, repr=False)(type("Pair", (), body())))
    theirs = dataclass(**options)(type("Pair", (), body()))
    return ours, theirs


@pytest.mark.parametrize(
    "options", [{}, {"frozen": True}, {"frozen": True, "slots": True}, {"slots": True}]
)
def test_a_compared_class_answers_as_a_data_class_does(options: dict[str, Any]) -> None:
    ours, theirs = twins(**options)
    values = [(1, "x", None, 0, 0), (1, "x", [1], 5, 0), (1, "y", None, 0, 0), (2, "x", 3, 0, 9)]
    for left in values:
        for right in values:
            assert (ours(*left) == ours(*right)) is (theirs(*left) == theirs(*right))
            assert (ours(*left) != ours(*right)) is (theirs(*left) != theirs(*right))
        assert repr(ours(*left)) == repr(theirs(*left))
        if theirs.__hash__ is None:
            assert ours.__hash__ is None
            continue
        try:
            hashed = hash(theirs(*left))
        except TypeError:  # a list among the fields hashed
            with pytest.raises(TypeError):
                hash(ours(*left))
        else:
            assert hash(ours(*left)) == hashed
    assert ours(1) != theirs(1) and ours(1) != (1, "x")  # another class is never equal
    assert ours(1).__eq__(theirs(1)) is NotImplemented


def test_one_field_no_field_and_a_repr_of_itself() -> None:
    for names in ({"a": "int"}, {}):
        ours = compared(
            dataclass(frozen=True, eq=False, repr=False)(
                type("One", (), {"__annotations__": names})
            )
        )
        theirs = dataclass(frozen=True)(type("One", (), {"__annotations__": dict(names)}))
        made = [1] if names else []
        assert hash(ours(*made)) == hash(theirs(*made)) and repr(ours(*made)) == repr(theirs(*made))
    ours, theirs = twins()
    mine, other = ours(1, "x"), theirs(1, "x")
    mine.a, other.a = mine, other  # a field that holds its own instance
    assert repr(mine) == repr(other) == "Pair(a=..., b='x', d=0, e=0)"


def test_a_refusal_where_the_class_made_its_own() -> None:
    with pytest.raises(AssertionError):
        compared(dataclass(frozen=True)(type("Made", (), {"__annotations__": {"a": "int"}})))


def test_the_rows_and_settings_a_view_starts_with_are_compared_so() -> None:
    """The data classes a view makes as it starts get no comparison, hash or repr compiled
    for each (the parent's did), and answer as before; the rows and their tokens, compared
    by the thousand as a view follows its engine, keep the generated ones (their fields
    read by the interpreter's specialised loads: an equal row compares in about 1.1 us,
    where an attrgetter's read of its 39 slots takes about 3)."""
    for kind in (Config, Services, Redactor):
        for method in ("__eq__", "__hash__", "__repr__"):
            made = getattr(kind, method)
            if kind is Redactor and method == "__hash__":
                assert made is None  # not frozen: unhashable, as the data class made it
            else:
                assert made.__module__ == "wftop.core.compared", (kind, method)
    row = RunRow(run_id="wf_1", session_id="s", project="p")
    assert row == replace(row) and hash(row) == hash(replace(row))
    assert row != replace(row, calls=1)
    assert repr(row).startswith("RunRow(run_id='wf_1', session_id='s', project='p', ")
    assert repr(Tokens(1, 2)).startswith("Tokens(input=1, output=2")
