"""A message of the engine's stream whose every row is an array of its fields' values as
wftop sends one (`wftop.core.row.array_line`) is read a field at a time over all its rows
(`RunRow.batch_from_arrays`), not a row at a time (a view reads every row of its engine's
snapshot at its start); whatever a message holds, it reads as the row at a time reading
says, each bad row named. Rows as ``ls`` prints them (objects) read so too
(`RunRow.batch_from_json`)."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass, field, replace
from typing import Any

import orjson
import pytest

from tests.core.test_row_plain import ODD, printed_rows
from wftop.core import row as rowmodule
from wftop.core.engine import protocol
from wftop.core.row import WIRE, WIRE_NAMES, RunRow, array_line
from wftop.core.rowbatch import SlotFiller


def arrays(datas: list[Any]) -> list[Any]:
    """Rows as ``ls`` prints them (objects), each as the stream sends it: an array."""
    return [orjson.loads(array_line(data)) for data in datas]


def message(items: list[Any]) -> bytes:
    return protocol.rows_line(0, [orjson.dumps(item) for item in items], final=False)


def row_at_a_time(items: list[Any]) -> tuple[tuple[RunRow, ...], tuple[str, ...]]:
    """The rows and refusals of a ``rows`` message, each row read by `RunRow.from_array`."""
    return protocol.rows_each(items, "rows")


def decoded(items: list[Any]) -> tuple[tuple[RunRow, ...], tuple[str, ...]]:
    found = protocol.decode(message(items))
    assert isinstance(found, protocol.Rows)
    return found.rows, found.rejected


class Counted:
    """`rowmodule.PLAIN`, counting the rows it reads one at a time."""

    def __init__(self) -> None:
        self.plain, self.calls = rowmodule.PLAIN, 0

    def read(self, data: dict[str, Any]) -> list[Any] | None:
        self.calls += 1
        return self.plain.read(data)


def test_a_message_of_rows_as_wftop_sends_them_is_read_without_a_call_a_row(monkeypatch):
    datas = printed_rows()
    pending = [replace(RunRow.from_json(data), cost_pending=True).to_json() for data in datas]
    expected = [row_at_a_time(arrays(datas)), row_at_a_time(arrays(pending))]
    assert expected[0][0] == tuple(map(RunRow.from_json, datas)) and not expected[0][1]
    counted = Counted()
    monkeypatch.setattr(rowmodule, "PLAIN", counted)
    read = [decoded(arrays(datas)), decoded(arrays(pending))]
    assert counted.calls == 0
    assert read == expected
    assert all(row.cost_pending for row in read[1][0])
    for (rows, _rejected), (want, _) in zip(read, expected, strict=True):
        assert [row.ident for row in rows] == [row.ident for row in want]
        assert [row.shown_status for row in rows] == [row.shown_status for row in want]
    again = decoded(arrays(datas))[0]
    for first, second in zip(read[0][0], again, strict=True):
        for name in ("root", "project", "project_name", "cwd", "name"):
            assert getattr(first, name) is getattr(second, name), name


def test_a_row_is_every_field_s_value_in_print_order_a_sparse_one_too():
    for data in printed_rows():
        assert orjson.loads(array_line(data)) == [
            data.get(name, RunRow.__dataclass_fields__[name].default) for name in WIRE_NAMES
        ]
        assert RunRow.from_array(orjson.loads(array_line(data))) == RunRow.from_json(data)


@pytest.mark.parametrize("name", [name for name, _kind in WIRE])
def test_any_value_of_any_field_in_a_message_reads_as_a_row_at_a_time_says(name):
    datas = arrays(printed_rows()[:4])
    at = WIRE_NAMES.index(name)
    assert RunRow.batch_from_arrays(datas) == list(row_at_a_time(datas)[0])
    varied = [[datas[0], [*datas[1], 1], *datas[2:]]]  # a value too many
    varied += [[datas[0], datas[1][:at] + datas[1][at + 1 :], *datas[2:]]]  # one too few
    odd = [[*datas[1][:at], value, *datas[1][at + 1 :]] for value in ODD]
    varied += [[datas[0], row, *datas[2:]] for row in odd]
    varied += [[*datas, 7], [*datas, printed_rows()[0]], [*datas, None]]
    for batch in varied:
        rows, rejected = row_at_a_time(batch)
        read = RunRow.batch_from_arrays(batch)
        assert read is None or (read == list(rows) and not rejected), batch
        assert decoded(batch) == row_at_a_time(orjson.loads(orjson.dumps(batch))), batch


@pytest.mark.parametrize("name", [name for name, _kind in WIRE])
def test_any_value_of_any_field_of_printed_rows_reads_as_a_row_at_a_time_says(name):
    datas = printed_rows()[:4]
    assert RunRow.batch_from_json(datas) == list(map(RunRow.from_json, datas))
    varied = [[data for data in datas if data is not datas[1]] + [{**datas[1]} | {"x": 1}]]
    varied += [[{key: value for key, value in datas[1].items() if key != name}, *datas[2:]]]
    varied += [[datas[0], {**datas[1], name: value}, *datas[2:]] for value in ODD]
    varied += [[*datas, {**datas[0], "cost_pending": True}], [*datas, 7]]
    for batch in varied:
        read = RunRow.batch_from_json(batch)
        if read is not None:
            assert read == [RunRow.from_json(data) for data in batch], batch


class Setters:
    """A row's slot setters (`rowmodule.SETTERS`, `rowmodule.UNSENT`), counting their calls."""

    def __init__(self) -> None:
        self.calls = 0

    def counted(self, setter: Any) -> Any:
        def set_one(row: RunRow, value: Any) -> None:
            self.calls += 1
            setter(row, value)

        return set_one


def test_a_message_s_rows_are_made_without_a_call_a_field_and_are_rows_as_any(monkeypatch):
    datas = arrays(printed_rows())
    expected = row_at_a_time(datas)
    setters = Setters()
    monkeypatch.setattr(rowmodule, "SETTERS", tuple(map(setters.counted, rowmodule.SETTERS)))
    unsent = tuple((setters.counted(setter), default) for setter, default in rowmodule.UNSENT)
    monkeypatch.setattr(rowmodule, "UNSENT", unsent)
    rows, rejected = decoded(datas)
    assert setters.calls == 0
    assert (rows, rejected) == expected
    assert {type(row) for row in rows} == {RunRow}
    assert [hash(row) for row in rows] == [hash(row) for row in expected[0]]
    assert [(row.ident, row.shown_status, row.stale) for row in rows] == [
        (row.ident, row.shown_status, row.stale) for row in expected[0]
    ]
    with pytest.raises(FrozenInstanceError):
        rows[0].run_id = "another"  # type: ignore[misc]


@dataclass(frozen=True, slots=True)
class Pair:
    left: int
    right: str = "r"
    total: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "total", self.left * 2)


def test_a_slot_filler_makes_instances_of_its_class_as_its_constructor_does():
    filler = SlotFiller(Pair, ("right", "left", "total"))
    made = filler.made(3, [["a", "b", "c"], range(3), (0, 2, 4)])
    assert made == [Pair(0, "a"), Pair(1, "b"), Pair(2, "c")]
    assert {type(pair) for pair in made} == {Pair}
    assert [hash(pair) for pair in made] == [hash(Pair(at, word)) for at, word in enumerate("abc")]
    with pytest.raises(FrozenInstanceError):
        made[0].left = 5  # type: ignore[misc]
    for names in [("left", "right"), ("left", "right", "total", "total"), ("left", "x", "total")]:
        with pytest.raises(ValueError, match="each of its slots"):
            SlotFiller(Pair, names)
