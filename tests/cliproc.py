"""Re-export of ``wftop.mockapi.cliproc`` (isolated env, process group, kill), plus the test
suite's own place for the pinned CLI: ``tests/cli/node_modules/.bin/claude``."""

from __future__ import annotations

from pathlib import Path

from wftop.mockapi import cliproc
from wftop.mockapi.cliproc import (
    CliHome,
    CliProcess,
    RealCliError,
    claude_argv,
    cli_env,
    cli_version,
)

__all__ = [
    "LOCAL_CLI",
    "CliHome",
    "CliProcess",
    "RealCliError",
    "claude_argv",
    "cli_env",
    "cli_version",
    "find_claude",
]

TESTS = Path(__file__).resolve().parent
LOCAL_CLI = TESTS / "cli" / "node_modules" / ".bin" / "claude"


def find_claude() -> str | None:
    """``$WFTOP_CLAUDE``, then ``tests/cli/node_modules/.bin/claude`` (``npm ci --prefix
    tests/cli``), then ``claude`` on PATH; None when there is none."""
    return cliproc.find_claude(LOCAL_CLI)
