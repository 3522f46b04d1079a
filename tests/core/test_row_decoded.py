"""Every row a view decodes is, field by field and type by type, the row the field-by-field
reading makes of the same JSON (each field by its `Wire.load`, then `RunRow(**fields)`), and
a row read back from the JSON it prints is that row: on every run of every tree the real CLI
wrote, on rows made by hypothesis, and on printed rows with any JSON value put in a field.
`==` alone would take a row whose counts are a plain tuple, or a float that should be an int,
for the right one: here each value's type is compared too."""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.core.test_row import TREES
from tests.core.test_row_plain import ODD, field_by_field, outcome, printed_rows
from wftop.core import row as rowmodule
from wftop.core import rowwire
from wftop.core.cost.tokens import TOKEN_FIELDS, Tokens
from wftop.core.index.coldpass import scan_roots
from wftop.core.model import Status
from wftop.core.read.errors import Cause
from wftop.core.read.sessions import Liveness
from wftop.core.row import RunRow, Tally
from wftop.core.rowwire import Wire
from wftop.core.system.procs import FakeProcessTable

FIELDS = [item.name for item in fields(RunRow)]


def same(one: Any, other: Any) -> bool:
    """Equal, and of the same type all the way down (tuples item by item, dataclasses field
    by field)."""
    if type(one) is not type(other):
        return False
    if isinstance(one, tuple):
        return len(one) == len(other) and all(map(same, one, other))
    if is_dataclass(one):
        return all(same(getattr(one, f.name), getattr(other, f.name)) for f in fields(one))
    return bool(one == other)


def differing(one: RunRow, other: RunRow) -> list[str]:
    return [name for name in FIELDS if not same(getattr(one, name), getattr(other, name))]


def assert_decoded_as_field_by_field(data: dict[str, Any], host: str | None = None) -> None:
    (kind, read), (kind_then, read_then) = outcome(data, host), field_by_field(data, host)
    assert kind == kind_then, (kind, read, read_then)
    if kind == "row":
        assert not differing(read, read_then), differing(read, read_then)
    else:
        assert read == read_then


def through_a_pipe(row: RunRow) -> dict[str, Any]:
    return orjson.loads(orjson.dumps(row.to_json()))  # type: ignore[no-any-return]


@pytest.mark.parametrize("host", [None, "far"])
def test_every_row_of_every_tree_decodes_as_field_by_field(host):
    rows = printed_rows()
    assert len(rows) > 10
    for data in rows:
        assert_decoded_as_field_by_field(data, host)


def test_every_row_of_every_tree_reads_back_as_it_was_made():
    runs = [run for tree in TREES for run in scan_roots([tree], processes=FakeProcessTable()).runs]
    assert len(runs) > 10
    for run in runs:
        row = RunRow.of(run)
        assert not differing(RunRow.from_json(through_a_pipe(row)), row), run.ident


@pytest.mark.parametrize("name", [name for name, _kind in rowmodule.WIRE])
def test_any_odd_value_in_any_field_decodes_as_field_by_field(name):
    rows = printed_rows()[:3]
    for data in rows:
        assert_decoded_as_field_by_field({key: value for key, value in data.items() if key != name})
        for value in ODD:
            assert_decoded_as_field_by_field({**data, name: value})
            assert_decoded_as_field_by_field({**data, name: value}, "far")


TEXT = st.text(max_size=12)
NAME = st.text(min_size=1, max_size=12)
COUNT = st.integers(min_value=0, max_value=2**53)
LABELS = st.lists(st.text(max_size=6), max_size=3).map(tuple)
MOMENT = st.none() | st.integers(min_value=0, max_value=4_102_444_800_000).map(
    lambda ms: rowmodule.moment(rowmodule.iso_utc(ms / 1000), "last_activity")
)
DOLLARS = st.none() | st.floats(min_value=0, max_value=1e6).map(lambda usd: round(usd, 6))
KIND = st.sampled_from([cause.value for cause in Cause])


def counts_of(names: tuple[str, ...]) -> st.SearchStrategy[tuple[int, ...]]:
    return st.tuples(*(st.integers(min_value=0, max_value=9) | COUNT for _ in names))


BY_KIND: dict[Wire, st.SearchStrategy[Any]] = {
    rowwire.NAME: NAME,
    rowwire.TEXT: TEXT,
    rowwire.MAYBE_TEXT: st.none() | TEXT,
    rowwire.COUNT: COUNT,
    rowwire.MAYBE_COUNT: st.none() | COUNT,
    rowwire.FLAG: st.booleans(),
    rowwire.LABELS: LABELS,
    rowwire.STATUS: st.sampled_from(list(Status)),
    rowwire.LIVENESS: st.sampled_from(list(Liveness)),
    rowwire.MOMENT: MOMENT,
    rowwire.TALLY: counts_of(Tally._fields).map(Tally._make),
    rowwire.DOLLARS: DOLLARS,
    rowwire.TOKENS: counts_of(TOKEN_FIELDS).map(lambda counts: Tokens(*counts)),
    rowwire.FAILURES: st.lists(st.tuples(st.text(max_size=6), KIND), max_size=3).map(tuple),
}
"""A value of each kind of field, as a row holds it."""
ROWS = st.builds(RunRow, **{name: BY_KIND[kind] for name, kind in rowmodule.WIRE})


@settings(max_examples=300)
@given(ROWS, st.none() | NAME)
def test_a_row_made_by_hypothesis_reads_back_as_it_was_and_as_field_by_field(row, host):
    data = through_a_pipe(row)
    read = RunRow.from_json(data)
    assert not differing(read, row), differing(read, row)
    assert_decoded_as_field_by_field(data, host)


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
    | st.sampled_from(["completed", "dead", "alive", "2026-11-06T09:45:16.591Z", "api_error"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from([*Tally._fields, *TOKEN_FIELDS, "label", "kind"]), inner)
        | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
"""Any value a JSON row can hold, biased to the words and keys a row's fields use."""


@settings(max_examples=300)
@given(ROWS, st.sampled_from([name for name, _kind in rowmodule.WIRE]), JSON, st.booleans())
def test_any_json_in_any_field_decodes_as_field_by_field(row, name, value, drop):
    data = through_a_pipe(row)
    if drop:
        data.pop(name, None)
    else:
        data[name] = value
    assert_decoded_as_field_by_field(orjson.loads(orjson.dumps(data)))


def test_the_comparison_sees_a_count_of_the_wrong_type():
    row = RunRow.from_json(printed_rows()[0])
    tally = tuple(row.call_states)
    assert tally == row.call_states and not same(tally, row.call_states)
    assert not same(1.0, 1) and not same((1, 2), [1, 2])
