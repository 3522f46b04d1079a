"""Fuzz the tailing reader and the journal fold with generated journals.

    python bench/fuzz.py --seed 7 --count 100000 [--json]

Each case is one generated file: valid journal lines (every record type, keyed and
keyless, unicode labels, nested results) interleaved with garbage (random bytes,
torn JSON, non-object JSON, blank lines, invalid UTF-8, lines over the line limit),
or, one case in eight, arbitrary bytes. Every case is then read four ways and the
invariants below are checked (`check_case`); the property tests in
``tests/test_reliability_props.py`` drive the same checker from hypothesis.

Invariants:

* no read raises, and each case finishes within ``CASE_SECONDS``;
* the file written in chunks and read between chunks gives the same records, the
  same problems and the same fold as the whole file read at once (torn writes); the
  only reset on the way is a provisional last line continued into another line;
* a truncation is noticed, and what follows equals a fresh read of the final file;
* no call is ``done`` (or served from cache) without a ``result`` line for its key,
  and the fold's line counts equal the records of each type;
* the counting fold of a list's first read (`wftop.core.read.countfold.CountingFold`) reads
  what a row reads of the full fold (`row_facts`).

Prints a summary (cases, lines, bytes, failures, time) and exits 1 on any failure,
writing the failing inputs next to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

TOP = Path(__file__).resolve().parent.parent
if str(TOP) not in sys.path:
    sys.path.insert(0, str(TOP))

from wftop.core.read import jsonl  # noqa: E402
from wftop.core.read.countfold import CountingFold  # noqa: E402
from wftop.core.read.journal import CallState, JournalFold  # noqa: E402
from wftop.core.read.jsonl import JsonlTail  # noqa: E402

CASE_SECONDS = 5.0
"""A case taking longer than this counts as a hang."""

LINE_LIMIT = 96
"""The reader's line limit in the fuzz (small, so over-long lines are common)."""
PREFIX = 40
"""The prefix kept of an over-long line (``wftop.core.read.jsonl.PREFIX_BYTES``, scaled down)."""
CHUNK = 13
"""The reader's read size in the fuzz (``wftop.core.read.jsonl.CHUNK_BYTES``, scaled down)."""

KEYS = ["v2:aa", "v2:bb", "v2:cc", "v2:dd", "v2:ee"]
TYPES = ["started", "result", "failed", "launched", "resumed", "restoring", "restored", "mystery"]
LABELS = ["a1", "b two", "ç-ü", "日本", "x" * 30, "", "$(id); `x`"]


class CaseFailure(AssertionError):
    """An invariant did not hold for one case."""


@contextmanager
def small_limits(prefix: int = PREFIX, chunk: int = CHUNK) -> Iterator[None]:
    """Scale the reader's prefix and read size down, so short inputs hit every path."""
    saved = jsonl.PREFIX_BYTES, jsonl.CHUNK_BYTES
    jsonl.PREFIX_BYTES, jsonl.CHUNK_BYTES = prefix, chunk
    try:
        yield
    finally:
        jsonl.PREFIX_BYTES, jsonl.CHUNK_BYTES = saved


# -- generation ------------------------------------------------------------------------------


def valid_record(rng: random.Random) -> dict[str, Any]:
    kind = rng.choice(TYPES)
    record: dict[str, Any] = {"type": kind}
    if rng.random() < 0.85:
        record["key"] = rng.choice(KEYS)
    record["agentId"] = rng.choice(["a1", "a2", "b7", "", "a" * 17])
    if kind == "started" and rng.random() < 0.8:
        record["label"] = rng.choice(LABELS)
        if rng.random() < 0.5:
            record["phase"] = rng.choice(["plan", "work", "ç"])
    if kind == "result":
        record["result"] = rng.choice(
            ["ok", "", None, 3, {"nested": ["x", {"y": 1}]}, "r" * rng.randrange(0, 200)]
        )
    if kind == "launched":
        record["hiddenScriptSha256"] = "ab" * 32
    return record


def valid_line(rng: random.Random) -> bytes:
    record = valid_record(rng)
    if rng.random() < 0.2:
        return json.dumps(record, ensure_ascii=False).encode()
    return json.dumps(record, separators=(",", ":")).encode()


def garbage_line(rng: random.Random) -> bytes:
    pick = rng.randrange(9)
    if pick == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
    if pick == 1:
        line = valid_line(rng)
        return line[: rng.randrange(1, max(2, len(line)))]
    if pick == 2:
        return rng.choice([b"42", b"[]", b'"s"', b"null", b"true", b"[1,{}]", b"-0.5e3"])
    if pick == 3:
        return rng.choice([b"", b" ", b"\t", b"\r", b"  \t "])
    if pick == 4:
        line = valid_line(rng)
        at = rng.randrange(len(line))
        return line[:at] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80"]) + line[at:]
    if pick == 5:
        return b"\xef\xbb\xbf" + valid_line(rng)
    if pick == 6:
        return b'{"type":"result","key":"v2:aa","agentId":"a1","result":"' + b"z" * 300 + b'"}'
    if pick == 7:
        return b'{"key":"v2:bb","type":"started","label":"' + b"L" * rng.randrange(50, 150) + b'"}'
    return rng.choice([b"NaN", b'{"type":NaN}', b"{", b"}", b'{"a":1}{"b":2}', b"\x00\x00"])


def generate(rng: random.Random) -> bytes:
    """One file's content."""
    if rng.random() < 0.125:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 400)))
    lines = [
        valid_line(rng) if rng.random() < 0.7 else garbage_line(rng)
        for _ in range(rng.randrange(0, 40))
    ]
    content = b"\n".join(lines)
    if lines and rng.random() < 0.8:
        content += b"\n"
    return content


def cut_points(rng: random.Random, size: int) -> list[int]:
    return sorted({rng.randrange(size + 1) for _ in range(rng.randrange(0, 12))})


# -- the invariants --------------------------------------------------------------------------


def problems_of(batch_problems: list[jsonl.Problem]) -> list[tuple[int, str]]:
    return [(problem.line, problem.reason) for problem in batch_problems]


def read_whole(path: str, limit: int) -> tuple[list[Any], list[tuple[int, str]]]:
    batch = JsonlTail(path, max_line_bytes=limit).read()
    return batch.records, problems_of(batch.problems)


def row_facts(fold: JournalFold) -> Any:
    """What a run's row reads of a fold (`wftop.core.row.RunRow.of` and the reader's failures
    and re-runs): counts, and the open and failed calls with what is read of them."""
    calls = fold.calls

    def facts(key: str) -> tuple[Any, ...]:
        call = calls[key]
        return (key, call.order, call.label, call.agent_ids[-1:], call.last_line, call.state)

    return (
        fold.started_lines,
        fold.result_lines,
        fold.failed_lines,
        fold.keyless_lines,
        fold.restore_state,
        fold.last_agent_id,
        list(fold.rerun_agent_ids),
        len(calls),
        [facts(key) for key in fold.open_keys],
        [facts(key) for key in fold.failed_keys],
        [call.key for call in fold.calls_in(CallState.IN_FLIGHT)],
        [call.key for call in fold.calls_in(CallState.FAILED)],
    )


def check_fold(records: list[tuple[int, dict[str, Any]]]) -> JournalFold:
    """Fold the records; no call is done without a result line for its key, and the counting
    fold reads what the full fold reads."""
    fold = JournalFold().feed_all(records)
    if row_facts(CountingFold().feed_all(records)) != row_facts(fold):
        raise CaseFailure("the counting fold reads other row facts than the full fold")
    with_result: set[str] = set()
    counts = {"started": 0, "result": 0, "failed": 0}
    for _, record in records:
        kind = record.get("type")
        if kind in counts:
            counts[kind] += 1
        if kind == "result":
            key = record.get("key")
            with_result.add(
                key if isinstance(key, str) and key else f"agent:{record.get('agentId')}"
            )
    for call in fold.calls.values():
        if (call.state is CallState.DONE or call.has_result) and call.key not in with_result:
            raise CaseFailure(f"call {call.key!r} reads done without a result line")
        if call.results_seen and call.key not in with_result:
            raise CaseFailure(f"call {call.key!r} counts results it never had")
    folded = (fold.started_lines, fold.result_lines, fold.failed_lines)
    if folded != (counts["started"], counts["result"], counts["failed"]):
        raise CaseFailure(f"line counts {folded} differ from the records {counts}")
    return fold


def check_case(
    folder: str, content: bytes, cuts: list[int], truncate_at: int | None, limit: int = LINE_LIMIT
) -> int:
    """Check every invariant on one input; returns the number of complete lines read."""
    started = time.monotonic()
    path = os.path.join(folder, "journal.jsonl")
    with open(path, "wb") as handle:
        handle.write(content)
    whole_records, whole_problems = read_whole(path, limit)
    whole_fold = check_fold(whole_records)

    # Torn writes: the same bytes written in chunks, read between chunks.
    os.unlink(path)
    tail = JsonlTail(path, max_line_bytes=limit)
    records: list[Any] = []
    problems: list[tuple[int, str]] = []
    with open(path, "wb") as handle:
        previous = 0
        for cut in [*cuts, len(content)]:
            handle.write(content[previous:cut])
            handle.flush()
            previous = cut
            batch = tail.read()
            if batch.reset and not batch.retracted:
                raise CaseFailure("an append was taken for a truncation")
            if batch.reset:
                records, problems = [], []
            records.extend(batch.records)
            problems.extend(problems_of(batch.problems))
    if records != whole_records:
        raise CaseFailure("records read in chunks differ from the whole file's")
    if problems != whole_problems:
        raise CaseFailure(f"problems read in chunks differ: {problems} != {whole_problems}")
    if check_fold(records) != whole_fold:
        raise CaseFailure("the fold of the chunks differs from the fold of the whole file")
    expected_offset = content.rfind(b"\n") + 1
    if whole_records and whole_records[-1][0] > content.count(b"\n"):
        expected_offset = len(content)  # a last line that parses is read without its newline
    if tail.offset != expected_offset:
        raise CaseFailure(f"offset {tail.offset} != {expected_offset}: a torn line was consumed")

    # Truncation: cut the file short, read, write new bytes, read again.
    if truncate_at is not None:
        os.truncate(path, truncate_at)
        batch = tail.read()
        if truncate_at < expected_offset and not batch.reset:
            raise CaseFailure("a truncation below the offset was not noticed")
        kept = list(records) if not batch.reset else []
        kept.extend(batch.records)
        extra = content[: len(content) // 2]
        with open(path, "ab") as handle:
            handle.write(extra)
        after = tail.read()
        if after.reset:
            kept = []
        kept.extend(after.records)
        final_records, _ = read_whole(path, limit)
        if kept != final_records:
            raise CaseFailure("after a truncation the records differ from a fresh read")
    if time.monotonic() - started > CASE_SECONDS:
        raise CaseFailure(f"case took over {CASE_SECONDS} s")
    return len(whole_records) + len(whole_problems)


# -- the run ---------------------------------------------------------------------------------


def run(
    seed: int,
    count: int,
    out: Path | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    rng = random.Random(seed)
    failures: list[dict[str, Any]] = []
    lines = total_bytes = 0
    slowest = 0.0
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="wftop-fuzz-") as folder, small_limits():
        for number in range(count):
            content = generate(rng)
            cuts = cut_points(rng, len(content))
            truncate_at = rng.randrange(len(content) + 1) if rng.random() < 0.5 else None
            begin = time.monotonic()
            try:
                lines += check_case(folder, content, cuts, truncate_at)
            except Exception as error:  # noqa: BLE001 - every failure is recorded
                failures.append(
                    {
                        "case": number,
                        "error": f"{type(error).__name__}: {error}",
                        "content": content.hex(),
                        "cuts": cuts,
                        "truncate_at": truncate_at,
                    }
                )
            slowest = max(slowest, time.monotonic() - begin)
            total_bytes += len(content)
            if progress is not None and number % 10000 == 0:
                progress(number)
    summary = {
        "seed": seed,
        "cases": count,
        "lines": lines,
        "bytes": total_bytes,
        "failures": len(failures),
        "slowest_case_s": round(slowest, 4),
        "seconds": round(time.monotonic() - started, 1),
    }
    if failures and out is not None:
        out.write_text(json.dumps(failures[:50], indent=1))
        summary["failures_file"] = str(out)
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--out", type=Path, default=Path("fuzz-failures.json"))
    args = parser.parse_args(argv)

    def report(done: int) -> None:
        print(f"... {done} cases", file=sys.stderr, flush=True)

    summary = run(args.seed, args.count, args.out, report)
    print(json.dumps(summary))
    return 1 if summary["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
