"""Installed, wftop owns one import name and works on its own.

The wheel is built from this tree and installed the way ``pipx`` would: into a fresh venv that
sees no system site packages, with its real dependencies. The editable install (the README's
test command) maps the same rooms. Both then run ``wftop --version``, ``wftop ls --json`` and
``wftop demo --no-tui`` with no ``claude`` on ``PATH`` (the demo browses its bundled trees).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

TOP = Path(__file__).parent.parent.parent
NOT_SOURCE = (".git", ".venv", "node_modules", "build", "*.egg-info", "*_cache", "__pycache__")


def run(
    argv: list[str], cwd: Path, timeout: float = 600, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def fresh_venv(where: Path) -> Path:
    """A venv without system site packages; its python."""
    made = run([sys.executable, "-m", "venv", str(where)], where.parent)
    assert made.returncode == 0, made.stderr
    return where / "bin" / "python"


def bare_env(home: Path) -> dict[str, str]:
    """No ``claude`` on PATH, no config dir of the machine's, nothing from this checkout."""
    home.mkdir(exist_ok=True)
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_STATE_HOME": str(home / "state"),
        "CLAUDE_CONFIG_DIR": str(home / "claude"),
        "NO_COLOR": "1",
    }


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    source = out / "source"  # setuptools builds in the source tree: build from a copy of it
    shutil.copytree(TOP, source, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    done = run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(source)], out
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (built,) = out.glob("wftop-*.whl")
    return built


def test_the_wheel_has_one_top_level_name_and_its_package_data(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    tops = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert tops == {"wftop"}
    assert "wftop/tui/app.tcss" in names
    assert "wftop/mockapi/scripts/six.js" in names
    assert "wftop/core/resume/runner.py" in names
    trees = [n for n in names if n.startswith("wftop/mockapi/bundled/killed/projects/")]
    assert any(n.endswith("journal.jsonl") for n in trees)
    modules = {n for n in names if n.endswith(".py")}
    on_disk = {
        "wftop/" + str(path.relative_to(TOP))
        for room in ("core", "tui", "cli", "mockapi")
        for path in (TOP / room).rglob("*.py")
    }
    assert on_disk <= modules, sorted(on_disk - modules)


def check_installed(python: Path, tmp_path: Path, expect_under: Path) -> None:
    env = bare_env(tmp_path / "home")
    bindir = python.parent
    where = run(
        [str(python), "-c", "import wftop.core, wftop.tui; print(wftop.tui.__file__)"],
        tmp_path,
        env=env,
    )
    assert where.returncode == 0, where.stderr
    assert where.stdout.startswith(str(expect_under)), where.stdout
    version = run([str(bindir / "wftop"), "--version"], tmp_path, 60, env)
    assert version.returncode == 0 and version.stdout.startswith("wftop "), version.stderr
    module = run([str(python), "-m", "wftop.cli", "--version"], tmp_path, 60, env)
    assert module.stdout == version.stdout, module.stderr
    tree = TOP / "mockapi" / "bundled" / "killed"
    listed = run(
        [str(bindir / "wftop"), "ls", "--json", "--no-default-root", "--root", str(tree)],
        tmp_path,
        60,
        env,
    )
    assert listed.returncode == 0, listed.stderr
    runs = json.loads(listed.stdout)
    assert [(r["run_id"], r["status"]) for r in runs] == [("wf_b7599545-1a6", "dead")]
    demo = run([str(bindir / "wftop"), "demo", "--no-tui"], tmp_path, 120, env)
    assert demo.returncode == 0, demo.stderr
    assert "wf_b7599545-1a6" in demo.stdout and "dead" in demo.stdout, demo.stdout


def test_the_wheel_runs_from_an_isolated_venv_with_its_dependencies(
    wheel: Path, tmp_path: Path
) -> None:
    python = fresh_venv(tmp_path / "venv")
    installed = run([str(python), "-m", "pip", "install", "-q", str(wheel)], tmp_path)
    assert installed.returncode == 0, installed.stderr[-2000:]
    site = run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], tmp_path
    )
    tops = {p.name for p in Path(site.stdout.strip()).iterdir() if "wftop" in p.name.lower()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"wftop"}
    check_installed(python, tmp_path, tmp_path / "venv")


def test_an_editable_install_maps_the_rooms(tmp_path: Path) -> None:
    python = fresh_venv(tmp_path / "venv")
    installed = run([str(python), "-m", "pip", "install", "-q", "-e", str(TOP)], tmp_path)
    assert installed.returncode == 0, installed.stderr[-2000:]
    check_installed(python, tmp_path, TOP / "tui")
