"""The ``paths`` fixture of tests that launch a detached runner: where its log and status go.

On teardown it kills whatever a failing test left running, found through that status file.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.procfs import ProcFs
from wftop.core.resume.launcher import Launch


@pytest.fixture
def paths(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    folder = tmp_path / "launches"
    folder.mkdir(mode=0o700)
    log, status_file = folder / "r-1.log", folder / "r-1.status.json"
    yield log, status_file
    status = Launch.attach(status_file, log).runner_status()
    if status is None:
        return
    table = ProcFs()
    for pid, start_time, group in (
        (status.child_pid, status.child_start, True),
        (status.runner_pid, status.runner_start, False),
    ):
        if pid and table.start_time(pid) == start_time:
            with contextlib.suppress(ProcessLookupError):
                (os.killpg if group else os.kill)(pid, signal.SIGKILL)
