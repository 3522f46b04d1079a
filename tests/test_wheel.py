"""The wheel works on its own: built from this tree, installed into a fresh venv, it runs
``wftop --help`` and ``wftop ls`` on a demo tree shipped inside it (package data)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

TOP = Path(__file__).parent.parent


def run(argv: list[str], cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    argv = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(TOP)]
    if importlib.util.find_spec("hatchling") is not None:
        argv.insert(4, "--no-build-isolation")
    done = run(argv, TOP)
    if done.returncode != 0:
        pytest.skip(f"cannot build the wheel here (no hatchling, no index?): {done.stderr[-300:]}")
    (built,) = out.glob("wftop-*.whl")
    return built


def test_wheel_holds_the_package_data(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "tui/app.tcss" in names
    assert "tui/mockapi/scripts/six.js" in names
    assert "core/resume/runner.py" in names
    trees = [n for n in names if n.startswith("tui/demo/killed/projects/")]
    assert any(n.endswith("journal.jsonl") for n in trees)


def test_wheel_runs_from_a_fresh_venv(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    made = run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], tmp_path)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    installed = run(
        [str(python), "-m", "pip", "install", "-q", "--no-index", "--no-deps", str(wheel)], tmp_path
    )
    assert installed.returncode == 0, installed.stderr
    where = run([str(python), "-c", "import tui; print(tui.__file__)"], tmp_path)
    assert where.stdout.startswith(str(venv)), where.stdout  # not this checkout
    wftop = venv / "bin" / "wftop"
    helped = run([str(wftop), "--help"], tmp_path, timeout=60)
    assert helped.returncode == 0 and "demo" in helped.stdout, helped.stderr
    tree = Path(where.stdout.strip()).parent / "demo" / "killed"
    listed = run([str(wftop), "ls", "--no-default-root", "--root", str(tree)], tmp_path, 60)
    assert listed.returncode == 0, listed.stderr
    assert "dead" in listed.stdout and "wf_c4e8dc39-03f" in listed.stdout
    module = run([str(python), "-m", "tui", "--version"], tmp_path, timeout=60)
    assert module.stdout.startswith("wftop "), module.stderr
