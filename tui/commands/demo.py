"""``wftop demo``: browse real Workflow trees bundled with wftop (read-only).

The bundled trees were written by the real Claude Code CLI: a run killed while an
agent ran, one killed inside a ``parallel()``, one whose agent failed, and a clean
one. They are copied to a temporary dir, which is removed on exit.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

DEMO = Path(__file__).resolve().parent.parent / "demo"


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("demo", help="browse real runs bundled with wftop")
    parser.set_defaults(command="demo")


def age_copy(root: Path, seconds: float) -> None:
    """Let the copies read as quiet runs, not as ones that just changed."""
    import os

    past = time.time() - seconds
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, (past, past))


def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="wftop-demo-") as temp:
        roots = []
        for tree in sorted(DEMO.iterdir()):
            if (tree / "projects").is_dir():
                target = Path(temp) / tree.name
                shutil.copytree(tree, target)
                age_copy(target, 3600)
                roots.append(str(target))
        if not sys.stdout.isatty():
            from core.scan import scan_roots
            from tui.commands.ls import table

            print(table(scan_roots(roots).runs, time.time()))
            return 0
        from tui.main import make_app

        app = make_app(roots, read_only=True)
        app.run()
        return int(app.return_code or 0)
