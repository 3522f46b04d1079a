"""What a filter of free words searches, for every run of a list at once: each run's words
(`wftop.tui.query.Hay.words`) and its ids as one string a run, in the list's order, made and
searched by loops that run in C (``map``, ``compress``): no key typed over 20,000 runs walks
them in Python.

Pure. `Texts.passing` lets through exactly the runs `wftop.tui.query.matches` does for a
filter of free words: a word is in the run's words, or, shaped like an id, in its run or
session id. A word never holds whitespace (`wftop.tui.query.parse` splits on it), so it is
in ``"a b"`` only where it is in ``a`` or in ``b``; and lower case is taken of each run's text
at once, which is its parts' lower case joined: a space or a newline ends a word for
`str.lower` as the end of the text does.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from operator import add, attrgetter, contains, or_

from wftop.core.row import RunRow
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
_UNNAMED = {None: ""}.get
"""``_UNNAMED(name, name)``: the name, ``""`` for none."""
_LOCAL = {None: "local"}.get
"""``_LOCAL(host, host)``: the host, ``local`` for this machine."""


@dataclass(frozen=True, slots=True)
class Texts:
    """The words and the ids of runs, lowercased, one string a run, in the runs' order."""

    words: list[str]
    """Name, project name and slug, call labels in flight and failed, status and host, as
    `wftop.tui.query.hay` joins them."""
    ids: list[str]
    """The run id and the session id, a newline between."""

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
        return cls(words, ids)

    def passing(self, runs: list[RunRow], word: str) -> tuple[list[RunRow], Texts]:
        """The runs (these texts' runs, in their order) that ``word`` lets through, and
        their texts."""
        found: Iterator[bool] = map(contains, self.words, repeat(word))
        if id_shaped(word):
            found = map(or_, found, map(contains, self.ids, repeat(word)))
        kept = list(found)
        chosen = list(compress(runs, kept))
        return chosen, Texts(list(compress(self.words, kept)), list(compress(self.ids, kept)))

    def move(self, taken: list[int], runs: list[RunRow], placed: list[int]) -> None:
        """Follow the runs' order as it moved (`wftop.tui.runorder.Order.drop`, then
        `Order.put` of ``runs``): a change of a few runs costs their texts, not every run's."""
        words, ids = self.words, self.ids
        for at in taken:
            del words[at], ids[at]
        fresh = Texts.of(runs)
        for at, word, id_ in zip(placed, fresh.words, fresh.ids, strict=True):
            words.insert(at, word)
            ids.insert(at, id_)
