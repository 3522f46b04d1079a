"""The house rules hold: ruff (lint and format, the tests' files too), the import contracts
(layers, no circles, imports for types alone included), strict typing of every room
(``tests/house/view.py`` runs the static tools over the installed package's view)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
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


def test_imports_for_types_alone_are_not_left_out_of_the_circles() -> None:
    """A circle of imports under ``if TYPE_CHECKING:`` is a circle the contracts see."""
    linter = tomllib.loads((TOP / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]
    assert linter.get("exclude_type_checking_imports", False) is False


def test_the_import_contracts_are_kept(view: Path) -> None:
    done = lint_imports(view)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr


def test_every_room_passes_strict_mypy(view: Path) -> None:
    done = mypy(view)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr
