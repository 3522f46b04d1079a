"""A class made by `record` is the frozen data class ``@dataclass(frozen=True)`` makes (its
fields made by place or by name, their defaults and factories, none assigned or deleted,
compared, hashed and said by its fields), with no method compiled for it: its ``__init__``,
``__setattr__`` and ``__delattr__`` are shared, as its comparison, hash and repr are."""

from __future__ import annotations

import dataclasses
from dataclasses import FrozenInstanceError, asdict, dataclass, field, fields, replace
from typing import Any

import pytest

from wftop.core import compared as compared_module
from wftop.core.compared import record
from wftop.core.config import Config, SuperviseConfig
from wftop.core.engine.early import Early
from wftop.tui.services import Services
from wftop.tui.store import Change, Progress


def body() -> dict[str, Any]:
    return {
        "__annotations__": {
            "a": "int",
            "b": "str",
            "c": "Any",
            "d": "list[int]",
            "e": "int",
            "f": "int",
        },
        "b": "x",
        "c": field(default=None, repr=False),
        "d": field(default_factory=list, compare=False),
        "e": field(default=0, hash=False),
        "f": field(default=7, init=False),
    }


def twins() -> tuple[type, type]:
    """The same class made by `record` and by ``@dataclass(frozen=True)``."""
    return record(type("Pair", (), body())), dataclass(frozen=True)(type("Pair", (), body()))


MADE = [
    ((1,), {}),
    ((1, "y"), {}),
    ((1,), {"b": "z", "e": 3}),
    ((), {"a": 2, "d": [1, 2]}),
    ((1, "x", 5, [3], 4), {}),
]
REFUSED = [
    ((), {}),  # a required field missing
    ((1, "x", None, [], 0, 9), {}),  # one value too many
    ((1,), {"a": 2}),  # a field twice
    ((1,), {"f": 2}),  # a field not made by __init__
    ((1,), {"g": 2}),  # no such field
]


def test_a_record_is_made_as_the_frozen_data_class_is() -> None:
    ours, theirs = twins()
    for args, named in MADE:
        mine, other = ours(*args, **named), theirs(*args, **named)
        assert vars(mine) == vars(other)
        assert repr(mine) == repr(other)
        assert hash(mine) == hash(other)
        assert asdict(mine) == asdict(other)
        assert vars(replace(mine, b="w")) == vars(replace(other, b="w"))
    assert ours(1).d is not ours(1).d  # a factory's value for each
    for args, named in REFUSED:
        with pytest.raises(TypeError):
            theirs(*args, **named)
        with pytest.raises(TypeError):
            ours(*args, **named)
    assert [each.name for each in fields(ours)] == [each.name for each in fields(theirs)]
    assert ours.__match_args__ == theirs.__match_args__


def test_a_record_compares_and_hashes_by_its_fields() -> None:
    ours, theirs = twins()
    values = [
        (1, "x", None, [], 0),
        (1, "x", [1], [5], 0),
        (1, "y", None, [], 0),
        (1, "x", 3, [], 9),
    ]
    for left in values:
        for right in values:
            assert (ours(*left) == ours(*right)) is (theirs(*left) == theirs(*right))
            assert (ours(*left) != ours(*right)) is (theirs(*left) != theirs(*right))
    assert ours(1) != theirs(1) and ours(1).__eq__(theirs(1)) is NotImplemented
    with pytest.raises(TypeError):  # a list among the fields hashed, as the data class's
        hash(ours(1, "x", [1]))


def test_a_record_is_frozen() -> None:
    ours, _theirs = twins()
    made = ours(1)
    for name in ("a", "f", "other"):
        with pytest.raises(FrozenInstanceError):
            setattr(made, name, 2)
        with pytest.raises(FrozenInstanceError):
            delattr(made, name)
    assert vars(made) == vars(ours(1))

    class Later(ours):  # type: ignore[misc,valid-type]
        """A plain class below a record: its own names are its to set, the fields not."""

    later = Later(1)
    later.other = 3
    assert later.other == 3
    with pytest.raises(FrozenInstanceError):
        later.a = 2


def test_a_record_runs_its_post_init() -> None:
    seen: list[Any] = []
    made = record(
        type(
            "Checked",
            (),
            {"__annotations__": {"a": "int"}, "__post_init__": lambda self: seen.append(self.a)},
        )
    )
    made(4)
    assert seen == [4]


def test_no_method_is_compiled_for_a_record(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[str] = []
    made = dataclasses._create_fn  # type: ignore[attr-defined]

    def counted(name: str, *args: Any, **kwargs: Any) -> Any:
        compiled.append(name)
        return made(name, *args, **kwargs)

    monkeypatch.setattr(dataclasses, "_create_fn", counted)
    record(type("Pair", (), body()))
    assert compiled == []
    dataclass(frozen=True)(type("Pair", (), body()))
    assert {"__init__", "__setattr__", "__delattr__"} <= set(compiled)


def test_the_settings_and_services_a_view_starts_with_are_records() -> None:
    for kind in (Config, SuperviseConfig, Early, Services, Progress, Change):
        for method in ("__init__", "__setattr__", "__delattr__", "__eq__", "__hash__"):
            assert getattr(kind, method).__module__ == compared_module.__name__, (kind, method)
    config = Config()
    assert config == Config()
    assert replace(config, theme="x") != config and replace(config, theme="x").theme == "x"
    with pytest.raises(FrozenInstanceError):
        config.theme = "x"  # type: ignore[misc]
    assert repr(Progress(1, 2)).startswith("Progress(read=1, total=2")
