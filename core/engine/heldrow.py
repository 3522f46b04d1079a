"""A run as the engine holds it (`Held`): its row on one line as the stream sends it (an
array of its fields' values: `wftop.core.row.array_line`), with what naming its project
needs, the row itself decoded only when first asked for; and how a row read in a forked
worker becomes one without being decoded where it is held
(`wftop.core.engine.printing.printed_fields` in the worker, `held_read` in the engine); and
what ``wftop status`` asks of the runs held (`shown_counts`, `needy_states`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from sys import intern
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:  # a row is decoded when first asked for: the row model with it
    from wftop.core.attention import RunState
    from wftop.core.row import RunRow

Naming = tuple[str | None, str, str]
"""What naming a row's project needs of it: its ``cwd``, ``project`` and ``project_name``."""


class Held:
    """A run as the engine holds it: the row printed on one line, ready to send, with what
    naming its project needs (its ``cwd``, ``project`` and ``project_name``), and the row
    itself (for its counts and what a change set compares), read from the line when first
    asked for where it was not given: a cached row goes out before it is decoded."""

    __slots__ = ("_row", "cwd", "ident", "line", "project", "project_name")

    def __init__(
        self,
        row: RunRow | None,
        line: bytes,
        *,
        ident: str = "",
        naming: Naming = (None, "", ""),
    ) -> None:
        self._row = row
        self.line = line
        if row is not None:
            self.ident = row.ident
            self.cwd, self.project, self.project_name = row.cwd, row.project, row.project_name
        else:
            self.ident = ident
            self.cwd, self.project, self.project_name = naming

    @property
    def row(self) -> RunRow:
        """The row (`RowError` when the line held is not one), kept once decoded."""
        if self._row is None:
            self._row = decoded(self.line)
        return self._row

    def peek(self) -> RunRow:
        """The row, as `row`, but not kept when it was not (a comparison's: 20,000 rows
        decoded and kept were 30 MB, where their lines are 27)."""
        return self._row if self._row is not None else decoded(self.line)


def decoded(line: bytes) -> RunRow:
    """The row a line holds (`RowError` when it is not one)."""
    from wftop.core.row import RowError

    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError as error:
        raise RowError(f"row: not JSON ({error})") from None
    return from_json(data)


def from_json(data: Any) -> RunRow:
    """The row of a JSON value: `RunRow.from_array` of an array (a line held), else
    `RunRow.from_json`; the row model is imported when the engine first decodes a row."""
    from wftop.core.row import RunRow

    return RunRow.from_array(data) if type(data) is list else RunRow.from_json(data)


def held(item: bytes) -> Held:
    """The held form of a row printed as ``ls`` prints it (`RowError` when it is not a
    row): on one line as the stream sends it (`wftop.core.row.array_line`)."""
    from wftop.core.row import RowError, array_line

    try:
        data = orjson.loads(item)
    except orjson.JSONDecodeError as error:
        raise RowError(f"row: not JSON ({error})") from None
    if type(data) is not dict:
        raise RowError("row: expected an object")
    row = from_json(data)
    return Held(row, exact(array_line(data)))


def held_read(read: tuple[bytes, str, Naming]) -> Held:
    """The held form of a row a worker `printed_fields`, nothing decoded (its ident and names
    interned: every table of the engine keys the run by the same ident)."""
    line, ident, (cwd, project, name) = read
    naming = (None if cwd is None else intern(cwd), intern(project), intern(name))
    return Held(None, line, ident=intern(ident), naming=naming)


def exact(line: bytes) -> bytes:
    """A copy of ``line`` of its own size: the bytes ``orjson.dumps`` makes keep 16 KB of
    room behind a 1 KB row (a warm start's 20,000 held rows took 300 MB so)."""
    return bytes(memoryview(line))


def held_row(entry: Held | None) -> RunRow | None:
    """The row held (None: none, or a cached line that is not a row after all)."""
    from wftop.core.row import RowError

    if entry is None:
        return None
    try:
        return entry.row
    except RowError:
        return None


def _peeked(entry: Held) -> RunRow | None:
    """The row held, not kept where it was not decoded (None: a line that is no row)."""
    from wftop.core.row import RowError

    try:
        return entry.peek()
    except RowError:
        return None


def same(old: Held | None, new: Held) -> bool:
    """``new`` says what ``old`` said: the same line, or (printed otherwise) the same row."""
    return old is not None and (old.line == new.line or _peeked(old) == _peeked(new))


def shown_counts(held: Iterable[Held]) -> dict[str, int]:
    """Runs per shown status (``wftop status``)."""
    rows = (held_row(entry) for entry in held)
    return dict(sorted(Counter(row.shown_status for row in rows if row is not None).items()))


def needy_states(held: Iterable[Held]) -> list[RunState]:
    """The runs that may need a person (``wftop status`` holds them to its window)."""
    from wftop.core.attention import RunState
    from wftop.core.model import NEEDS_YOU

    return [
        RunState(row.ident, row.run_id, row.shown_status, row.last_activity)
        for row in (held_row(entry) for entry in held)
        if row is not None and row.shown_status in NEEDS_YOU
    ]
