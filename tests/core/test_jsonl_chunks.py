"""A journal is read a chunk at a time, and each chunk is cut into lines as it was read: the
line a chunk leaves open is joined to the first line of the next, not the next chunk to it
(a copy of every chunk, which took fresh pages each time: 3,400 of the page faults of the
plan of a 100,000-call run). What is read is what a read of the whole file gives, line by
line, numbers and offsets included (bytes counted, not time)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wftop.core.read import jsonl as jsonl_module
from wftop.core.read.jsonl import JsonlTail

CHUNK = 4096


def journal(tmp_path: Path) -> tuple[Path, list[dict[str, object]]]:
    """Lines of many lengths (some longer than a chunk), so that chunks end mid-line, on a
    newline and within a line longer than a chunk; the last line without its newline."""
    records: list[dict[str, object]] = [
        {"type": "result", "key": f"v2:{number:04d}", "result": "x" * (number * 37 % 3000)}
        for number in range(200)
    ]
    records[50]["result"] = "y" * (3 * CHUNK)
    text = b"".join(json.dumps(record).encode() + b"\n" for record in records)
    path = tmp_path / "journal.jsonl"
    path.write_bytes(text[:-1])
    return path, records


def test_a_read_cuts_each_chunk_as_read_and_joins_only_the_line_left_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, records = journal(tmp_path)
    monkeypatch.setattr(jsonl_module, "CHUNK_BYTES", CHUNK)
    real = jsonl_module._split_lines
    cut: list[int] = []

    def split(buffer: bytes) -> list[bytes]:
        cut.append(len(buffer))
        return real(buffer)

    monkeypatch.setattr(jsonl_module, "_split_lines", split)
    tail = JsonlTail(path)
    batch = tail.read()
    assert len(cut) > 20
    assert max(cut) <= CHUNK  # no chunk copied behind the line the one before left open
    assert [record for _line, record in batch.records] == records
    assert [line for line, _record in batch.records] == list(range(1, len(records) + 1))
    assert batch.problems == []
    assert tail.offset == path.stat().st_size
