"""When each call of the damaged run was keyed and when it ended (`Span`), and what a
timeline of those spans knows whatever the resume runs live (`Orderings`: every end in
order, the calls that ran alone), for `wftop.core.forecast.keyorder.Timeline`.

Times are the snapshot's ``queuedAt`` and end (``startedAt + durationMs``, milliseconds)
when it has them for every call, else journal line numbers (the first ``started`` line, and
the line of the last ``result`` or ``failed``).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterator, Mapping
from itertools import count
from operator import itemgetter
from typing import Any, NamedTuple

from wftop.core.read.journal import CallState, JournalFold


class Span(NamedTuple):
    """When one call was keyed and when its last attempt ended in the damaged run (a tuple:
    a plan makes one for each of 100,000 calls)."""

    keyed: float
    ended: float | None
    """None: still in flight when the run stopped."""
    seq: int = 0
    """Breaks ties of ``keyed`` (the snapshot's call index: its times are in milliseconds)."""
    ends_from: float | None = None
    """Set when the end is only known to lie between this and ``ended``: a ``failed`` line is
    written late, sometimes after later calls have started."""

    @property
    def earliest_end(self) -> float | None:
        return self.ended if self.ends_from is None else self.ends_from

    @property
    def rank(self) -> tuple[float, int]:
        return self.keyed, self.seq


def journal_spans(fold: JournalFold) -> Mapping[str, Span]:
    """Spans in journal line numbers, per call key (each made when first asked: a plan walks
    100,000 calls and asks for few of them unless something ends reuse)."""
    return JournalSpans(fold)


class JournalSpans(Mapping[str, Span]):
    """`journal_spans`: a call's span from its first and last lines."""

    def __init__(self, fold: JournalFold) -> None:
        self._calls = fold.calls
        self._made: dict[str, Span] = {}

    def __getitem__(self, key: str) -> Span:
        span = self._made.get(key)
        if span is None:
            call = self._calls[key]
            span = self._made[key] = _line_span(call.state, call.first_line, call.last_line)
        return span

    def __iter__(self) -> Iterator[str]:
        return iter(self._calls)

    def __len__(self) -> int:
        return len(self._calls)

    def every(self) -> dict[str, Span]:
        """Every call's span, by key in the fold's order (``dict(self)``, each span made in
        one loop: a timeline of 100,000 calls asks for all of them)."""
        made, new = self._made, tuple.__new__
        in_flight, failed = CallState.IN_FLIGHT, CallState.FAILED
        every = {}
        for key, call in self._calls.items():
            span = made.get(key)
            if span is None:
                state, first = call.state, call.first_line
                if state is in_flight:
                    span = new(Span, (first, None, 0, None))
                else:
                    ends_from = first + 0.5 if state is failed else None
                    span = new(Span, (first, call.last_line, 0, ends_from))
            every[key] = span
        return every


def _line_span(state: CallState, first: int, last: int) -> Span:
    if state is CallState.IN_FLIGHT:
        return Span(first, None)
    return Span(first, last, 0, first + 0.5 if state is CallState.FAILED else None)


def snapshot_spans(fold: JournalFold, rows: Collection[Mapping[str, Any]]) -> dict[str, Span]:
    """Spans in snapshot milliseconds, or ``{}`` when a call has no row with its times."""
    by_agent = {row.get("agentId"): row for row in rows}
    spans = {}
    for key, call in fold.calls.items():
        agent = call.result_agent_id or (call.agent_ids[-1] if call.agent_ids else None)
        row = by_agent.get(agent) or {}
        queued, started, duration = (_number(row.get(name)) for name in TIMES)
        if row.get("cached") or queued is None or started is None:
            return {}
        ended = None
        if row.get("state") in ("done", "error"):
            if duration is None:
                return {}
            ended = started + duration
        index = row.get("index")
        spans[key] = Span(queued, ended, index if isinstance(index, int) else 0)
    return spans


TIMES = ("queuedAt", "startedAt", "durationMs")


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


class Orderings(NamedTuple):
    """What a timeline knows of its spans whatever the resume runs live."""

    spans: dict[str, Span]
    ends: list[float]
    """Every end, in order."""
    unsure_ends: list[tuple[float, float]]
    """(earliest, latest) of every end only known to lie between the two."""
    cuts: set[str]
    """Calls that ran alone (`find_cuts`)."""
    cut_ends: set[float | None]
    settled_at: dict[str, float]
    """`Timeline._settled` of each call asked about (of the spans alone: every timeline of
    them shares it)."""

    @classmethod
    def of(cls, spans: Mapping[str, Span]) -> Orderings:
        every = spans.every() if type(spans) is JournalSpans else dict(spans)
        made = list(every.values())
        ended = list(map(_ENDED, made))
        unsure = [
            (start, end)
            for start, end in zip(map(_ENDS_FROM, made), ended, strict=True)
            if start is not None and end is not None
        ]
        cuts = find_cuts(every)
        ends = sorted([end for end in ended if end is not None])
        return cls(every, ends, unsure, cuts, {every[key].ended for key in cuts}, {})


_KEYED, _ENDED, _SEQ, _ENDS_FROM = map(itemgetter, range(4))
"""A span's fields by place (`Span`: a tuple), read by the columns of a timeline."""


def find_cuts(spans: Mapping[str, Span]) -> set[str]:
    """Calls that ran alone: every call keyed before ended before they were keyed, every call
    keyed after was keyed after they ended. (Columns taken in C, and each least or greatest
    so far compared inline: 100,000 spans 170 -> 100 ms.)"""
    made = list(spans.values())
    ranked = sorted(zip(map(_KEYED, made), map(_SEQ, made), count(), spans))
    order = list(map(itemgetter(3), ranked))
    keyed = list(map(itemgetter(0), ranked))
    inf = math.inf
    ended = [inf if end is None else end for end in map(_ENDED, made)]
    ends = list(map(ended.__getitem__, map(itemgetter(2), ranked)))
    earliest = [inf] * (len(order) + 1)
    low = inf
    for place in range(len(order) - 1, -1, -1):  # as min(keyed[place], low)
        at = keyed[place]
        low = earliest[place] = low if low < at else at
    found = set()
    latest = -inf
    for place, key in enumerate(order):
        end = ends[place]
        if latest < keyed[place] and end < earliest[place + 1]:
            found.add(key)
        if end > latest:  # as max(latest, end)
            latest = end
    return found
