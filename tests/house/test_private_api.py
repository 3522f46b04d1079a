"""No private attribute of argparse or of Textual is read or replaced in code or tests: a
release may rename any of them without notice. (The completion scripts come from shtab,
whose own business its argparse reading is.) Textual's are those wftop once used: `Strip`'s
caches, `Timer._run`, `App._on_notify`, its `_notifications`, `_driver` and `_keymap`,
`textual.keys._character_to_key` and `DataTable._clear_caches`, and those a change was once
landed with and taken back for: `ScrollView._size_updated`, `Widget._dirty_regions` and
`Styles._cache_key`."""

from __future__ import annotations

import re
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
ROOMS = ("core", "tui", "cli", "mockapi", "bench", "tests")

PRIVATE = re.compile(
    r"\._(?:actions|option_string_actions|choices_actions|get_positional_actions"
    r"|get_optional_actions|SubParsersAction|HelpAction|StoreAction|StoreTrueAction"
    r"|render_cache|segments"
    r"|clear_caches|on_notify|notifications|driver|keymap|character_to_key"
    r"|size_updated|dirty_regions|cache_key)\b"
    r"|\bTimer\._run\b"
)
"""argparse's private names (what a parser holds, its action classes) and Textual's."""


def test_no_private_argparse_or_textual_attribute_is_read():
    found = []
    for room in ROOMS:
        for path in sorted((TOP / room).rglob("*.py")):
            if "node_modules" in path.parts or path == Path(__file__).resolve():
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if PRIVATE.search(line):
                    found.append(f"{path.relative_to(TOP)}:{number}: {line.strip()}")
    assert found == []
