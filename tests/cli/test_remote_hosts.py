"""``wftop ls --host`` and ``wftop status --host`` against SSH "hosts" on loopback.

Each host is an asyncssh server with its own HOME holding a corpus copy (tests/ssh_kit.py),
reached by the system ssh through a throwaway config.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.corpus import tree


def wftop(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wftop.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def test_ls_json_merges_every_host_with_its_name(ssh_hosts):
    ssh_hosts.add("alpha", "killed")
    ssh_hosts.add("beta", "clean")
    local = ["--no-default-root", "--root", str(tree("mid-failure"))]
    done = wftop("ls", "--json", *local, "--host", "alpha", "--host", "beta", env=ssh_hosts.env)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    by_host = {row["host"]: row for row in rows}
    assert set(by_host) == {None, "alpha", "beta"}
    assert by_host["alpha"]["status"] == "dead" and by_host["alpha"]["in_flight"] == ["a5"]
    assert by_host["alpha"]["journal"].startswith(str(ssh_hosts.hosts["alpha"].root))
    assert by_host["beta"]["status"] == "completed"
    times = [row["last_activity"] for row in rows]
    assert times == sorted(times, reverse=True)


def test_hosts_before_and_after_the_command_add_up(ssh_hosts):
    ssh_hosts.add("alpha", "killed")
    ssh_hosts.add("beta", "clean")
    done = wftop(
        "--host", "alpha", "ls", "--json", "--no-default-root", "--host", "beta", env=ssh_hosts.env
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert sorted(row["host"] for row in json.loads(done.stdout)) == ["alpha", "beta"]


def test_ls_table_names_the_host_of_each_row(ssh_hosts):
    ssh_hosts.add("alpha", "killed")
    done = wftop("ls", "--no-default-root", "--host", "alpha", env=ssh_hosts.env)
    assert done.returncode == 0, done.stderr
    header, row = done.stdout.splitlines()
    assert header.startswith("HOST ") and row.startswith("alpha ") and "dead" in row


def test_local_rows_say_host_null():
    done = wftop("ls", "--json", "--no-default-root", "--root", str(tree("killed")))
    assert [row["host"] for row in json.loads(done.stdout)] == [None]


@pytest.mark.parametrize(
    ("host", "reason"),
    [("stranger", "unreachable (auth)"), ("no-such-host.invalid", "unreachable (dns)")],
)
def test_a_host_that_cannot_be_reached_is_named_with_the_reason(ssh_hosts, host, reason):
    ssh_hosts.add("alpha", "killed")
    done = wftop(
        "ls", "--json", "--no-default-root", "--host", "alpha", "--host", host, env=ssh_hosts.env
    )
    assert done.returncode == 1
    assert f"wftop: {host}: {reason}" in done.stderr
    assert [row["host"] for row in json.loads(done.stdout)] == ["alpha"]


def test_a_host_without_wftop_says_how_to_install_it(ssh_hosts):
    ssh_hosts.add("alpha", "killed")
    done = wftop(
        "ls", "--no-default-root", "--host", "alpha", "--remote-command", "no-wftop-here",
        env=ssh_hosts.env,
    )  # fmt: skip
    assert done.returncode == 1
    assert "alpha: wftop is not installed there" in done.stderr
    assert "--remote-command" in done.stderr


HOSTILE = [
    "-oProxyCommand=touch PWNED",
    "alpha;touch PWNED",
    "alpha && touch PWNED",
    "$(touch PWNED)",
    "`touch PWNED`",
    "alpha|touch PWNED",
    "alpha\ntouch PWNED",
    "alpha/../x",
    "",
    "al pha",
    "ålpha",
]


@pytest.mark.parametrize("host", HOSTILE)
def test_hostile_host_names_are_refused_before_ssh_runs(tmp_path: Path, host):
    spy = tmp_path / "ssh-spy"
    spy.write_text(f"#!/bin/sh\ntouch {tmp_path}/RAN\n")
    spy.chmod(0o755)
    done = subprocess.run(
        [sys.executable, "-m", "wftop.cli", "ls", "--no-default-root", "--host", host],
        capture_output=True, text=True, cwd=tmp_path, timeout=60,
        env={**os.environ, "WFTOP_SSH": str(spy)},
    )  # fmt: skip
    assert done.returncode == 2
    assert "not a host name wftop passes to ssh" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "RAN").exists() and not (tmp_path / "PWNED").exists()


def test_status_counts_every_host(ssh_hosts):
    moment = time.time() - 60  # died a minute ago: within the attention window
    for name in ("alpha", "beta"):
        for path in ssh_hosts.add(name, "killed").root.rglob("*"):
            os.utime(path, (moment, moment), follow_symlinks=False)
    done = wftop(
        "status", "--format", "json", "--no-default-root", "--host", "alpha", "--host", "beta",
        "--host", "stranger", env=ssh_hosts.env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["counts"] == {"dead": 2, "unreachable": 1}
    assert payload["line"] == "⚠ 2 dead · 1 unreachable"
    assert "stranger: unreachable (auth)" in done.stderr
