"""Every command's ``--help`` opens with the one line ``wftop --help`` lists it by."""

from __future__ import annotations

import subprocess
import sys

import pytest

from wftop.cli.main import COMMANDS


def wftop(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "wftop.cli", *args], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("name", COMMANDS)
def test_help_of_a_command_has_its_one_line_description(name):
    listed = {
        line.split()[0]: " ".join(line.split()[1:])
        for line in wftop("--help").splitlines()
        if line.startswith("    ") and line.split()[0] in COMMANDS
    }
    paragraphs = wftop(name, "--help").split("\n\n")
    description = paragraphs[1]  # after the usage lines
    assert "\n" not in description.strip() and description.endswith("."), paragraphs[:2]
    assert description.lower().startswith(listed[name].lower().rstrip(".")[:30])
