"""The one JSON encoder of every JSON output wftop prints (``--json`` and its kin).

orjson writes the C0 controls escaped, as JSON must, and every other character raw: DEL,
the C1 controls and the bidirectional controls too, which a terminal acts on when the
output is shown there (``wftop ls --json`` in a pane, ``| less -R``). The text is escaped
after encoding (`wftop.core.text.gate.escape_json`): the values read back are the same.
A value nested deeper than orjson writes is written through `wftop.core.read.deepjson.dumps`:
what is held as text (`wftop.core.read.deepjson.DeepJson`) goes out as the JSON it was, and
levels past what orjson lays out go compact.
"""

from __future__ import annotations

from typing import Any

import orjson

from wftop.core.read.deepjson import dumps as deep_dumps
from wftop.core.text.gate import escape_json
from wftop.core.text.redact import Redactor, dumps_redacted


def dumps(value: Any, *, indent: bool = False) -> bytes:
    """``value`` as JSON bytes, safe to show (a string that is not UTF-8 reads ``\\xNN``)."""
    option = orjson.OPT_INDENT_2 if indent else 0
    try:
        data = deep_dumps(value, option)
    except TypeError:  # a lone surrogate (a name that was not UTF-8) or a key not a string
        from wftop.core.model import json_safe  # the slow way alone: the model is slow to load

        data = deep_dumps(json_safe(value), option)
    return escape_json(data)


def dumps_masked(
    value: Any, redactor: Redactor | None = None, *, indent: bool = False, distinct: bool = False
) -> bytes:
    """`dumps` of ``value`` with every string masked
    (`wftop.core.text.redact.dumps_redacted`; ``distinct``: its strings repeat)."""
    option = orjson.OPT_INDENT_2 if indent else 0
    return escape_json(dumps_redacted(value, redactor, option=option, distinct=distinct))
