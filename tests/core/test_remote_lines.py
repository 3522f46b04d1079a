"""A host's lines are read as journals are: a line nested 100,000 levels deep is read (its
rows applied, its events told), and a line that cannot be read is one line naming the host
and the line, in the stream of runs, in a resume's events and in its status counts."""

from __future__ import annotations

import asyncio
import sys

import orjson
import pytest

from tests.core.test_remote_feed import line, row
from wftop.cli.commands.status import host_counts
from wftop.core.remote.feed import HostFeed, StreamError
from wftop.core.remote.link import HostLink, Update
from wftop.core.remote.resume import RemoteResume, event_text

DEEP = 100_000
WAIT = 60.0


def nested(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


def with_deep(payload: bytes, key: bytes) -> bytes:
    """``payload`` (a JSON object) with ``key`` set to arrays nested `DEEP` levels."""
    return payload[:-1] + b',"' + key + b'":' + nested(DEEP) + b"}"


def test_a_change_set_nested_100000_levels_is_read_and_its_rows_applied():
    feed = HostFeed("alpha")
    first = orjson.dumps(row("wf_a"))
    snapshot = b'{"seq":1,"added":[' + with_deep(first, b"extra") + b'],"removed":[]}'
    (run,) = feed.apply(snapshot).added
    assert run.ident == "s1/wf_a@alpha:/r" and run.status.value == "running"
    changed = with_deep(line(2, changed=[row("wf_a", "dead")]), b"note")
    (run,) = feed.apply(changed).changed
    assert run.status.value == "dead"


def test_a_line_of_the_stream_that_cannot_be_read_names_its_line():
    feed = HostFeed("alpha")
    feed.apply(line(1, [row("wf_a")]))
    feed.apply(line(2))
    with pytest.raises(StreamError) as caught:
        feed.apply(b'{"seq": 3, "added": [\xff')
    assert str(caught.value) == "line 3: invalid UTF-8"
    feed.lost()  # a new connection counts its lines from 1
    with pytest.raises(StreamError) as caught:
        feed.apply(b"{not json\n")
    assert str(caught.value) == "line 1: not valid JSON"


async def test_a_host_whose_stream_breaks_is_said_in_one_line_naming_host_and_line():
    lines = [line(1, [row("wf_a")]).decode(), "Welcome to alpha!"]
    script = f"for text in {lines!r}: print(text, flush=True)\nimport time; time.sleep(30)"
    link = HostLink("alpha", [sys.executable, "-c", script], backoff=(30.0,))
    updates: list[Update] = []
    task = asyncio.create_task(link.run(updates.append))
    try:
        async with asyncio.timeout(WAIT):
            while not any(update.state.failure for update in updates):
                await asyncio.sleep(0.01)
    finally:
        link.close()
        await asyncio.wait_for(task, WAIT)
    (failed,) = [update.state for update in updates if update.state.failure is not None]
    assert failed.describe() == "alpha: unreachable (bad stream): line 2: not valid JSON"


def test_a_resumes_events_are_read_at_any_depth_and_a_bad_line_is_told(tmp_path):
    deep = with_deep(b'{"event":"state","state":"running","reason":"resumed"}', b"extra")
    printed = tmp_path / "printed"
    printed.write_bytes(
        b"\n".join([b"Welcome to alpha!", deep, b'{"event":"done","state":"completed"}']) + b"\n"
    )
    resume = RemoteResume(["cat", str(printed)], host="alpha")
    told = [event_text(event) for event in resume.events()]
    assert told == [
        "unreadable: alpha: line 1: not valid JSON",
        "running: resumed",
        "completed · live: - · from cache: -",
    ]
    assert resume.ended is not None and resume.ended.last == {
        "event": "done",
        "state": "completed",
    }


def test_a_hosts_status_counts_are_read_at_any_depth():
    reply = with_deep(b'{"counts":{"dead":2,"running":1},"needs_you":{"dead":2}}', b"extra")
    counts, needs = host_counts(reply) or ({}, {})
    assert dict(counts) == {"dead": 2, "running": 1} and dict(needs) == {"dead": 2}
    assert host_counts(b"{not json") is None
