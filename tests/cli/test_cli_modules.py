"""How the command line is put together: a command imports only what it runs, and the
command modules sit below ``wftop.cli.main`` (they never import it)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

CLI = Path(__file__).resolve().parent.parent.parent / "cli"

LOADED = """
import sys
from wftop.cli.main import main
code = main(sys.argv[1:])
print(code, sorted(name for name in sys.modules if name.startswith("wftop.cli.commands.")))
"""


@pytest.mark.parametrize(
    "argv",
    [["status"], ["stats"], ["export", "wf_none"], ["ls", "--json"]],
    ids=lambda argv: argv[0],
)
def test_a_command_imports_its_own_module_and_no_other(tmp_path, argv):
    root = tmp_path / "claude"
    (root / "projects").mkdir(parents=True)
    done = subprocess.run(
        [sys.executable, "-c", LOADED, *argv, "--no-default-root", "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    *_, last = done.stdout.splitlines()
    assert last.split(" ", 1)[1] == str([f"wftop.cli.commands.{argv[0]}"]), done.stderr


COLLECTED = """
import gc, sys
from wftop.cli import main
collected = []
gc.callbacks.append(lambda phase, info: phase == "start" and collected.append(phase))
main.parse(sys.argv[1:])
loaded = "wftop.cli.commands.resume" in sys.modules
print(len(collected), gc.isenabled(), gc.get_freeze_count(), loaded)
"""


def test_a_command_line_imports_its_command_with_no_collection():
    """The command's modules (the plan's: some 200) are imported with the collector paused
    and put in its oldest generation: some 30 collections walked them as they came."""
    done = subprocess.run(
        [sys.executable, "-c", COLLECTED, "resume", "wf_none", "--dry-run"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    *_, last = done.stdout.splitlines()
    assert last == "0 True 0 True", done.stderr


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth (inside functions too)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_nothing_below_main_imports_main():
    below = [*sorted((CLI / "commands").glob("*.py")), CLI / "options.py", CLI / "stream.py"]
    assert [path.name for path in below if "wftop.cli.main" in imported(path)] == []
