"""When to resume: until when the owner session's prompt cache stays warm
(`wftop.core.forecast.cachewarm`).

The transcripts are the real CLI's (the ``killed`` corpus tree, written against the mock, which
reports no cache use), with the usage of their responses set as the real API reports it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.corpus import tree
from wftop.core.forecast.cachewarm import (
    BLOCK,
    COLD,
    TTL_1H,
    TTL_5M,
    CacheWarmth,
    cache_text,
    read_cache_warmth,
)
from wftop.core.read.snapshot import parse_iso_time

(TRANSCRIPT,) = sorted((tree("killed") / "projects").glob("*/*.jsonl"))


def records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in TRANSCRIPT.read_text().splitlines()]


def responses(lines: list[dict[str, Any]]) -> list[int]:
    return [n for n, r in enumerate(lines) if r.get("type") == "assistant"]


def with_usage(
    lines: list[dict[str, Any]], at: int, *, read: int = 0, five: int = 0, hour: int = 0
) -> None:
    usage = lines[at]["message"]["usage"]
    usage["cache_read_input_tokens"] = read
    usage["cache_creation_input_tokens"] = five + hour
    usage["cache_creation"] = {"ephemeral_1h_input_tokens": hour, "ephemeral_5m_input_tokens": five}


def write(tmp_path: Path, lines: list[dict[str, Any]], tail: str = "") -> str:
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines) + tail)
    return str(path)


def request_time(lines: list[dict[str, Any]], at: int) -> float:
    ref = lines[at]["requestRef"]
    (sent,) = [r for r in lines if r.get("type") == "api-request" and r.get("id") == ref]
    when = parse_iso_time(sent["timestamp"])
    assert when is not None and when < parse_iso_time(lines[at]["timestamp"])  # type: ignore[operator]
    return when


def test_the_real_transcript_of_a_session_that_cached_nothing_reads_cold() -> None:
    assert read_cache_warmth(str(TRANSCRIPT)) == COLD
    assert cache_text(COLD.until, 0.0) == "cache cold"


def test_a_response_that_wrote_the_one_hour_cache_keeps_it_warm_an_hour_from_its_request(
    tmp_path: Path,
) -> None:
    lines = records()
    last = responses(lines)[-1]
    with_usage(lines, last, read=5000, hour=1200)
    warmth = read_cache_warmth(write(tmp_path, lines))
    assert warmth == CacheWarmth(request_time(lines, last), TTL_1H)
    assert cache_text(warmth.until, warmth.last_use + 19 * 60 - 1) == "cache warm for 41 min"  # type: ignore[operator]
    assert cache_text(warmth.until, warmth.last_use + 3600) == "cache cold"  # type: ignore[operator]
    assert warmth.warm_at(warmth.last_use + 3599) and not warmth.warm_at(warmth.last_use + 3600)  # type: ignore[operator]


def test_the_five_minute_cache_and_a_response_that_only_read_it(tmp_path: Path) -> None:
    lines = records()
    first, *_, last = responses(lines)
    with_usage(lines, last, five=800)
    assert read_cache_warmth(write(tmp_path, lines)).ttl == TTL_5M
    # A response that only read the cache: the TTL the CLI asked for (2.1.332 writes it) ...
    with_usage(lines, first, hour=900)
    with_usage(lines, last, read=4000)
    lines[last]["promptCacheRequested"] = "1h"
    assert read_cache_warmth(write(tmp_path, lines)).ttl == TTL_1H
    # ... else the last earlier response that wrote to it.
    for line in lines:
        line.pop("promptCacheRequested", None)
    assert read_cache_warmth(write(tmp_path, lines)) == CacheWarmth(
        request_time(lines, last), TTL_1H
    )


def test_a_last_response_that_used_no_cache_reads_cold_whatever_came_before(
    tmp_path: Path,
) -> None:
    lines = records()
    first, *_, last = responses(lines)
    with_usage(lines, first, read=100, hour=900)
    assert read_cache_warmth(write(tmp_path, lines)) == COLD


def test_sub_agent_and_synthetic_messages_after_the_last_response_do_not_count(
    tmp_path: Path,
) -> None:
    lines = records()
    last = responses(lines)[-1]
    with_usage(lines, last, five=800)
    sidechain = json.loads(json.dumps(lines[last]))
    sidechain.update(isSidechain=True, timestamp="2026-12-02T11:00:00.000Z")
    synthetic = json.loads(json.dumps(lines[last]))
    synthetic["message"]["model"] = "<synthetic>"
    synthetic["timestamp"] = "2026-12-02T11:00:01.000Z"
    assert read_cache_warmth(write(tmp_path, [*lines, sidechain, synthetic])) == CacheWarmth(
        request_time(lines, last), TTL_5M
    )


def test_a_long_line_and_a_torn_last_line_after_the_response(tmp_path: Path) -> None:
    """The transcript is read from its end in blocks: a line across blocks is whole, and a
    line still being written is skipped."""
    lines = records()
    last = responses(lines)[-1]
    with_usage(lines, last, hour=800)
    big = {"type": "user", "message": {"role": "user", "content": "x" * (3 * BLOCK)}}
    path = write(tmp_path, [*lines, big], tail='{"type":"assistant","message":{"usage":')
    assert read_cache_warmth(path) == CacheWarmth(request_time(lines, last), TTL_1H)


def test_a_response_without_its_request_record_counts_from_its_own_time(tmp_path: Path) -> None:
    lines = records()
    last = responses(lines)[-1]
    with_usage(lines, last, five=800)
    del lines[last]["requestRef"]
    assert read_cache_warmth(write(tmp_path, lines)).last_use == parse_iso_time(
        lines[last]["timestamp"]
    )


def test_a_missing_transcript_reads_cold(tmp_path: Path) -> None:
    assert read_cache_warmth(str(tmp_path / "gone.jsonl")) == COLD


def test_the_last_minute_says_less_than_one() -> None:
    assert cache_text(1000.0, 950.0) == "cache warm for <1 min"
