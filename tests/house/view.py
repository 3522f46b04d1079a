"""The house rules, run the way the test suite runs them: layers, cycles, strict types.

Installed, wftop is one package, ``wftop``, whose rooms (``core/``, ``tui/``, ``cli/``,
``mockapi/``) sit at the top of this tree and are mapped in ``pyproject.toml``. Static tools
(import-linter, mypy) read files, not install maps, so they are run over a *view*: a temporary
folder whose ``wftop/`` holds one link per room. Nothing is copied, and nothing in the tree
is written.

From a checkout: ``python -m tests.house.view lint-imports`` or ``python -m tests.house.view mypy``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent.parent
ROOMS = ("core", "tui", "cli", "mockapi")


def make_view(where: Path) -> Path:
    """``where/wftop/<room>`` → ``TOP/<room>`` for every room; returns ``where``."""
    package = where / "wftop"
    package.mkdir(parents=True, exist_ok=True)
    for room in ROOMS:
        link = package / room
        if not link.exists():
            link.symlink_to(TOP / room, target_is_directory=True)
    return where


def lint_imports(view: Path) -> subprocess.CompletedProcess[str]:
    """import-linter with the contracts of ``pyproject.toml``, over the view."""
    env = {**os.environ, "PYTHONPATH": str(view)}
    script = Path(sys.executable).with_name("lint-imports")
    argv = [str(script)] if script.exists() else [sys.executable, "-m", "importlinter.cli"]
    return subprocess.run(
        [*argv, str(TOP / "pyproject.toml"), "--no-cache"],
        cwd=view,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def mypy(view: Path) -> subprocess.CompletedProcess[str]:
    """``mypy --strict`` (the config of ``pyproject.toml``) over every room."""
    packages = [arg for room in ROOMS for arg in ("-p", f"wftop.{room}")]
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(TOP / "pyproject.toml"),
            "--cache-dir",
            str(TOP / ".mypy_cache"),
            *packages,
        ],
        cwd=view,
        env={**os.environ, "MYPYPATH": str(view)},
        capture_output=True,
        text=True,
        timeout=600,
    )


def main(argv: list[str]) -> int:
    tools = {"lint-imports": lint_imports, "mypy": mypy}
    if len(argv) != 1 or argv[0] not in tools:
        print(f"usage: python -m tests.house.view {{{'|'.join(tools)}}}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="wftop-view-") as temp:
        done = tools[argv[0]](make_view(Path(temp)))
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
