"""The docs name only files that exist: a module or test moved or split takes its docs along.

``docs/performance.md`` is left out: it is a dated record of runs, and says what was there then.
"""

from __future__ import annotations

import re
from pathlib import Path

TOP = Path(__file__).parents[2]
NAMED = re.compile(r"\b(?:core|tui|cli|bench|tests)/[A-Za-z0-9_/]+\.py\b")
RECORD = {"performance.md"}


def named_paths(text: str) -> set[str]:
    return set(NAMED.findall(text))


def test_a_path_named_in_text_is_found_whole():
    text = "see `tests/core/test_x.py` and core/index/reader.py; not score/x.py or tui/"
    assert named_paths(text) == {"tests/core/test_x.py", "core/index/reader.py"}


def test_every_file_the_docs_name_exists():
    pages = [TOP / "README.md", *sorted((TOP / "docs").glob("*.md"))]
    missing = [
        f"{page.relative_to(TOP)}: {path}"
        for page in pages
        if page.name not in RECORD
        for path in sorted(named_paths(page.read_text(encoding="utf-8")))
        if not (TOP / path).is_file()
    ]
    assert missing == []
