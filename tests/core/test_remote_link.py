"""The links to other hosts, against SSH "hosts" on loopback (tests/ssh_kit.py): live
appends arrive, a host killed mid-stream turns its runs stale (never dead) and says why, and
after it comes back the runs are the host's runs again, none lost and none twice."""

from __future__ import annotations

import json
import time

from tests.corpus import only_journal
from wftop.core.remote.link import WATCH_ARGS, RemoteHub, Update
from wftop.core.remote.transport import remote_argv, ssh_prefix

WAIT = 60.0


class Mirror:
    """What the app would hold: every run by ident, every host's last state."""

    def __init__(self, hub: RemoteHub) -> None:
        self.hub = hub
        self.runs: dict = {}
        self.states: dict = {}
        self.seen: list[Update] = []

    @classmethod
    def started(cls, hub: RemoteHub) -> Mirror:
        """A mirror of ``hub``'s hosts, once each has sent its snapshot."""
        mirror = cls(hub)
        hub.start()
        names = [link.host for link in hub.links]
        mirror.until(lambda: all(mirror.of(name) for name in names), "every snapshot")
        return mirror

    def take(self, update: Update) -> None:
        self.seen.append(update)
        self.states[update.state.host] = update.state
        for run in (*update.changes.added, *update.changes.changed):
            self.runs[run.ident] = run
        for ident in update.changes.removed:
            del self.runs[ident]

    def until(self, check, what: str) -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + WAIT
        while not check():
            update = self.hub.next(timeout=max(0.0, deadline - time.monotonic()))
            assert update is not None, f"no update while waiting for {what}"
            self.take(update)

    def of(self, host: str) -> list:
        return [run for run in self.runs.values() if run.host == host]


def hub_for(ssh_hosts, *hosts: str) -> RemoteHub:  # type: ignore[no-untyped-def]
    prefix = ssh_prefix(None, ssh_hosts.env)
    argvs = {host: remote_argv(prefix, host, WATCH_ARGS) for host in hosts}
    return RemoteHub(argvs, backoff=(0.1,))


def started_line(label: str) -> str:
    record = {"type": "started", "key": f"v2:{label}", "agentId": f"a{label}", "label": label}
    return json.dumps(record) + "\n"


def test_two_hosts_stream_their_runs_and_a_live_append_arrives(ssh_hosts):
    ssh_hosts.add("alpha", "killed")
    ssh_hosts.add("beta", "clean")
    mirror = Mirror.started(hub_for(ssh_hosts, "alpha", "beta"))
    hub = mirror.hub
    try:
        (alpha,) = mirror.of("alpha")
        assert alpha.status.value == "dead" and alpha.ident.endswith(
            f"@alpha:{ssh_hosts.hosts['alpha'].root}"
        )
        assert mirror.of("beta")[0].status.value == "completed"
        before = alpha.fold.started_lines
        with only_journal(ssh_hosts.hosts["alpha"].root).open("a") as journal:
            journal.write(started_line("late"))
        mirror.until(
            lambda: mirror.of("alpha")[0].fold.started_lines == before + 1, "the appended line"
        )
        assert "late" in [call.label for call in mirror.of("alpha")[0].in_flight_calls]
    finally:
        hub.close()


def test_a_host_killed_mid_stream_turns_stale_then_recovers_with_nothing_lost(ssh_hosts):
    ssh_hosts.add("alpha", "killed")
    ssh_hosts.add("beta", "killed")
    mirror = Mirror.started(hub_for(ssh_hosts, "alpha", "beta"))
    hub = mirror.hub
    try:
        (before,) = mirror.of("alpha")
        ssh_hosts.kill("alpha")
        mirror.until(lambda: mirror.states["alpha"].failure is not None, "alpha to drop")
        (stale,) = mirror.of("alpha")
        assert stale.stale and stale.status is before.status  # its last known state, not dead
        assert mirror.states["alpha"].failure.reason in ("closed", "refused")
        assert not any(run.stale for run in mirror.of("beta"))
        # While alpha is down its run moves on; then alpha comes back.
        with only_journal(ssh_hosts.hosts["alpha"].root).open("a") as journal:
            journal.write(started_line("while-down"))
        ssh_hosts.start("alpha")
        mirror.until(
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
        hub.close()


def test_ssh_runs_in_wftops_process_group_so_a_closed_terminal_ends_it_too():
    import os
    import threading

    from wftop.core.remote.link import HostLink

    link = HostLink("alpha", ["sleep", "30"], lambda update: None)
    thread = threading.Thread(target=link.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + WAIT
    while link._process is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    try:
        assert os.getpgid(link._process.pid) == os.getpgrp()
    finally:
        link.close()
        thread.join(timeout=10)
    assert not thread.is_alive()


def test_the_hosts_snapshots_are_made_runs_one_at_a_time(monkeypatch):
    """Twenty snapshots made at once would all come out at the end: the first host's rows
    as late as the last host's."""
    import sys
    import threading

    from wftop.core.remote.feed import HostFeed

    lock, inside, most = threading.Lock(), [0], [0]
    real = HostFeed.apply

    def slow_snapshot(feed: HostFeed, line: bytes):  # type: ignore[no-untyped-def]
        if feed.synced:
            return real(feed, line)
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        try:
            time.sleep(0.3)  # a snapshot of many runs takes a while to make runs of
            return real(feed, line)
        finally:
            with lock:
                inside[0] -= 1

    monkeypatch.setattr(HostFeed, "apply", slow_snapshot)
    line = json.dumps({"seq": 1, "added": [], "changed": [], "removed": []})
    script = f"print({line!r}, flush=True); import time; time.sleep(30)"
    hub = RemoteHub({host: [sys.executable, "-c", script] for host in "abc"}, backoff=(0.1,))
    hub.start()
    try:
        updates = [hub.next(timeout=WAIT) for _ in range(3)]
    finally:
        hub.close()
    assert all(update is not None and update.state.connected for update in updates)
    assert most[0] == 1
