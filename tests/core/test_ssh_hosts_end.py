"""The remote tests' SSH "hosts" (tests/ssh_kit.py) end with the test that started them, even
when it is killed without any teardown (a suite's timeout): each server ends its process group,
the commands it runs included, once its test's process has gone."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.leftovers_kit import outlives_its_starter

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
    argv = [sys.executable, "-c", STARTS_ONE_HOST, str(tmp_path / "ssh")]
    server = outlives_its_starter(argv, REPO)
    assert server is None, f"the host's server {server} outlived its test"
