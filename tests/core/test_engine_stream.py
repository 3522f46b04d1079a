"""The engine's stream read as a view reads it: each message checked, and the rows a view
holds kept by a `RowFeed` through snapshots, change sets and lost connections."""

from __future__ import annotations

from dataclasses import replace

import orjson
import pytest

from tests.corpus import tree
from wftop.core.engine import protocol as wire
from wftop.core.engine.feed import RowFeed
from wftop.core.index.coldpass import scan_roots
from wftop.core.row import WIRE_NAMES, RunRow, array_line
from wftop.core.system.procs import FakeProcessTable
from wftop.core.text.redact import Redactor


def corpus_rows() -> list[RunRow]:
    roots = [str(tree(name)) for name in ("killed", "clean", "mid-failure")]
    return [RunRow.of(run) for run in scan_roots(roots, processes=FakeProcessTable()).runs]


def line(row: RunRow) -> bytes:
    return array_line(orjson.loads(row.printed(Redactor.for_json())))


def test_every_message_reads_back_as_it_was_written():
    rows = corpus_rows()
    hello = wire.Hello(wire.PROTOCOL, "9.9", 42, ("/a", "/b"), 600.0)
    assert wire.decode(wire.hello_line(hello)) == hello
    assert wire.decode(wire.progress_line(3, 10)) == wire.Progress(3, 10)
    assert wire.decode(wire.KEPT_LINE) == wire.Kept()
    batch = wire.decode(wire.rows_line(0, [line(row) for row in rows], final=True))
    assert batch == wire.Rows(0, tuple(rows), True)
    changed = wire.decode(wire.changed_line(7, [line(rows[0])], ["s/r@/x"]))
    assert changed == wire.Changed(7, (rows[0],), ("s/r@/x",))
    assert wire.decode(wire.problem_line("j.jsonl:3: bad")) == wire.ProblemSeen("j.jsonl:3: bad")
    assert b"notice" not in wire.problem_line("j.jsonl:3: bad")  # said only when true
    told = wire.ProblemSeen("cannot watch /r", notice=True)
    assert wire.decode(wire.problem_line("cannot watch /r", notice=True)) == told
    counts = wire.decode(wire.status_line({"dead": 2}, complete=False))
    assert counts == wire.Counts({"dead": 2}, False)
    assert wire.decode(wire.bye_line("idle")) == wire.Bye("idle")
    ask = wire.decode_ask(wire.ask_line("status", "9.9"))
    assert ask == wire.Ask("status", "9.9", wire.PROTOCOL)


def test_a_printed_row_on_one_line_is_the_row():
    for row in corpus_rows():
        printed = row.printed(Redactor.for_json())
        assert b"\n" in printed
        assert RunRow.from_json(orjson.loads(wire.one_line(printed))) == row


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (b"{nope", "not a JSON line"),
        (b"[1]", "not a message (expected a JSON object with a type)"),
        (b'{"type": "gossip"}', "unknown message type 'gossip' (expected one of hello,"),
        (b'{"type": "progress", "read": "1", "total": 2}', "progress: read must be a whole"),
        (b'{"type": "rows", "seq": 0, "final": 1, "rows": []}', "rows: final must be true or"),
        (b'{"type": "changed", "seq": 1, "rows": [], "removed": [3]}', "changed: removed must"),
        (b'{"type": "status", "counts": {"dead": -1}, "complete": true}', "status: counts must"),
        (b'{"type": "hello", "protocol": true}', "hello: protocol must be a whole number"),
    ],
)
def test_a_line_that_is_no_message_says_what_was_expected(text, says):
    with pytest.raises(wire.ProtocolError) as caught:
        wire.decode(text)
    assert str(caught.value).startswith(says)


def test_a_row_that_is_no_row_is_left_out_and_said_and_the_others_stand():
    good = line(corpus_rows()[0])
    bad = b"[1" + good[good.index(b",") :]  # its run id a number
    message = wire.decode(
        b'{"type":"rows","seq":0,"final":true,"rows":[' + bad + b',{"run_id":"r"},' + good + b"]}"
    )
    assert isinstance(message, wire.Rows) and message.final
    assert message.rows == (corpus_rows()[0],)
    assert message.rejected == (
        "rows row 0: run_id: expected a non-empty string, got 1",
        f"rows row 1: row: expected an array of its {len(WIRE_NAMES)} fields' values, "
        "got {'run_id': 'r'}",
    )


def test_a_view_must_say_what_it_wants():
    with pytest.raises(wire.ProtocolError, match="want must be rows or status"):
        wire.decode_ask(b'{"type": "hello", "protocol": 1, "wftop": "1", "want": "all"}')
    with pytest.raises(wire.ProtocolError, match="expected a hello first"):
        wire.decode_ask(b'{"type": "rows"}')


# -- the feed ------------------------------------------------------------------------------


def test_snapshot_batches_apply_at_once_and_the_last_removes_what_it_did_not_name():
    first, second, third = corpus_rows()
    feed = RowFeed()
    one = feed.snapshot([first], final=False)
    assert one is not None and one.added == (first,) and not one.complete
    two = feed.snapshot([second], final=True)
    assert two is not None and two.added == (second,) and two.complete
    feed.lost(stale=False)
    # the next connection's snapshot: first unchanged, second gone, third new
    assert feed.snapshot([first, third], final=False) is not None
    assert list(feed.rows) == [first.ident, second.ident, third.ident]
    last = feed.snapshot([], final=True)
    assert last is not None and last.removed == (second.ident,) and last.complete
    assert list(feed.rows) == [first.ident, third.ident]


def test_after_a_lost_connection_each_run_arrives_once():
    first, second, third = corpus_rows()
    feed = RowFeed()
    feed.snapshot([first, second], final=True)
    marked = feed.lost(stale=True)
    assert marked is not None and all(row.stale for row in marked.changed)
    moved = replace(second, started=second.started + 1)
    seen = [feed.snapshot([first, moved, third], final=True)]
    assert feed.lost(stale=True) is not None
    seen.append(feed.snapshot([first, moved, third], final=True))
    for delta in seen:
        assert delta is not None
        idents = [row.ident for row in (*delta.added, *delta.changed)]
        assert len(idents) == len(set(idents)) == 3
    assert {row.ident: row for row in feed.rows.values()} == {
        row.ident: row for row in (first, moved, third)
    }
    assert not any(row.stale for row in feed.rows.values())


def test_a_change_set_names_removed_runs_as_their_host_names_them():
    first, second, _ = corpus_rows()
    remote = [RunRow.from_json(row.to_json(), host="alpha") for row in (first, second)]
    feed = RowFeed()
    feed.snapshot(remote, final=True)
    assert feed.change([], ["no/such@/run"]) is None
    delta = feed.change([], [second.ident])
    assert delta is not None and delta.removed == (remote[1].ident,)
    assert remote[1].ident == f"{second.session_id}/{second.run_id}@alpha:{second.root}"
    assert feed.change([remote[0]], []) is None  # the same row again: nothing changed


def test_a_local_run_is_removed_by_its_ident_with_no_second_name_kept():
    """A run of this machine is named in ``removed`` by its ident: the feed keeps a second
    name (a string and an entry for each of 20,000 runs) only for another host's runs."""
    first, second, _ = corpus_rows()
    feed = RowFeed()
    feed.snapshot([first, second], final=True)
    assert feed._named == {}
    delta = feed.change([], [second.ident])
    assert delta is not None and delta.removed == (second.ident,)
    assert list(feed.rows) == [first.ident]
