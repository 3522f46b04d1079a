"""Shared fixtures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mockapi import MockAPI
from tests.realcli import CliHome, find_claude

# --- real CLI + loopback mock Messages API (tests/realcli.py, tests/mockapi.py) -------------


@pytest.fixture
def claude_bin() -> str:
    """The real ``claude`` binary (``$WFTOP_CLAUDE``, ``tests/cli``, or PATH)."""
    found = find_claude()
    if found is None:
        pytest.skip("no claude CLI: run `npm ci --prefix tests/cli` or set WFTOP_CLAUDE")
    return found


@pytest.fixture
def mock_api(tmp_path: Path) -> Iterator[MockAPI]:
    """A started mock Messages API; its request log is also written to ``mock-requests.jsonl``."""
    with MockAPI(log_path=tmp_path / "mock-requests.jsonl") as mock:
        yield mock


@pytest.fixture
def cli_home(tmp_path: Path) -> CliHome:
    """An isolated HOME / CLAUDE_CONFIG_DIR / temp dir / cwd for the CLI (``.config_dir``)."""
    return CliHome.create(tmp_path / "cli")


# --- end of real CLI fixtures ---------------------------------------------------------------
