"""The rows the engine holds and how each is made: a row printed once on one line, masked
(`held_of`), and named as the listing names its project (`ProjectNames`).

A row's ``project_name`` is the shortest tail of its cwd no other project held ends with
(`wftop.core.index.projects`), so it depends on every run held: `ProjectNames` counts the
runs of each project as they come and go, and names every project again only when one
came or went.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

import orjson

from wftop.core.engine.heldrow import Held, exact
from wftop.core.index.projects import project_key, project_names
from wftop.core.index.revive import GONE_SECONDS

if TYPE_CHECKING:  # imported when a row is made or named: once the kept rows are out
    from wftop.core.model import Run
    from wftop.core.row import RunRow
    from wftop.core.text.redact import Redactor


class Gone:
    """The rows of runs gone, each kept `GONE_SECONDS` (the oldest first): a run back as it
    went (`wftop.core.index.changeset.ChangeSet.revived`) is held again by the row it went
    with, not made again."""

    def __init__(self) -> None:
        self._rows: dict[str, tuple[Held, float]] = {}

    def keep(self, entry: Held | None, now: float) -> bool:
        """A run gone (None: none was held; False); those gone too long ago are let go of."""
        if entry is None:
            return False
        self._rows.pop(entry.ident, None)
        self._rows[entry.ident] = (entry, now)
        while (oldest := next(iter(self._rows.values())))[1] <= now - GONE_SECONDS:
            del self._rows[oldest[0].ident]
        return True

    def back(
        self, idents: Iterable[str], get: Callable[[str], Run | None]
    ) -> tuple[dict[str, Held], list[Run]]:
        """The rows the runs back as they went went with, by ident, and the runs (``get``,
        read again) of those whose rows were let go of, to make their rows of."""
        rows: dict[str, Held] = {}
        lost: list[Run] = []
        for ident in idents:
            kept = self._rows.pop(ident, None)
            if kept is not None:
                rows[ident] = kept[0]
            elif (run := get(ident)) is not None:
                lost.append(run)
        return rows, lost


def held_of(row: RunRow, redactor: Redactor) -> Held:
    """A row as the engine holds it: on one line as the stream sends it (an array of its
    values: `wftop.core.row.array_line`), names masked (what names its project read back
    from what masking printed when it changed it, so both say the same), at its own size.
    The row is not kept: it is decoded from the line when asked for
    (`Held.row`; a comparison's, `Held.peek`, is not kept either)."""
    from wftop.core.row import RunRow, array_line
    from wftop.core.text.redact import dumps_redacted, may_hold_secret_bytes

    fields = row.json_fields()
    try:
        plain = orjson.dumps(fields)
    except TypeError:  # a name that is not UTF-8: the safe way
        plain = b""
    if plain and not may_hold_secret_bytes(plain):
        line = array_line(fields)
    else:
        data = orjson.loads(dumps_redacted(fields, redactor))
        line = array_line(data)
        row = RunRow.from_json(data)
    naming = (row.cwd, row.project, row.project_name)
    return Held(None, exact(line), ident=row.ident, naming=naming)


class ProjectNames:
    """The name each project held is listed by, kept as runs come and go."""

    def __init__(self, redactor: Redactor | None = None) -> None:
        """``redactor``: how names are masked (None: as a JSON output masks them, made when
        first needed: counting the first rows' projects masks nothing)."""
        self._masks = redactor
        self._names: dict[str, str] = {}
        """Project key → the name the projects held give it (`rename`)."""
        self._key_of: dict[str, str] = {}
        self._runs_of: Counter[str] = Counter()
        """Runs held per project key: the names change only when a key comes or goes."""
        self._pair_of: dict[str, tuple[str | None, str]] = {}
        """Project key → the (cwd, slug) of the first of its runs held (`project_names`
        names a key alike whichever of its runs tells it)."""

    def named(self, entry: Held) -> Held:
        """``entry`` with the name the projects held give its project."""
        name = self._names.get(project_key(entry.cwd, entry.project))
        if name is None or self.redactor(name) == entry.project_name:
            return entry
        return self._renamed(entry, name)

    @property
    def redactor(self) -> Redactor:
        """How names are masked (the one given, else a JSON output's, made once)."""
        if self._masks is None:
            from wftop.core.text.redact import Redactor

            self._masks = Redactor.for_json()
        return self._masks

    def _renamed(self, entry: Held, name: str) -> Held:
        """``entry`` with its project named ``name`` (as it was: a line that is no row)."""
        from wftop.core.row import RowError

        try:
            row = entry.peek()
        except RowError:  # a cached line that is no row: the live index's read replaces it
            return entry
        return held_of(replace(row, project_name=name), self.redactor)

    def track(self, ident: str, entry: Held | None) -> bool:
        """Count the run's project (None: the run is gone); True when a project came or went."""
        key = None if entry is None else project_key(entry.cwd, entry.project)
        old = self._key_of.pop(ident, None)
        if key is not None:
            self._key_of[ident] = key
        if old == key:
            return False
        came = went = False
        if old is not None:
            self._runs_of[old] -= 1
            went = self._runs_of[old] == 0
            if went:
                del self._runs_of[old]
                del self._pair_of[old]
        if entry is not None and key is not None:
            self._runs_of[key] += 1
            came = self._runs_of[key] == 1
            if came:
                self._pair_of[key] = (entry.cwd, entry.project)
        return came or went

    def rename(self, held: dict[str, Held]) -> list[Held]:
        """Name every project as the projects of the runs tracked (``held``'s) tell them
        apart now; the rows whose name changed (replaced in ``held``)."""
        names = project_names(self._pair_of.values())
        if names == self._names:
            return []
        self._names = names
        shown = {key: self.redactor(name) for key, name in names.items()}  # as `named` says
        renamed = []
        for ident, entry in held.items():
            key = project_key(entry.cwd, entry.project)
            if shown.get(key, entry.project_name) == entry.project_name:
                continue
            named = self._renamed(entry, names[key])
            if named is not entry:
                held[ident] = named
                renamed.append(named)
        return renamed
