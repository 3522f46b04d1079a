"""Nothing the suite starts outlives it, even when it is killed mid-test without any teardown
(a CI timeout): what it started carries the suite's mark, and a reaper ends what is still
marked once the suite's process has gone (tests/leftovers_kit.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.leftovers_kit import MARK, outlives_its_starter

REPO = Path(__file__).resolve().parents[2]
A_SUITE = """
import subprocess, sys, time
from tests.conftest import pytest_sessionstart
from types import SimpleNamespace
pytest_sessionstart(SimpleNamespace(config=SimpleNamespace(stash={})))
detached = subprocess.Popen(  # as wftop launches a resume: a session of its own
    [sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True
)
print(detached.pid, flush=True)
time.sleep(600)
"""

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="the reaper reads /proc")


def test_a_test_and_what_it_starts_carry_the_suites_mark():
    assert os.environ.get(MARK)


def test_what_a_suite_killed_mid_test_started_ends_with_it():
    detached = outlives_its_starter([sys.executable, "-c", A_SUITE], REPO)
    assert detached is None, f"{detached} outlived the suite that started it"
