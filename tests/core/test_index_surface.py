"""The live index is reached through its public surface only.

`wftop.core.index.live.LiveIndex` keeps its tables private so that it alone decides how they
change; the follow loop (`wftop.core.index.follow`), the app and the tests use its methods. This
walks the syntax tree of every module of the project but the index's own and fails on any
read of a ``_private`` attribute of something named ``index`` or ``_index`` (``index._x``,
``self.index._x``, ``live.index._x``, ``self._index._x``).
"""

from __future__ import annotations

import ast
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
ROOMS = ("core", "tui", "cli", "mockapi", "tests", "bench")
OWN = TOP / "core" / "index" / "live.py"
INDEX_NAMES = frozenset({"index", "_index"})


def modules() -> list[Path]:
    found = []
    for room in ROOMS:
        for path in sorted((TOP / room).rglob("*.py")):
            if path != OWN and "data" not in path.relative_to(TOP).parts:
                found.append(path)
    return found


def _names_index(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in INDEX_NAMES
    return isinstance(node, ast.Attribute) and node.attr in INDEX_NAMES


def private_reads(source: str) -> list[str]:
    """``<index>._name`` reads in a module, as ``line: expression``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and _names_index(node.value)
        ):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_walk_sees_every_spelling_of_a_private_read() -> None:
    source = "index._swept\nself.index._runs\nlive.index._readers\nself._index._now()\n"
    assert private_reads(source) == [
        "1: index._swept",
        "2: self.index._runs",
        "3: live.index._readers",
        "4: self._index._now",
    ]
    assert private_reads("index.sweeps\nindex.__class__\nother._x\nself._index.runs()\n") == []


def test_the_walk_covers_the_follow_loop_the_engine_and_the_tests() -> None:
    walked = {path.relative_to(TOP).as_posix() for path in modules()}
    assert {"core/index/follow.py", "core/engine/engine.py", "tests/core/test_index.py"} <= walked
    assert "core/index/live.py" not in walked


def test_no_module_reads_the_live_index_private_state() -> None:
    offenders = {}
    for path in modules():
        reads = private_reads(path.read_text(encoding="utf-8"))
        if reads:
            offenders[path.relative_to(TOP).as_posix()] = reads
    assert offenders == {}
