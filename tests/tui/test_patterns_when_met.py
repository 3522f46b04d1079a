"""The patterns that text of several lines (`gate_lines`) and the TUI's net
(`wftop.tui.net.clean`) need are compiled when such text is first met, not as a view
imports them (4.4 M and 2.5 M instructions of its start, for text a list of runs never
holds): what each shows is the same."""

from __future__ import annotations

import json
import subprocess
import sys

MET = r"""
import json, re

made = []
compile = re.compile


def counted(pattern, flags=0):
    made.append(pattern)
    return compile(pattern, flags)


re.compile = counted
from wftop.core.text import gate
from wftop.tui import net

marks = gate.BIDI + gate.SEPARATORS
needed = {
    "lines": f"[\x00-\x08\x0b-\x1f\x7f-\x9f{marks}\ud800-\udfff]",
    "net": f"[\x00-\x1f\x7f-\x9f{marks}]",
    "surrogate": "[\ud800-\udfff]",
}
imported = [name for name, pattern in needed.items() if pattern in made]
before = len(made)
lines = gate.gate_lines("a\x1b[2J\tb\nc\u202e\ud800")
cleaned = net.clean("a\x1b\u2028b\ud800") + net.clean("plain")
again = gate.gate_lines("\x07") + net.clean("\x07")
later = [name for name, pattern in needed.items() if made[before:].count(pattern) == 1]
print(json.dumps([imported, later, len(made) - before, ascii(lines), ascii(cleaned), again]))
"""


def test_the_patterns_of_lines_and_of_the_net_are_made_when_first_needed() -> None:
    done = subprocess.run([sys.executable, "-c", MET], capture_output=True, text=True, check=True)
    imported, later, compiled, lines, cleaned, again = json.loads(done.stdout)
    assert imported == []
    assert later == ["lines", "net", "surrogate"] and compiled == 3  # each once, when met
    assert lines == ascii("a␛[2J\tb\nc\\u202e\\ud800")
    assert cleaned == ascii("ab\ufffdplain")
    assert again == "␇"  # the gate shows BEL; the net drops it
