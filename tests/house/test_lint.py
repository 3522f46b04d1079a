"""The house rules hold: ruff (lint and format, the tests' files too), the import contracts
(layers, no circles), strict typing of every room (``tests/house/view.py`` runs the static
tools over the installed package's view)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.house.view import TOP, lint_imports, make_view, mypy


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_view(tmp_path_factory.mktemp("view"))


def test_ruff_is_clean() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "."],
        cwd=TOP,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_file_is_ruff_formatted() -> None:
    """The rooms, the tests, the benches: ``ruff format --check .`` over the whole tree."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "."],
        cwd=TOP,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_import_contracts_are_kept(view: Path) -> None:
    done = lint_imports(view)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr


def test_every_room_passes_strict_mypy(view: Path) -> None:
    done = mypy(view)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr
