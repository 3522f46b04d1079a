"""The tailing reader against bad input: it reports, goes on, never hangs."""

from __future__ import annotations

import os
import resource

from wftop.core.journal import JournalFold
from wftop.core.jsonl import ELIDED, JsonlTail, read_all

STARTED = b'{"type":"started","key":"v2:aa","agentId":"a1","label":"x"}\n'
RESULT = b'{"type":"result","key":"v2:aa","agentId":"a1","result":"ok"}\n'


def test_torn_last_line_is_left_for_later(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(STARTED + RESULT[:20])
    tail = JsonlTail(path)
    first = tail.read()
    assert [record["type"] for _, record in first.records] == ["started"]
    assert tail.offset == len(STARTED)
    with open(path, "ab") as handle:
        handle.write(RESULT[20:])
    second = tail.read()
    assert [(line, record["type"]) for line, record in second.records] == [(2, "result")]
    assert second.problems == []


def test_garbage_and_non_objects_are_counted_with_file_and_line(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(STARTED + b"not json\n" + b"42\n" + b'["a"]\n' + b"\xff\xfe\n" + RESULT)
    batch = read_all(path)
    assert [line for line, _ in batch.records] == [1, 6]
    reasons = {problem.line: problem.reason for problem in batch.problems}
    assert reasons == {
        2: "not valid JSON",
        3: "expected a JSON object, got int",
        4: "expected a JSON object, got list",
        5: "invalid UTF-8",
    }
    assert str(batch.problems[0]) == f"{path}:2: not valid JSON"


def test_empty_file_reads_nothing(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(b"")
    batch = read_all(path)
    assert batch.records == [] and batch.problems == []


def test_oversized_line_keeps_its_leading_fields_without_holding_it(tmp_path):
    path = tmp_path / "journal.jsonl"
    big = 50 * 1024 * 1024
    with open(path, "wb") as handle:
        handle.write(STARTED)
        handle.write(b'{"type":"result","key":"v2:aa","agentId":"a1","result":"')
        chunk = b"x" * (1024 * 1024)
        for _ in range(big // len(chunk)):
            handle.write(chunk)
        handle.write(b'"}\n')
        handle.write(STARTED.replace(b"v2:aa", b"v2:bb"))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    batch = JsonlTail(path, max_line_bytes=4 * 1024 * 1024).read()
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 20 * 1024, "a 50 MB line must not be held in memory"
    assert [record["type"] for _, record in batch.records] == ["started", "result", "started"]
    line, result = batch.records[1]
    assert line == 2 and result["result"] == ELIDED and result["agentId"] == "a1"
    fold = JournalFold().feed_all(batch.records)
    assert [call.state.value for call in fold.ordered_calls()] == ["done", "in_flight"]


def test_fifo_named_journal_does_not_block(tmp_path):
    path = tmp_path / "journal.jsonl"
    os.mkfifo(path)
    batch = read_all(path)
    assert batch.records == []
    assert batch.problems[0].reason == "not a regular file, expected a JSONL file"


def test_directory_named_journal_is_reported(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.mkdir()
    batch = read_all(path)
    assert "directory" in batch.problems[0].reason


def test_symlink_loop_is_reported(tmp_path):
    path = tmp_path / "journal.jsonl"
    os.symlink(path, path)
    batch = read_all(path)
    assert batch.problems[0].reason == "symbolic link loop"


def test_unreadable_journal_is_reported(tmp_path, monkeypatch):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(STARTED)

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "open", refuse)
    assert read_all(path).problems[0].reason == "permission denied"


def test_truncation_between_reads_starts_over(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(STARTED + RESULT)
    tail = JsonlTail(path)
    assert len(tail.read().records) == 2
    path.write_bytes(STARTED)
    batch = tail.read()
    assert batch.reset
    assert [line for line, _ in batch.records] == [1]


def test_replacement_between_reads_starts_over(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(STARTED)
    tail = JsonlTail(path)
    tail.read()
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(STARTED + RESULT + STARTED.replace(b"v2:aa", b"v2:cc"))
    os.replace(replacement, path)
    batch = tail.read()
    assert batch.reset
    assert [line for line, _ in batch.records] == [1, 2, 3]


def test_reading_never_writes(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(STARTED + b"junk\n" + RESULT[:10])
    before = (path.read_bytes(), os.stat(path).st_mtime_ns)
    read_all(path)
    assert (path.read_bytes(), os.stat(path).st_mtime_ns) == before
    assert sorted(os.listdir(tmp_path)) == ["journal.jsonl"]
