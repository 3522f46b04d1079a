"""``wftop drill --json`` against the real CLI: every check of the contract passes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.realcli


def test_drill_passes_on_the_pinned_cli(claude_bin):
    done = subprocess.run(
        [sys.executable, "-m", "wftop.cli", "drill", "--json", "--claude", claude_bin],
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = json.loads(done.stdout)
    failed = [check for check in report["checks"] if not check["ok"]]
    assert done.returncode == 0 and not failed, failed
    assert report["cli_version"]
    assert [check["name"] for check in report["checks"]] == [
        "journal layout",
        "journal line types",
        "no snapshot after the kill",
        "--resume keeps the session id",
        "cache replays the completed prefix",
        "snapshot written at the end",
        "a copied journal replays in another session",
    ]
