"""The links to other hosts, against SSH "hosts" on loopback (tests/ssh_kit.py): live
appends arrive, a host killed mid-stream turns its runs stale (never dead) and says why, and
after it comes back the runs are the host's runs again, none lost and none twice."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time

import pytest

from tests.corpus import only_journal
from wftop.core.remote.link import WATCH_ARGS, RemoteHub, Update
from wftop.core.remote.transport import remote_argv, ssh_prefix

WAIT = 60.0

# A link that dies quietly (a thread's exception, an unread stream, a pipe left open)
# shows as a warning: here it fails the test. It once did: a reader thread died on
# "ValueError: I/O operation on closed file", and the test passed. The SSH server's library
# warning, as it is imported, of a key type its crypto library deprecates is not ours.
pytestmark = [
    pytest.mark.filterwarnings("error"),
    pytest.mark.filterwarnings("ignore:DSA is deprecated:UserWarning:asyncssh"),
]


class Mirror:
    """What the app would hold: every run by ident, every host's last state."""

    def __init__(self, hub: RemoteHub) -> None:
        self.hub = hub
        self.runs: dict = {}
        self.states: dict = {}
        self.seen: list[Update] = []
        self.batches = hub.updates()

    @classmethod
    async def started(cls, hub: RemoteHub) -> Mirror:
        """A mirror of ``hub``'s hosts, once each has sent its snapshot."""
        mirror = cls(hub)
        names = hub.hosts
        await mirror.until(lambda: all(mirror.of(name) for name in names), "every snapshot")
        return mirror

    def take(self, update: Update) -> None:
        self.seen.append(update)
        self.states[update.state.host] = update.state
        for run in (*update.changes.added, *update.changes.changed):
            self.runs[run.ident] = run
        for ident in update.changes.removed:
            del self.runs[ident]

    async def until(self, check, what: str) -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + WAIT
        while not check():
            left = max(0.0, deadline - time.monotonic())
            try:
                batch = await asyncio.wait_for(anext(self.batches), left)
            except TimeoutError:
                raise AssertionError(f"no update while waiting for {what}") from None
            for update in batch:
                self.take(update)

    def of(self, host: str) -> list:
        return [run for run in self.runs.values() if run.host == host]

    async def close(self) -> None:
        self.hub.close()
        with contextlib.suppress(StopAsyncIteration):
            while True:
                await asyncio.wait_for(anext(self.batches), WAIT)


def hub_for(ssh_hosts, *hosts: str) -> RemoteHub:  # type: ignore[no-untyped-def]
    prefix = ssh_prefix(None, ssh_hosts.env)
    argvs = {host: remote_argv(prefix, host, WATCH_ARGS) for host in hosts}
    return RemoteHub(argvs, backoff=(0.1,))


def started_line(label: str) -> str:
    record = {"type": "started", "key": f"v2:{label}", "agentId": f"a{label}", "label": label}
    return json.dumps(record) + "\n"


async def test_two_hosts_stream_their_runs_and_a_live_append_arrives(ssh_hosts):
    ssh_hosts.add("alpha", "killed")
    ssh_hosts.add("beta", "clean")
    mirror = await Mirror.started(hub_for(ssh_hosts, "alpha", "beta"))
    try:
        (alpha,) = mirror.of("alpha")
        assert alpha.status.value == "dead" and alpha.ident.endswith(
            f"@alpha:{ssh_hosts.hosts['alpha'].root}"
        )
        assert mirror.of("beta")[0].status.value == "completed"
        before = alpha.fold.started_lines
        with only_journal(ssh_hosts.hosts["alpha"].root).open("a") as journal:
            journal.write(started_line("late"))
        await mirror.until(
            lambda: mirror.of("alpha")[0].fold.started_lines == before + 1, "the appended line"
        )
        assert "late" in [call.label for call in mirror.of("alpha")[0].in_flight_calls]
    finally:
        await mirror.close()


async def test_a_host_killed_mid_stream_turns_stale_then_recovers_with_nothing_lost(ssh_hosts):
    ssh_hosts.add("alpha", "killed")
    ssh_hosts.add("beta", "killed")
    mirror = await Mirror.started(hub_for(ssh_hosts, "alpha", "beta"))
    try:
        (before,) = mirror.of("alpha")
        await asyncio.to_thread(ssh_hosts.kill, "alpha")
        await mirror.until(lambda: mirror.states["alpha"].failure is not None, "alpha to drop")
        (stale,) = mirror.of("alpha")
        assert stale.stale and stale.status is before.status  # its last known state, not dead
        assert mirror.states["alpha"].failure.reason in ("closed", "refused")
        assert not any(run.stale for run in mirror.of("beta"))
        # While alpha is down its run moves on; then alpha comes back.
        with only_journal(ssh_hosts.hosts["alpha"].root).open("a") as journal:
            journal.write(started_line("while-down"))
        await asyncio.to_thread(ssh_hosts.start, "alpha")
        await mirror.until(
            lambda: mirror.of("alpha") and not mirror.of("alpha")[0].stale, "alpha to come back"
        )
        (after,) = mirror.of("alpha")
        assert after.fold.started_lines == before.fold.started_lines + 1
        assert after.ident == before.ident
        assert mirror.states["alpha"].failure is None
        idents = [run.ident for run in mirror.runs.values()]
        assert sorted(idents) == sorted(set(idents)) and len(idents) == 2
        resync = next(
            u for u in reversed(mirror.seen) if u.state.host == "alpha" and u.changes.changed
        )
        assert not resync.changes.added and not resync.changes.removed  # the same run, changed
    finally:
        await mirror.close()


async def test_ssh_runs_in_wftops_process_group_and_is_read_without_a_thread():
    """A terminal that closes ends ssh too (SIGHUP to wftop's process group); its stream is
    read on the loop, and no reader or drain thread is started for it."""
    import os
    import threading

    from wftop.core.remote.link import HostLink

    before = set(threading.enumerate())
    link = HostLink("alpha", ["sleep", "30"])
    task = asyncio.create_task(link.run(lambda update: None))
    deadline = time.monotonic() + WAIT
    while link.process is None:
        assert time.monotonic() < deadline
        await asyncio.sleep(0.01)
    try:
        assert os.getpgid(link.process.pid) == os.getpgrp()
        started = [t.name for t in threading.enumerate() if t not in before]
        assert [name for name in started if not name.startswith("asyncio-waitpid")] == []
    finally:
        link.close()
        await asyncio.wait_for(task, WAIT)


async def test_the_hosts_snapshots_are_made_runs_and_handed_out_one_at_a_time(monkeypatch):
    """Twenty snapshots made at once would all come out at the end: the first host's rows
    as late as the last host's. Each is handed out before the next is made."""
    import sys

    from wftop.core.remote.feed import HostFeed

    made: list[str] = []
    real = HostFeed.apply

    def slow_snapshot(feed: HostFeed, line: bytes):  # type: ignore[no-untyped-def]
        if not feed.synced:
            time.sleep(0.1)  # a snapshot of many runs takes a while to make runs of
            made.append(feed.host)
        return real(feed, line)

    monkeypatch.setattr(HostFeed, "apply", slow_snapshot)
    line = json.dumps({"seq": 1, "added": [], "changed": [], "removed": []})
    script = f"print({line!r}, flush=True); import time; time.sleep(30)"
    hub = RemoteHub({host: [sys.executable, "-c", script] for host in "abc"}, backoff=(0.1,))
    batches = hub.updates()
    handed: list[tuple[str, list[str]]] = []
    try:
        while len(handed) < 3:
            (update,) = await asyncio.wait_for(anext(batches), WAIT)
            assert update.state.connected
            handed.append((update.state.host, list(made)))
    finally:
        hub.close()
        with contextlib.suppress(StopAsyncIteration):
            await asyncio.wait_for(anext(batches), WAIT)
    # when each host's update was handed out, no later host's snapshot had been made
    assert [made_then for _host, made_then in handed] == [made[:1], made[:2], made[:3]]
