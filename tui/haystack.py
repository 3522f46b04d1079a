"""What a filter of free words searches, for every run of a list at once: each run's words
(`wftop.tui.query.Hay.words`) and its ids as one string a run, in the list's order, made and
searched by loops that run in C (``map``, ``compress``): no key typed over 20,000 runs walks
them in Python. Beside them, the few fields of each run that a list chosen from them is
filtered by, measured by and summed over (its ident, shown status, widths of its name and
project, re-run tokens and spend), so that choosing runs by status and showing them reads
lists, not 20,000 row objects again and again.

Pure. `Texts.passing` lets through exactly the runs `wftop.tui.query.matches` does for a
filter of free words: a word is in the run's words, or, shaped like an id, in its run or
session id. A word never holds whitespace (`wftop.tui.query.parse` splits on it), so it is
in ``"a b"`` only where it is in ``a`` or in ``b``; and lower case is taken of each run's text
at once, which is its parts' lower case joined: a space or a newline ends a word for
`str.lower` as the end of the text does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields
from itertools import compress, repeat
from operator import add, attrgetter, contains, or_
from typing import Any, cast

from wftop.core.compared import compared
from wftop.core.row import RunRow
from wftop.tui.format import spend_total
from wftop.tui.query import id_shaped

_NAME = attrgetter("name")
_PROJECT_NAME = attrgetter("project_name")
_PROJECT = attrgetter("project")
_IN_FLIGHT = attrgetter("in_flight")
_FAILED = attrgetter("failed_calls")
_STATUS = attrgetter("shown_status")
_HOST = attrgetter("host")
_RUN_ID = attrgetter("run_id")
_SESSION_ID = attrgetter("session_id")
_IDENT = attrgetter("ident")
_RERUN_TOKENS = attrgetter("rerun_tokens")
_COST = attrgetter("cost_usd")
_PENDING = attrgetter("cost_pending")
_LOWER_BOUND = attrgetter("cost_is_lower_bound")
MOVED_ONE_BY_ONE = 64
"""Runs taken out and put in by `Texts.move` one at a time, each list moved for each; past
that many, where each entry comes from is moved instead, and each list made again from it
once (a change of 2,000 runs of 20,000, the view alone: 268 → 118-127 ms)."""
_UNNAMED = cast("Callable[[str | None, str | None], str]", {None: ""}.get)
"""``_UNNAMED(name, name)``: the name, ``""`` for none."""
_LOCAL = {None: "local"}.get
"""``_LOCAL(host, host)``: the host, ``local`` for this machine."""


@compared
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Texts:
    """The words and the ids of runs, lowercased, one string a run, in the runs' order."""

    words: list[str]
    """Name, project name and slug, call labels in flight and failed, status and host, as
    `wftop.tui.query.hay` joins them."""
    ids: list[str]
    """The run id and the session id, a newline between."""
    idents: list[str]
    """`RunRow.ident`: the runs' row keys."""
    statuses: list[str]
    """`RunRow.shown_status`."""
    name_widths: list[int]
    """The length of the name (0: none)."""
    project_widths: list[int]
    """The length of the project's name."""
    rerun_tokens: list[int | None]
    costs: list[float | None]
    """`RunRow.cost_usd`."""
    pending: list[bool]
    """`RunRow.cost_pending`."""
    lower_bounds: list[bool]
    """`RunRow.cost_is_lower_bound`."""

    @classmethod
    def of(cls, runs: Sequence[RunRow]) -> Texts:
        names = list(map(_NAME, runs))
        hosts = list(map(_HOST, runs))
        labels = map(" ".join, map(add, map(_IN_FLIGHT, runs), map(_FAILED, runs)))
        parts: Iterator[tuple[str, ...]] = zip(
            map(_UNNAMED, names, names),
            map(_PROJECT_NAME, runs),
            map(_PROJECT, runs),
            labels,
            map(_STATUS, runs),
            map(_LOCAL, hosts, hosts),
            strict=True,
        )
        words = list(map(str.lower, map(" ".join, parts)))
        pairs = zip(map(_RUN_ID, runs), map(_SESSION_ID, runs), strict=True)
        ids = list(map(str.lower, map("\n".join, pairs)))
        return cls(
            words,
            ids,
            list(map(_IDENT, runs)),
            list(map(_STATUS, runs)),
            list(map(len, map(_UNNAMED, names, names))),
            list(map(len, map(_PROJECT_NAME, runs))),
            list(map(_RERUN_TOKENS, runs)),
            list(map(_COST, runs)),
            list(map(_PENDING, runs)),
            list(map(_LOWER_BOUND, runs)),
        )

    def columns(self) -> tuple[list[Any], ...]:
        """Every list, in the order of the fields."""
        return tuple(getattr(self, name) for name in _FIELDS)

    def taken(self, kept: Sequence[bool]) -> Texts:
        """The texts of the runs ``kept`` says (one flag a run, in their order)."""
        return Texts(*(list(compress(column, kept)) for column in self.columns()))

    def spent(self) -> int:
        """Tokens spent on re-runs over the runs (`wftop.tui.runorder.Order.spent`)."""
        return sum(filter(None, self.rerun_tokens))

    def cost(self) -> str:
        """What the runs spent (`wftop.tui.format.rows_cost_total`)."""
        return spend_total(self.costs, self.pending, self.lower_bounds)

    def passing(self, runs: list[RunRow], word: str) -> tuple[list[RunRow], Texts]:
        """The runs (these texts' runs, in their order) that ``word`` lets through, and
        their texts."""
        found: Iterator[bool] = map(contains, self.words, repeat(word))
        if id_shaped(word):
            found = map(or_, found, map(contains, self.ids, repeat(word)))
        kept = list(found)
        return list(compress(runs, kept)), self.taken(kept)

    def move(self, taken: list[int], runs: list[RunRow], placed: list[int]) -> None:
        """Follow the runs' order as it moved (`wftop.tui.runorder.Order.drop`, then
        `Order.put` of ``runs``): a change of a few runs costs their texts, not every run's."""
        columns, made = self.columns(), Texts.of(runs).columns()
        if len(taken) + len(placed) <= MOVED_ONE_BY_ONE:
            for at in taken:
                for column in columns:
                    del column[at]
            for number, at in enumerate(placed):
                for column, fresh in zip(columns, made, strict=True):
                    column.insert(at, fresh[number])
            return
        # Many runs: moved once in a list of where each entry comes from (past the end of
        # the texts: the fresh ones), then every list made again from it in one pass.
        held = len(self.words)
        source = list(range(held))
        for at in taken:
            del source[at]
        for number, at in enumerate(placed):
            source.insert(at, held + number)
        for column, fresh in zip(columns, made, strict=True):
            column.extend(fresh)
            column[:] = map(column.__getitem__, source)  # read whole before it is replaced


_FIELDS = tuple(each.name for each in fields(Texts))
