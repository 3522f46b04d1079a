"""A run's timeline: when each call's attempts ran, where its process died and each resume.

The journal keeps no time; each attempt's agent transcript does (`transcript_span`: its first
and last record). One lane per call, one segment per attempt, from its start to its return,
or to the moment its process died. A death is a moment after which nothing ran until the run
was resumed (or until now, for a dead run): an attempt that never returned whose call was
started again, with no other attempt running across that pause; the resume is the first
start after it. Calls a resume served from its cache keep the segment of the attempt that
made their result, and a mark at the resume.

`Axis` maps moments to columns, the long pauses (a death before a resume, often hours) made
one column each, so a run fits 60 columns whatever its pauses. Everything here is pure but
`read_spans`, which reads the transcripts (in a worker: a 50,000-call run reads 50,000).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Final

from wftop.core.calls import State, call_states
from wftop.core.model import Run, Status
from wftop.core.read.agent_transcript import transcript_path
from wftop.core.read.failures import last_api_error
from wftop.core.read.spans import transcript_span

RETRIED: Final = "retried"
"""An attempt that ended without a result while its process went on (the CLI started the
call again: a stall, a throttle)."""

PAUSE_SHARE: Final = 0.1
"""A pause longer than this share of the time something ran (and than `MIN_PAUSE_S`) takes
one column of the axis, whatever its length."""
MIN_PAUSE_S: Final = 1.0

Span = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Segment:
    """One attempt of a call: from its start to its end, and how it ended."""

    start: float
    end: float
    state: str
    """A `State` value (``done``, ``failed``, ``dead``, ``running``), or `RETRIED`."""
    agent_id: str


@dataclass(frozen=True, slots=True)
class Lane:
    label: str
    phase: str | None
    state: str
    """The call's state (`wftop.core.calls.State`)."""
    segments: tuple[Segment, ...]
    cached_at: float | None = None
    """The resume that served the call from its cache (a ``cached`` call)."""


@dataclass(frozen=True)
class Timeline:
    lanes: list[Lane]
    deaths: list[float] = field(default_factory=list)
    """Moments the run's process died (the last one with no resume after it: a dead run)."""
    resumes: list[float] = field(default_factory=list)
    untimed: int = 0
    """Attempts whose transcript gave no time (not drawn)."""

    @cached_property
    def start(self) -> float | None:
        starts = [segment.start for lane in self.lanes for segment in lane.segments]
        return min(starts) if starts else None

    @cached_property
    def end(self) -> float | None:
        ends = [segment.end for lane in self.lanes for segment in lane.segments]
        return max([*ends, *self.deaths, *self.resumes]) if ends else None

    def phases(self) -> list[tuple[str, int, int]]:
        """(phase, first lane, last lane) of each run of lanes in one phase."""
        bands: list[tuple[str, int, int]] = []
        for at, lane in enumerate(self.lanes):
            name = lane.phase or ""
            if bands and bands[-1][0] == name:
                bands[-1] = (name, bands[-1][1], at)
            else:
                bands.append((name, at, at))
        return bands


def read_spans(run: Run, progress: Callable[[int, int], None] | None = None) -> dict[str, Span]:
    """Agent id → its transcript's span, for every attempt of ``run`` (``progress(done,
    total)`` every thousand)."""
    agents = [agent for call in run.fold.ordered_calls() for agent in call.agent_ids]
    spans = {}
    for done, agent in enumerate(agents, 1):
        path = transcript_path(run.folder.path, agent)
        span = transcript_span(path) if path is not None else None
        if span is not None:
            spans[agent] = span
        if progress is not None and done % 1000 == 0:
            progress(done, len(agents))
    return spans


Attempt = tuple[float, float, float | None]
"""(start, end, restart) of an attempt that ended without a result or a ``failed`` line:
``restart`` when its call was started again."""


def _coverage(spans: list[Span]) -> list[Span]:
    """The stretches of time in which something ran, merged, in order."""
    merged: list[Span] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def pauses(spans: list[Span], stopped: list[Attempt]) -> tuple[list[float], list[float]]:
    """Deaths and resumes: a pause in which nothing ran, after an attempt that stopped with
    no result and before its call was started again, is a death and a resume (the last such
    pause before the restart); any other pause longer than `PAUSE_SHARE` of the time that
    ran (and `MIN_PAUSE_S`) is a resume of a run that had ended."""
    covered = _coverage(spans)
    gaps = [(covered[i][1], covered[i + 1][0]) for i in range(len(covered) - 1)]
    ran = sum(b - a for a, b in covered)
    longest = max(MIN_PAUSE_S, ran * PAUSE_SHARE)
    starts = [gap[0] for gap in gaps]
    ends = [gap[1] for gap in gaps]  # both in order: the gaps do not overlap
    died = set()
    for _start, end, restart in stopped:
        if restart is None:
            continue
        first, last = bisect_left(starts, end), bisect_right(ends, restart) - 1
        if first <= last:
            died.add(gaps[last])  # the last pause before the call was started again
    deaths = [gap[0] for gap in gaps if gap in died]
    resumes = [gap[1] for gap in gaps if gap in died or gap[1] - gap[0] > longest]
    return deaths, resumes


def read_timeline(run: Run, progress: Callable[[int, int], None] | None = None) -> Timeline:
    """`build_timeline` of ``run``, its transcripts read (`read_spans`; for the attempts that
    ended without a result or a ``failed`` line, whether they ended on an API error, for
    which the CLI writes no ``failed`` line)."""
    spans = read_spans(run, progress)
    ended = {
        agent
        for call in run.fold.ordered_calls()
        for agent in call.agent_ids[:-1]
        if agent not in call.returned_agent_ids
    }
    folder = run.folder.path
    errored = set()
    for agent in ended:
        path = transcript_path(folder, agent)
        if path is not None and last_api_error(path) is not None:
            errored.add(agent)
    return build_timeline(run, spans, frozenset(errored))


def build_timeline(
    run: Run, spans: Mapping[str, Span], errored: frozenset[str] = frozenset()
) -> Timeline:
    """The lanes of ``run`` from its attempts' spans (`read_spans`); ``errored``: attempts
    whose transcript ends on an API error (they failed, with no ``failed`` line)."""
    views = call_states(run)
    timed: list[Span] = []
    stopped: list[Attempt] = []
    failed_attempts: dict[str, int] = {}
    untimed = 0
    for view in views:
        call = view.call
        returned = set(call.returned_agent_ids)
        failed_left = call.failures_seen
        for at, agent in enumerate(call.agent_ids):
            span = spans.get(agent)
            final = at == len(call.agent_ids) - 1
            if agent in errored:
                failed_attempts[agent] = 1
            elif agent not in returned and not final and failed_left:
                failed_left -= 1
                failed_attempts[agent] = 1
            if span is None:
                untimed += 1
                continue
            timed.append(span)
            if agent not in returned and agent not in failed_attempts:
                restart = None if final else spans.get(call.agent_ids[at + 1], (None,))[0]
                stopped.append((span[0], span[1], restart))
    deaths, resumes = pauses(timed, stopped)
    if run.status in (Status.DEAD, Status.KILLED) and timed:
        last = max(end for _start, end in timed)
        if not deaths or last > deaths[-1]:
            deaths.append(last)
    lanes = []
    for view in views:
        call = view.call
        returned = set(call.returned_agent_ids)
        segments = []
        for at, agent in enumerate(call.agent_ids):
            span = spans.get(agent)
            if span is None:
                continue
            start, end = span
            final = at == len(call.agent_ids) - 1
            if final and view.state is not State.CACHED:
                state = view.state.value
            elif agent in returned or final:
                state = State.DONE.value
            elif agent in failed_attempts:
                state = State.FAILED.value
            else:
                state = State.DEAD.value if died_at(end, deaths, resumes) else RETRIED
            if state == State.DEAD.value:
                end = died_at(end, deaths, resumes) or end  # to the moment its process died
            segments.append(Segment(start, end, state, agent))
        cached_at = None
        if view.state is State.CACHED and segments:
            cached_at = next((r for r in resumes if r >= segments[-1].end), None)
        lanes.append(Lane(call.label, call.phase, view.state.value, tuple(segments), cached_at))
    lanes.sort(key=lambda lane: lane.segments[0].start if lane.segments else float("inf"))
    return Timeline(lanes, deaths, resumes, untimed)


def died_at(end: float, deaths: list[float], resumes: list[float]) -> float | None:
    """When the process of an attempt open until ``end`` died: the first death from then
    on, unless a resume came between (None: it did not die with its process)."""
    death = next((d for d in sorted(deaths) if d >= end), None)
    if death is None or any(end < resume <= death for resume in resumes):
        return None
    return death


@dataclass(frozen=True)
class Axis:
    """Moments to columns: what ran, linearly; each long pause, one column."""

    pieces: list[tuple[float, float, int, int]]
    """(start, end, first column, columns) of each stretch of time drawn to scale."""
    width: int

    @classmethod
    def of(cls, timeline: Timeline, width: int) -> Axis:
        start, end = timeline.start, timeline.end
        if start is None or end is None or width < 1:
            return cls([], max(width, 0))
        stretches = _coverage([(s.start, s.end) for lane in timeline.lanes for s in lane.segments])
        ran = sum(b - a for a, b in stretches) or 1.0
        pause = max(MIN_PAUSE_S, ran * PAUSE_SHARE)
        resumed = set(timeline.resumes)
        merged: list[list[float]] = []
        for a, b in stretches:
            if merged and a - merged[-1][1] <= pause and a not in resumed:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        gaps = len(merged) - 1
        room = max(len(merged), width - gaps)
        total = sum(b - a for a, b in merged) or 1.0
        pieces = []
        column = 0
        for at, (a, b) in enumerate(merged):
            left = len(merged) - at - 1
            cols = max(1, round((b - a) / total * room))
            cols = min(cols, width - column - 2 * left) if at < len(merged) - 1 else width - column
            cols = max(1, cols)
            pieces.append((a, b, column, cols))
            column += cols + 1
        return cls(pieces, width)

    def column(self, moment: float) -> int:
        """The column of a moment (one in a pause: the pause's column)."""
        for at, (a, b, first, cols) in enumerate(self.pieces):
            if moment <= b or at == len(self.pieces) - 1:
                if moment < a:
                    return max(0, first - 1)
                share = (moment - a) / (b - a) if b > a else 0.0
                return min(self.width - 1, first + min(cols - 1, int(share * cols)))
        return 0

    @property
    def breaks(self) -> list[int]:
        """The columns that stand for a long pause."""
        return [first + cols for _a, _b, first, cols in self.pieces[:-1]]


def offset_words(seconds: float) -> str:
    """``+0.4s``, ``+12s``, ``+3m05s``, ``+2h10m``: a moment after the run's start."""
    if seconds < 10:
        return f"+{seconds:.1f}s"
    if seconds < 60:
        return f"+{seconds:.0f}s"
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"+{minutes}m{int(seconds % 60):02d}s"
    return f"+{minutes // 60}h{minutes % 60:02d}m"
