"""Any nesting reads as ``JSON.parse`` reads it, and nothing walks it on the stack.

orjson reads 1,024 levels and writes 254; JSON.parse reads 200,000 and more. A line nested
deeper than orjson reads used to be "not valid JSON" (its call counted in flight), and a
value deeper than orjson writes crashed every output that wrote or masked it.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.deep_kit import DEEP, RUN_ID, SECRET, deep_tree, nested
from wftop.core.index.coldpass import scan_roots
from wftop.core.read.deepjson import (
    LAYOUT_DEPTH,
    MAX_DEPTH,
    DeepJson,
    dumps,
    json_depth,
    layout,
    parse_deep,
)
from wftop.core.read.journal import CallState, JournalFold
from wftop.core.read.jsonl import JsonlTail, read_all
from wftop.core.read.jsonline import UnreadableLine, parse_line
from wftop.core.system.procs import FakeProcessTable
from wftop.core.text.redact import Redactor, dumps_redacted, redact_tree

STARTED = b'{"type":"started","key":"v2:aa","agentId":"a1","label":"x"}\n'


def result_line(value: bytes) -> bytes:
    return b'{"type":"result","key":"v2:aa","agentId":"a1","result":' + value + b"}"


@pytest.mark.parametrize("depth", [1_025, 1_100, DEEP])
def test_a_result_nested_any_depth_reads_and_returns_its_call(tmp_path, depth):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(STARTED + result_line(nested(depth)) + b"\n")
    batch = read_all(path)
    assert batch.problems == []
    assert [record["type"] for _, record in batch.records] == ["started", "result"]
    fold = JournalFold().feed_all(batch.records)
    assert fold.calls["v2:aa"].state is CallState.DONE
    result = batch.records[1][1]["result"]
    assert json_depth(result) == depth
    assert dumps(result) == nested(depth)  # written back as the JSON it was


def test_nothing_held_is_deeper_than_orjson_writes():
    record = parse_line(result_line(nested(DEEP)))
    value, level = record, 1
    while type(value) is not DeepJson:
        value = value["result"] if level == 1 else value[0]
        level += 1
    assert level == MAX_DEPTH + 1  # the array that opens past MAX_DEPTH is text
    assert value.depth == DEEP - MAX_DEPTH + 1
    assert orjson.dumps(record, default=lambda deep: None)


def test_a_deep_line_torn_or_broken_is_not_read(tmp_path):
    whole = result_line(nested(DEEP))
    path = tmp_path / "journal.jsonl"
    path.write_bytes(STARTED + whole[:-3])
    tail = JsonlTail(path)
    assert [record["type"] for _, record in tail.read().records] == ["started"]
    with open(path, "ab") as handle:
        handle.write(whole[-3:] + b"\n" + whole[:-2] + b"\n")  # one close short
    batch = tail.read()
    assert [record["type"] for _, record in batch.records] == ["result"]
    assert [(p.line, p.reason) for p in batch.problems] == [(3, "not valid JSON")]


def test_a_deep_line_with_invalid_utf8_reads_as_the_cli_reads_it():
    raw = result_line(b'["\xff",' + b"[" * 2_000 + b"1" + b"]" * 2_001)
    value = parse_line(raw)["result"]
    assert value[0] == "\ufffd"
    with pytest.raises(UnreadableLine) as refused:
        parse_line(raw[:-1])
    assert refused.value.reason == "invalid UTF-8"


def test_the_run_list_counts_a_deep_result_returned(tmp_path):
    root = deep_tree(tmp_path)
    (run,) = scan_roots([str(root)], processes=FakeProcessTable({})).runs
    assert run.run_id == RUN_ID
    assert (run.fold.started_lines, run.fold.result_lines) == (5, 4)
    assert [call.label for call in run.in_flight_calls] == ["a5"]
    assert not run.problems


def test_masking_a_deep_value_finds_its_secret_without_recursion():
    record = parse_line(result_line(nested(DEEP)))
    redactor = Redactor()
    masked = redact_tree(record, redactor)
    assert dict(redactor.masked) == {"anthropic_key": 1}
    written = dumps(masked)
    assert SECRET.encode() not in written
    assert b'{"deep":"[masked:anthropic_key]"}' in written
    assert SECRET.encode() not in dumps_redacted(record)


def test_a_value_too_deep_to_lay_out_is_compact_with_a_note():
    shallow = {"a": [1, {"b": 2}]}
    assert layout(shallow) == (orjson.dumps(shallow, option=orjson.OPT_INDENT_2).decode(), None)
    for depth in (LAYOUT_DEPTH + 1, MAX_DEPTH + 1, DEEP):
        text, note = layout(parse_line(nested(depth)))
        assert text == nested(depth).decode()
        assert note == f"nested {depth:,} levels deep: too deep to lay out, shown as compact JSON"


def test_an_output_that_wraps_a_value_held_at_the_limit_still_writes_it():
    held = parse_line(nested(MAX_DEPTH))
    assert type(held) is list  # held as Python objects, as deep as orjson writes
    written = dumps({"calls": [{"result": held}]}, option=orjson.OPT_INDENT_2)
    assert json.loads(written)["calls"][0]["result"] == json.loads(nested(MAX_DEPTH))


# -- parse_deep is JSON.parse, whatever depth it keeps as text -----------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(json_values, st.integers(1, 6), st.booleans())
def test_parse_deep_reads_what_python_reads_and_writes_it_back(value, limit, spaced):
    text = json.dumps(value) if spaced else json.dumps(value, separators=(",", ":"))
    expected = json.loads(text, parse_int=lambda digits: parse_line(digits.encode()))
    read = parse_deep(text, limit=limit)
    assert orjson.loads(dumps(read)) == orjson.loads(orjson.dumps(expected))
    if json_depth(read) <= limit:
        assert read == expected


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=' \t\n\r[]{},:"\\0123456789.eE+-truefalsn\x01é\ud800', max_size=30))
def test_parse_deep_refuses_what_python_refuses(text):
    try:
        expected: Any = json.loads(text, parse_constant=lambda name: 1 / 0)
    except (ValueError, ZeroDivisionError, RecursionError):
        expected = ValueError
    try:
        read: Any = parse_deep(text, limit=2)
    except ValueError:
        read = ValueError
    assert (read is ValueError) == (expected is ValueError), text


def test_lone_surrogates_read_as_the_replacement_character_at_any_depth():
    text = '[["\\ud800 lone", {"\\udc00": "ok \\ud83d\\ude00"}]]'
    assert parse_deep(text) == [["\ufffd lone", {"\ufffd": "ok \U0001f600"}]]
    deep = parse_deep(text, limit=1)
    assert type(deep[0]) is DeepJson
    assert deep[0].text == '["\ufffd lone",{"\ufffd":"ok \U0001f600"}]'
    assert list(deep[0].strings()) == ["\ufffd lone", "ok \U0001f600"]


def test_a_deep_value_pickles_and_compares_by_its_text():
    import pickle

    (deep,) = parse_deep(nested(DEEP).decode(), limit=1)
    assert pickle.loads(pickle.dumps(deep)) == deep
    assert deep == DeepJson(deep.text, deep.depth) and hash(deep) == hash(deep.text)
