"""Property-based tests of the tailing reader and the journal fold (hypothesis).

The invariants live in ``bench/fuzz.py`` (`check_case`), which also runs the big fuzz;
here hypothesis drives them with shrinking, over modest example counts:

* no read raises, and each case is bounded in time;
* a file written in chunks and read between chunks gives the records, problems and
  fold of the whole file read at once (torn writes);
* a truncation is noticed, and what follows equals a fresh read;
* no call reads done without a result line for its key.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.fuzz import KEYS, LABELS, TYPES, check_case, check_fold, small_limits
from wftop.core.read.journal import JournalFold
from wftop.core.read.jsonl import JsonlTail

EXAMPLES = int(os.environ.get("WFTOP_HYPOTHESIS_EXAMPLES", "150"))
PROPS = settings(
    max_examples=EXAMPLES,
    deadline=None,  # check_case bounds each case itself
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.fixture(scope="module")
def folder() -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="wftop-props-") as path, small_limits():
        yield path


records = st.fixed_dictionaries(
    {"type": st.sampled_from(TYPES)},
    optional={
        "key": st.sampled_from(KEYS),
        "agentId": st.sampled_from(["a1", "a2", "", "b7"]),
        "label": st.sampled_from(LABELS),
        "phase": st.text(max_size=5),
        "result": st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=30),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(st.text(max_size=4), inner, max_size=3)
            ),
            max_leaves=6,
        ),
    },
)
valid_lines = records.map(lambda record: json.dumps(record, ensure_ascii=False).encode())
garbage_lines = st.one_of(
    st.binary(max_size=60),
    st.sampled_from([b"42", b"[]", b"null", b'"s"', b"{", b"", b"  ", b"\xff\xfe", b"NaN"]),
    valid_lines.flatmap(lambda line: st.integers(0, len(line)).map(lambda n: line[:n])),
    st.integers(100, 400).map(lambda n: b'{"type":"result","key":"v2:aa","result":"' + b"z" * n),
)
journals = st.tuples(
    st.lists(st.one_of(valid_lines, valid_lines, garbage_lines), max_size=25), st.booleans()
).map(lambda parts: b"\n".join(parts[0]) + (b"\n" if parts[1] and parts[0] else b""))


@st.composite
def cases(
    draw: st.DrawFn, content: st.SearchStrategy[bytes]
) -> tuple[bytes, list[int], int | None]:
    data = draw(content)
    cuts = sorted(set(draw(st.lists(st.integers(0, len(data)), max_size=10))))
    truncate_at = draw(st.none() | st.integers(0, len(data)))
    return data, cuts, truncate_at


@PROPS
@given(cases(st.binary(max_size=600)))
def test_arbitrary_bytes(folder, case):
    check_case(folder, *case)


@PROPS
@given(cases(journals))
def test_valid_lines_interleaved_with_garbage_torn_and_truncated(folder, case):
    check_case(folder, *case)


@PROPS
@given(st.lists(valid_lines, max_size=30), st.data())
def test_fold_of_any_split_equals_fold_of_the_whole(folder, lines, data):
    """Feeding the fold record by record, in any grouping, is the fold of the whole."""
    content = b"".join(line + b"\n" for line in lines)
    path = os.path.join(folder, "whole.jsonl")
    with open(path, "wb") as handle:
        handle.write(content)
    whole = check_fold(JsonlTail(path).read().records)
    groups = data.draw(st.lists(st.integers(0, len(lines)), max_size=6))
    fold = JournalFold()
    tail_records = JsonlTail(path).read().records
    start = 0
    for stop in [*sorted(groups), len(tail_records)]:
        fold.feed_all(tail_records[start:stop])
        start = max(start, stop)
    assert fold == whole


def test_an_over_long_torn_line_cut_short_is_scanned_again(folder):
    """Found by the fuzz: an unfinished over-long line, cut and rewritten, was mis-read.

    The reader had skipped past bytes it had scanned of the long line; after the file
    was cut back inside that line and new bytes appended, it missed the newline that
    now ended it, and read the next line as part of it.
    """
    first = b'{"type":"started","key":"v2:aa","agentId":"a1"}\n'
    path = os.path.join(folder, "cut.jsonl")
    with open(path, "wb") as handle:
        handle.write(first + b'{"type":"result","key":"v2:aa","result":"' + b"z" * 300)
    tail = JsonlTail(path, max_line_bytes=96)
    assert [record["type"] for _, record in tail.read().records] == ["started"]
    os.truncate(path, len(first) + 10)
    assert tail.read().records == []
    with open(path, "ab") as handle:
        handle.write(b'\n{"type":"started","key":"v2:bb","agentId":"a2"}\n')
    batch = tail.read()
    assert [line for line, _ in batch.records] == [3]
    assert [problem.line for problem in batch.problems] == [2]
    assert tail.offset == os.path.getsize(path)
