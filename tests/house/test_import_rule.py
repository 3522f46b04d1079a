"""``core`` stays headless: it imports nothing from textual, rich or tui."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).parent.parent.parent / "core"
FORBIDDEN = {"textual", "rich", "tui"}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_core_imports_no_ui_code():
    offenders = {
        str(path.relative_to(CORE.parent)): sorted(imported_roots(path) & FORBIDDEN)
        for path in sorted(CORE.rglob("*.py"))
        if imported_roots(path) & FORBIDDEN
    }
    assert offenders == {}


def test_the_rule_catches_an_offender(tmp_path):
    sample = tmp_path / "bad.py"
    sample.write_text("from textual.app import App\nimport rich.text\n")
    assert imported_roots(sample) & FORBIDDEN == {"textual", "rich"}
