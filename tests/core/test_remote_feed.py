"""One host's change-set stream as change sets: host in the identity, resync, stale."""

from __future__ import annotations

import orjson
import pytest

from wftop.core.remote.feed import HostFeed, StreamError
from wftop.core.row import RunRow


def row(run_id: str, status: str = "running", **extra):
    return {
        "run_id": run_id,
        "session_id": "s1",
        "project": "-p",
        "root": "/r",
        "status": status,
        "started": 3,
        "returned": 1,
        "failed": 0,
        "calls": 3,
        "in_flight": ["a2", "a3"],
        "failed_calls": [],
        "journal": f"/r/projects/-p/s1/subagents/workflows/{run_id}/journal.jsonl",
        "last_activity": "2026-01-01T00:00:00.000Z",
        **extra,
    }


def line(seq, added=(), changed=(), removed=()):
    payload = {"seq": seq, "added": list(added), "changed": list(changed), "removed": list(removed)}
    return orjson.dumps(payload)


def test_rows_become_runs_of_the_host():
    feed = HostFeed("alpha")
    changes = feed.apply(line(1, [row("wf_a")]))
    (run,) = changes.added
    assert run.host == "alpha" and run.ident == "s1/wf_a@alpha:/r"
    assert run.status.value == "running" and RunRow.of(run).to_json()["host"] == "alpha"
    assert [call.label for call in run.in_flight_calls] == ["a2", "a3"]
    assert run.fold.started_lines == 3 and len(run.fold.calls) == 3


def test_later_lines_change_and_remove_runs_of_that_host():
    feed = HostFeed("alpha")
    feed.apply(line(1, [row("wf_a"), row("wf_b")]))
    changes = feed.apply(line(2, changed=[row("wf_a", "dead")], removed=["s1/wf_b@/r"]))
    assert [run.status.value for run in changes.changed] == ["dead"]
    assert changes.removed == ("s1/wf_b@alpha:/r",)
    assert set(feed.runs) == {"s1/wf_a@alpha:/r"}


def test_a_lost_link_keeps_every_run_as_it_was_marked_stale_never_dead():
    feed = HostFeed("alpha")
    feed.apply(line(1, [row("wf_a"), row("wf_b", "completed")]))
    changes = feed.lost()
    assert {run.status.value for run in changes.changed} == {"running", "completed"}
    assert all(run.stale for run in changes.changed)
    assert feed.lost().empty


def test_the_snapshot_after_a_reconnect_is_diffed_against_what_was_known():
    feed = HostFeed("alpha")
    feed.apply(line(1, [row("wf_a"), row("wf_b")]))
    feed.lost()
    # while the link was down: wf_a died, wf_b went, wf_c appeared
    changes = feed.apply(line(1, [row("wf_a", "dead"), row("wf_c")]))
    assert [run.ident for run in changes.added] == ["s1/wf_c@alpha:/r"]
    assert [(run.ident, run.status.value, run.stale) for run in changes.changed] == [
        ("s1/wf_a@alpha:/r", "dead", False)
    ]
    assert changes.removed == ("s1/wf_b@alpha:/r",)
    assert sorted(feed.runs) == ["s1/wf_a@alpha:/r", "s1/wf_c@alpha:/r"]


@pytest.mark.parametrize(
    "bad", [b"not json", b"[1]", b'{"added": [{"run_id": 1}]}', b'{"added": [], "removed": 3}']
)
def test_a_line_that_is_not_a_change_set_is_a_stream_error(bad):
    feed = HostFeed("alpha")
    feed.apply(line(1, [row("wf_a")]))
    with pytest.raises(StreamError):
        feed.apply(bad)


def test_names_are_masked_again_on_this_side():
    feed = HostFeed("alpha")
    secret = "sk-ant-api03-" + "x" * 40
    (run,) = feed.apply(line(1, [row("wf_a", name=f"deploy {secret}")])).added
    assert secret not in (run.name or "")
