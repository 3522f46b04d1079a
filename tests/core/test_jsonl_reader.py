"""The one reader against bad input and the lines only the CLI's parser accepts: it reads
what the CLI reads, reports what it cannot read, goes on, never hangs."""

from __future__ import annotations

import math
import os
import resource

from wftop.core.read.journal import JournalFold
from wftop.core.read.jsonl import JsonlTail, read_all
from wftop.core.read.lineverdict import ELIDED, ELIDED_BYTES

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


# -- the CLI's own parse: what JSON.parse accepts, and only that --------------------------------


def fold_of(path) -> dict[str, str]:
    records = read_all(path).records
    return {c.key: c.state.value for c in JournalFold().feed_all(records).calls.values()}


ACCEPTED = {
    b'"cut \\ud83d"': "cut \ufffd",  # JSON.stringify of a string cut inside a surrogate pair
    b'"\\udc00 low half first"': "\ufffd low half first",
    b'{"n":1e999}': {"n": math.inf},  # a double's overflow is Infinity to JSON.parse
    b"-1e999": -math.inf,
    b'"bad \xff\xfe bytes"': "bad \ufffd\ufffd bytes",  # the CLI reads UTF-8 text, U+FFFD
}
REJECTED = {  # not JSON to JSON.parse either
    b"NaN": "not valid JSON",
    b"Infinity": "not valid JSON",
    b"-Infinity": "not valid JSON",
    b'"ok" \xff': "invalid UTF-8",
}


def test_the_results_json_parse_accepts_and_only_those_return_their_call(tmp_path):
    """One call per result form: a result the CLI parses counts as returned, whatever
    orjson thinks of it; one it cannot parse leaves its call in flight, and is reported."""
    path = tmp_path / "journal.jsonl"
    forms = [*ACCEPTED, *REJECTED]
    with open(path, "wb") as handle:
        for n, form in enumerate(forms):
            head = b'"key":"v2:%d","agentId":"a%d"' % (n, n)
            handle.write(b'{"type":"started",' + head + b"}\n")
            handle.write(b'{"type":"result",' + head + b',"result":' + form + b"}\n")
    batch = read_all(path)
    got = {record["key"]: record["result"] for _, record in batch.records if "result" in record}
    assert got == {f"v2:{n}": value for n, value in enumerate(ACCEPTED.values())}
    rejected = [(2 * n + 2, reason) for n, reason in enumerate(REJECTED.values(), len(ACCEPTED))]
    assert [(p.line, p.reason) for p in batch.problems] == rejected
    states = fold_of(path)
    assert [states[f"v2:{n}"] for n in range(len(forms))] == ["done"] * len(ACCEPTED) + [
        "in_flight"
    ] * len(REJECTED)


def test_blank_lines_empty_and_of_whitespace(tmp_path):
    """The CLI skips an empty line; a line of spaces it cannot parse (and will not resume)."""
    path = tmp_path / "journal.jsonl"
    path.write_bytes(STARTED + b"\n" + b" \t\n" + b"\r\n" + RESULT)
    batch = read_all(path)
    assert [line for line, _ in batch.records] == [1, 5]
    assert [(p.line, p.reason) for p in batch.problems] == [
        (3, "a line of only whitespace"),
        (4, "a line of only whitespace"),
    ]


def test_duplicates_fold_as_the_cli_folds_them(tmp_path):
    """A repeated field: the last one counts (as in JSON.parse); a repeated line is folded
    again (a second result replaces the first, a second start is another attempt); a
    repeated line the CLI can read only leniently is no exception."""
    path = tmp_path / "journal.jsonl"
    twice = b'{"type":"started","type":"result","key":"v2:aa","agentId":"a1","result":1}\n'
    lenient = b'{"type":"started","type":"result","key":"v2:aa","agentId":"a1","result":1e999}\n'
    path.write_bytes(STARTED + STARTED + twice + lenient + RESULT + RESULT)
    (call,) = JournalFold().feed_all(read_all(path).records).calls.values()
    assert (call.state.value, call.attempts, call.results_seen, call.replaced) == (
        "done",
        2,
        4,
        True,
    )


# -- the last line ----------------------------------------------------------------------------


def test_a_last_line_that_parses_is_a_record_until_its_newline_comes(tmp_path):
    """The CLI parses every piece between newlines: a last line is a record as soon as it
    parses (before that it is waited for, not reported), and its newline changes nothing."""
    path = tmp_path / "journal.jsonl"
    path.write_bytes(STARTED + RESULT[:20])
    tail = JsonlTail(path)
    first = tail.read()
    assert [line for line, _ in first.records] == [1]
    assert (first.problems, first.open_tail, tail.offset) == ([], False, len(STARTED))
    with open(path, "ab") as handle:
        handle.write(RESULT[20:-1])
    second = tail.read()
    assert [(line, record["type"]) for line, record in second.records] == [(2, "result")]
    assert second.open_tail and tail.offset == path.stat().st_size
    with open(path, "ab") as handle:
        handle.write(b"  \n" + STARTED.replace(b"v2:aa", b"v2:bb"))
    third = tail.read()
    assert not third.reset and not third.open_tail
    assert [line for line, _ in third.records] == [3]


def test_a_last_line_continued_into_another_line_is_taken_back(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(STARTED + RESULT[:-1])
    tail = JsonlTail(path)
    assert len(tail.read().records) == 2
    with open(path, "ab") as handle:
        handle.write(b"garbage\n")
    again = tail.read()
    assert again.reset and again.retracted
    assert [line for line, _ in again.records] == [1]
    assert [(p.line, p.reason) for p in again.problems] == [(2, "not valid JSON")]


# -- one line limit; keeping less than is read -----------------------------------------------

SPACED_RESULT = (
    b'{"type": "result", "key": "v2:aa", "agentId": "a1", "result": "' + b"r" * 400 + b'"}\n'
)


def test_a_result_too_big_to_keep_still_returns_its_call(tmp_path):
    """The run list keeps less than it reads: a long line, compact or not, is parsed whole;
    only its result is dropped, so the call reads returned."""
    path = tmp_path / "journal.jsonl"
    path.write_bytes(STARTED + SPACED_RESULT)
    batch = read_all(path, keep_bytes=100)
    line, record = batch.records[1]
    assert (line, record["result"], record[ELIDED_BYTES]) == (2, ELIDED, len(SPACED_RESULT) - 1)
    assert fold_of(path) == {"v2:aa": "done"}
    assert JournalFold().feed_all(batch.records).calls["v2:aa"].state.value == "done"


def test_over_the_line_limit_a_result_is_kept_only_when_written_compactly(tmp_path):
    compact = tmp_path / "compact.jsonl"
    compact.write_bytes(STARTED + RESULT.replace(b'"ok"', b'"' + b"r" * 400 + b'"'))
    batch = read_all(compact, max_line_bytes=100)
    assert batch.records[1][1]["result"] == ELIDED and batch.problems == []
    assert JournalFold().feed_all(batch.records).calls["v2:aa"].state.value == "done"
    spaced = tmp_path / "spaced.jsonl"
    spaced.write_bytes(STARTED + SPACED_RESULT)
    batch = read_all(spaced, max_line_bytes=100)
    assert [p.line for p in batch.problems] == [2]
    assert "not compact JSON" in batch.problems[0].reason


# -- paths read from disk ---------------------------------------------------------------------


def test_a_path_with_a_nul_is_reported_not_raised(tmp_path):
    batch = read_all(str(tmp_path / "agent-a1\x00x.jsonl"))
    assert batch.records == []
    assert [(p.line, p.reason) for p in batch.problems] == [
        (0, "not readable: the path holds a NUL")
    ]
