"""How a row read in a forked worker is printed there (`printed_fields`), so that the
engine that takes it decodes nothing (`wftop.core.engine.heldrow.held_read`): the walk's
and the spends fill's, not what the engine needs to send the rows its rows cache kept (a
module of its own, imported with the walk: what it needs reads runs).
"""

from __future__ import annotations

from typing import Any

import orjson

from wftop.core.engine.heldrow import Naming, exact
from wftop.core.index.countrow import indented, may_be_masked
from wftop.core.read.runfolder import run_ident
from wftop.core.row import array_line, printed_item
from wftop.core.text.redact import Redactor


def printed_fields(
    fields: dict[str, Any], redactor: Redactor, *, keep: bool
) -> tuple[bytes, tuple[bytes, str, Naming]]:
    """A row read in a worker, as its JSON fields (`RunRow.json_fields`, or a cold pass's
    counted row: `wftop.core.index.countrow`), printed as ``ls --json`` prints it (``keep``:
    for the cache, else empty), and on one line as the stream sends it (an array of its
    values: `wftop.core.row.array_line`, which the cache keeps too) with what `Held` needs,
    read from what was printed (names masked), so that the process that takes it decodes
    nothing.

    A row that masking would not change (no string of it but its paths holds a literal of
    the masking's quick test: `wftop.core.index.countrow.may_be_masked`) is printed on its
    line and, kept, indented, each once: the same bytes as printed indented, masked, parsed
    and printed again (as an array)."""
    try:
        line = array_line(fields)
    except TypeError:  # a name that is not UTF-8: as printed, made printable
        line = b""
    if line and not may_be_masked(fields):
        ident = run_ident(fields["root"], fields["session_id"], fields["run_id"])
        naming = (fields.get("cwd"), fields["project"], fields.get("project_name", ""))
        return indented(fields) if keep else b"", (exact(line), ident, naming)
    item = printed_item(fields, redactor)
    data = orjson.loads(item)
    ident = run_ident(data["root"], data["session_id"], data["run_id"])
    naming = (data.get("cwd"), data["project"], data.get("project_name", ""))
    return item if keep else b"", (exact(array_line(data)), ident, naming)
