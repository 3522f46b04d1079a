"""The remote tests' SSH "hosts" (tests/ssh_kit.py) end with the test that started them, even
when it is killed without any teardown (a suite's timeout): each server ends its process group,
the commands it runs included, once its test's process has gone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.leftovers_kit import gone

REPO = Path(__file__).resolve().parents[2]
STARTS_ONE_HOST = """
import sys, time
from pathlib import Path

from tests.leftovers_kit import gone
from tests.ssh_kit import SshHosts
host = SshHosts(Path(sys.argv[1])).add("alpha")
print(host.process.pid, flush=True)
time.sleep(600)
"""


def test_a_hosts_server_ends_once_the_test_that_started_it_is_killed(tmp_path):
    test = subprocess.Popen(
        [sys.executable, "-c", STARTS_ONE_HOST, str(tmp_path / "ssh")],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert test.stdout is not None
    try:
        server = int(test.stdout.readline())
    finally:
        test.kill()
        test.wait()
        test.stdout.close()
    deadline = time.monotonic() + 60
    try:
        while not gone(server):
            assert time.monotonic() < deadline, f"the host's server {server} outlived its test"
            time.sleep(0.1)
    finally:
        if not gone(server):
            os.killpg(server, signal.SIGKILL)
