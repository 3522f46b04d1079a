"""A row as wftop prints it is read in a few passes over its fields, not a call a field (a
view reads every row of its engine's snapshot at its start); whatever a row holds, it reads
as the field-by-field reading does, or is refused with the same words."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import orjson
import pytest

from tests.core.test_row import TREES
from wftop.core import row as rowmodule
from wftop.core.index.coldpass import scan_roots
from wftop.core.row import WIRE, RowError, RunRow
from wftop.core.system.procs import FakeProcessTable

ODD = [
    None, "", "x", "completed", "alive", "2026-11-06T09:45:16.591Z", "2026-13-06", -1, 0, 7,
    1.5, -0.5, float("nan"), True, False, [], ["a"], [1], [None], {}, {"done": -1},
    {"done": 2, "cached": 1}, {"input": "7"}, [{"label": "a", "kind": "api_error"}],
    [{"label": "a", "kind": "?"}],
]  # fmt: skip
"""Values put in each field of a real row in turn: right and wrong types, out-of-range
numbers, words that are and are not statuses, times that are and are not."""


def printed_rows() -> list[dict[str, Any]]:
    """Every run of every tree the real CLI wrote, as its row's JSON reads back."""
    runs = [run for tree in TREES for run in scan_roots([tree], processes=FakeProcessTable()).runs]
    return [orjson.loads(orjson.dumps(RunRow.of(run).to_json())) for run in runs]


def outcome(data: Mapping[str, Any], host: str | None = None) -> tuple[str, object]:
    try:
        return "row", RunRow.from_json(data, host=host)
    except RowError as error:
        return "refused", str(error)


def field_by_field(data: dict[str, Any], host: str | None = None) -> tuple[str, object]:
    """The reading of a row that is not a `dict`: each field by its `Wire.load`."""
    return outcome(MappingProxyType(data), host)


def test_a_row_as_wftop_prints_it_is_read_without_a_call_per_field(monkeypatch):
    calls: list[str] = []

    def counted(name: str, load: Any) -> Any:
        def each(value: Any, key: str) -> Any:
            calls.append(name)
            return load(value, key)

        return each

    monkeypatch.setattr(rowmodule, "LOADS", [(n, counted(n, load)) for n, load in rowmodule.LOADS])
    rows = printed_rows()
    assert len(rows) > 10
    read = [outcome(data) for data in rows]
    assert not calls  # every row was read in its few passes
    assert read == [field_by_field(data) for data in rows]  # which call each loader
    assert len(calls) == sum(len(data) for data in rows)


@pytest.mark.parametrize("name", [name for name, _kind in WIRE])
def test_any_value_of_any_field_reads_as_the_field_by_field_reading_says(name):
    rows = printed_rows()
    varied = [{key: value for key, value in rows[0].items() if key != name}]
    varied += [{**data, name: value} for data in rows[:3] for value in ODD]
    for data in varied:
        assert outcome(data) == field_by_field(data), (name, data.get(name))
        assert outcome(data, "far") == field_by_field(data, "far"), (name, data.get(name))


def test_every_row_the_real_cli_made_reads_back_equal_and_shares_its_text():
    rows = printed_rows()
    for data in rows:
        kind, read = outcome(data)
        assert kind == "row" and read == field_by_field(data)[1]
        assert isinstance(read, RunRow)
        again = RunRow.from_json(orjson.loads(orjson.dumps(data)))
        for name in ("root", "project", "project_name", "cwd", "name"):
            assert getattr(again, name) is getattr(read, name), name
    for data in rows:
        far = RunRow.from_json(data, host="far")
        assert far.host == "far" and far.ident.endswith(f"@far:{data['root']}")
