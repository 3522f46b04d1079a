"""The line index of the viewers: line starts found without reading the whole file into memory,
each line read as the one reader reads it, rows picked by a pattern, and search."""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

import pytest

from wftop.core.read import lineindex
from wftop.core.read.jsonl import read_all
from wftop.core.read.lineindex import LineIndex
from wftop.core.read.lineverdict import line_verdict

DATA = Path(__file__).resolve().parents[1] / "data"


def naive_starts(data: bytes) -> list[int]:
    starts = [0] + [at + 1 for at, byte in enumerate(data) if byte == 10]
    return starts if data.endswith(b"\n") or not data else starts + [len(data)]


def mixed_lines(seed: int, count: int) -> bytes:
    rng = random.Random(seed)
    lines = []
    for number in range(count):
        width = rng.choice([0, 5, 40, 300, 70_000, 200_000]) if number % 7 else 20
        lines.append(b'{"n":%d,"pad":"%s"}' % (number, b"x" * width))
    return b"\n".join(lines) + b"\n"


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    """Blocks and scans small enough that lines cross them."""
    monkeypatch.setattr(lineindex, "BLOCK_BYTES", 4096)
    monkeypatch.setattr(lineindex, "SCAN_BYTES", 16_384)


def test_every_line_is_found_where_it_starts_whatever_its_length(tmp_path: Path):
    data = mixed_lines(1, 400)
    path = tmp_path / "journal.jsonl"
    path.write_bytes(data)
    index = LineIndex(path)
    while index.update(budget=50_000) and not index.done:
        pass
    starts = naive_starts(data)
    assert index.lines == data.count(b"\n")
    for number in range(1, index.lines + 1):
        assert index.locate(number) == starts[number - 1]
    for offset in random.Random(2).sample(range(len(data)), 300):
        assert index.line_at(offset) == data.count(b"\n", 0, offset) + 1
    assert [line.raw for line in index.read(120, 5)] == data.split(b"\n")[119:124]


def test_the_index_holds_a_checkpoint_per_block_not_a_line_per_entry(tmp_path: Path):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(b'{"type":"started","key":"k"}\n' * 50_000)
    index = LineIndex(path)
    index.update()
    assert index.lines == 50_000
    assert index.checkpoints <= path.stat().st_size // 4096 + 2


def test_a_growing_file_is_followed_and_a_replaced_one_is_noticed(tmp_path: Path):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(b'{"a":1}\n{"a":')
    index = LineIndex(path)
    assert index.update() == "grew"
    assert index.lines == 2
    (open_line,) = index.read(2, 1)
    assert (open_line.raw, open_line.complete) == (b'{"a":', False)
    with open(path, "ab") as handle:
        handle.write(b'2}\n{"a":3}\n')
    assert index.update() == "grew"
    assert [line.raw for line in index.read(1, 9)] == [b'{"a":1}', b'{"a":2}', b'{"a":3}']
    assert index.update() == "same"
    path.write_bytes(b'{"a":1}\n')
    assert index.update() == "reset"


def test_each_line_reads_as_the_one_reader_reads_it():
    journals = sorted(DATA.rglob("journal.jsonl"))
    assert journals
    for journal in journals:
        batch = read_all(journal, keep_bytes=1000)
        index = LineIndex(journal)
        index.update()
        seen: dict[int, object] = {}
        for line in index.read(1, index.lines):
            verdict = line_verdict(line.raw, line.size, keep_bytes=1000)
            if verdict is not None and (line.complete or not isinstance(verdict, str)):
                seen[line.number] = verdict
        expected: dict[int, object] = dict(batch.records)
        expected.update((problem.line, problem.reason) for problem in batch.problems)
        assert seen == expected, journal


def test_unreadable_lines_say_why_like_the_reader(tmp_path: Path):
    path = tmp_path / "journal.jsonl"
    long_result = b'{"type":"result","key":"k","result":"' + b"r" * 3000 + b'"}'
    lines = [b"[1]", b"   ", b"{bad", b"", long_result, b'{"type":"x","v":1e999}']
    path.write_bytes(b"\n".join(lines) + b"\n")
    batch = read_all(path, keep_bytes=100, max_line_bytes=2000)
    index = LineIndex(path, max_line_bytes=2000)
    index.update()
    got = {
        line.number: line_verdict(line.raw, line.size, keep_bytes=100, max_line_bytes=2000)
        for line in index.read(1, 10)
    }
    assert got[4] is None
    assert got[5] == dict(batch.records)[5]
    assert {number: got[number] for number in (1, 2, 3)} == {
        problem.line: problem.reason for problem in batch.problems
    }


ROWS = re.compile(rb'"type":"(?:user|assistant)"')


def test_rows_are_the_lines_where_the_pattern_occurs(tmp_path: Path):
    path = tmp_path / "agent-a1.jsonl"
    rng = random.Random(3)
    lines = []
    for number in range(300):
        kind = rng.choice(["user", "assistant", "attachment", "api-request"])
        pad = b"p" * rng.choice([10, 3000, 40_000])
        fields = (number, pad, kind.encode()) if number % 2 else (number, kind.encode(), pad)
        shape = (
            b'{"uuid":"%d","pad":"%s","type":"%s"}'
            if number % 2
            else b'{"uuid":"%d","type":"%s","pad":"%s"}'
        )
        lines.append(shape % fields)
    data = b"\n".join(lines) + b"\n"
    path.write_bytes(data[: len(data) // 3 + 17])
    index = LineIndex(path, rows=ROWS)
    index.update()
    with open(path, "ab") as handle:
        handle.write(data[len(data) // 3 + 17 :])
    index.update(budget=30_000)
    while not index.done:
        index.update(budget=30_000)
    expected = [n for n, line in enumerate(lines, 1) if ROWS.search(line)]
    assert [index.row_line(row) for row in range(index.row_count)] == expected
    first, second = index.read_rows(0, 2)
    assert (first.number, first.raw) == (expected[0], lines[expected[0] - 1])
    assert second.number == expected[1]


def test_a_row_is_judged_when_its_line_ends(tmp_path: Path):
    path = tmp_path / "agent-a1.jsonl"
    path.write_bytes(b'{"uuid":"1","ty')
    index = LineIndex(path, rows=ROWS)
    index.update()
    assert index.row_count == 0
    with open(path, "ab") as handle:
        handle.write(b'pe":"user"')
    index.update()
    assert index.row_count == 0
    with open(path, "ab") as handle:
        handle.write(b"}\n")
    index.update()
    assert index.row_count == 1


def test_search_goes_forward_and_back_wraps_and_folds_case_only_for_lower_case(tmp_path: Path):
    path = tmp_path / "journal.jsonl"
    lines = [b'{"n":%d}' % n for n in range(5000)]
    lines[10] = b'{"text":"Needle"}'
    lines[4000] = b'{"text":"needle"}'
    path.write_bytes(b"\n".join(lines) + b"\n")
    index = LineIndex(path)
    index.update()
    assert index.find("needle", 1) == 11
    assert index.find("needle", 11) == 4001
    assert index.find("needle", 4001) == 11  # wrapped
    assert index.find("Needle", 11) == 11  # only the capitalised one, wrapping onto itself
    assert index.find("needle", 11, backward=True) == 4001
    assert index.find("needle", 4001, backward=True) == 11
    assert index.find("absent", 1) is None


def test_search_in_rows_skips_lines_that_are_not_rows(tmp_path: Path):
    path = tmp_path / "agent-a1.jsonl"
    path.write_bytes(
        b'{"type":"attachment","x":"needle"}\n{"type":"user","x":"no"}\n'
        b'{"type":"assistant","x":"needle"}\n'
    )
    index = LineIndex(path, rows=ROWS)
    index.update()
    assert index.find("needle", 2) == 3
    assert index.find("needle", 3) == 3
    assert os.path.getsize(path) == index.size


def test_a_row_whose_type_straddles_two_reads_is_found(tmp_path: Path):
    path = tmp_path / "agent-a1.jsonl"
    opening = b'{"pad":"'
    pad = b"p" * (16_384 - len(opening) - 2 - 5)  # the match starts 5 bytes before the cut
    path.write_bytes(opening + pad + b'",' + b'"type":"user"}\n')
    index = LineIndex(path, rows=ROWS)
    index.update()
    assert index.row_count == 1
