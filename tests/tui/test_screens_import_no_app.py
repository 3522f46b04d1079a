"""Screens and widgets never import the app, the navigator or the app's factory.

A screen is given the store and services in its constructor and asks for navigation by
posting a message (docs/architecture.md, "Inside the TUI"): importing `wftop.tui.app` (even
under ``if TYPE_CHECKING:``, even inside a function) would bring back the app ↔ screens
circle. This walks the syntax tree of every module under tui/screens and tui/widgets and
fails on any import of those modules, in any spelling.
"""

from __future__ import annotations

import ast
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
FOLDERS = ("tui/screens", "tui/widgets")
APP_MODULES = frozenset({"wftop.tui.app", "wftop.tui.navigator", "wftop.tui.start"})


def imports_of_the_app(source: str, package: str) -> list[str]:
    """Imports of an app module in a module of ``package``, as ``line: module``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{parent}.{base}" if base else parent
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        for name in names:
            if any(name == module or name.startswith(module + ".") for module in APP_MODULES):
                found.append(f"{node.lineno}: {name}")
                break
    return found


def test_the_walk_sees_every_spelling_of_an_import_of_the_app() -> None:
    source = (
        "import wftop.tui.app\n"
        "from wftop.tui.app import WftopApp\n"
        "from wftop.tui import navigator\n"
        "if TYPE_CHECKING:\n    from ..start import make_app\n"
        "def f():\n    from .. import app\n"
    )
    assert imports_of_the_app(source, "wftop.tui.screens") == [
        "1: wftop.tui.app",
        "2: wftop.tui.app",
        "3: wftop.tui.navigator",
        "5: wftop.tui.start",
        "7: wftop.tui.app",
    ]
    clean = (
        "from wftop.tui.store import Store\nfrom ..messages import OpenRun\nimport textual.app\n"
    )
    assert imports_of_the_app(clean, "wftop.tui.screens") == []


def test_no_screen_or_widget_imports_the_app() -> None:
    found = {}
    for folder in FOLDERS:
        package = "wftop." + folder.replace("/", ".")
        for path in sorted((TOP / folder).glob("*.py")):
            hits = imports_of_the_app(path.read_text(), package)
            if hits:
                found[str(path.relative_to(TOP))] = hits
    assert found == {}
