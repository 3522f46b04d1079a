"""A run's timeline: one lane per call, a bar per attempt, the deaths and resumes on the axis.

`wftop.core.forensics.timeline` reads the times (each attempt's transcript, in a job with the
run itself: a 50,000-call run reads 50,000 of them) and maps them to columns, each long pause
one column, so the run fits a 60-column pane. The lanes are drawn by a `LineView`, only those
in view, in its job; phases are bands, a line each over their lanes. Glyphs say what colour
repeats: ``█`` done, ``✗`` failed, ``▒`` dead (to the moment its process died), ``░``
running, ``╌`` an attempt the CLI started again, ``◆`` served from cache at that resume; on
the axis ``✖`` the process died, ``↻`` a resume, ``┊`` a pause drawn as one column.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.screen import Screen
from textual.widgets import Static

from wftop.core.forensics.timeline import (
    RETRIED,
    Axis,
    Lane,
    Timeline,
    offset_words,
    read_timeline,
)
from wftop.core.row import RunRow
from wftop.core.text.gate import gate, shown
from wftop.tui.keys import binding
from wftop.tui.messages import GoBack
from wftop.tui.services import Services
from wftop.tui.styles import Palette
from wftop.tui.widgets.key_bar import KeyBar
from wftop.tui.widgets.line_view import LineView
from wftop.tui.work import Working

GLYPHS: dict[str, tuple[str, str]] = {
    "done": ("█", "parity-done"),
    "cached": ("█", "parity-done"),
    "failed": ("✗", "parity-failed"),
    "dead": ("▒", "error"),
    "running": ("░", "parity-in-flight"),
    RETRIED: ("╌", "muted"),
}
"""Glyph and style of an attempt's bar by how it ended."""
CACHED_MARK = "◆"
DEATH_MARK, RESUME_MARK, PAUSE_MARK = "✖", "↻", "┊"
LEGEND = (
    "█ done  ✗ failed  ▒ dead  ░ running  ╌ started again  ◆ from cache  ✖ died  ↻ resumed  ┊ pause"
)
STATE_WIDTH = 8
"""Cells of the call's state at the end of its lane."""
MAX_LABEL = 16


@dataclass(frozen=True)
class Ready:
    """A timeline read, with its rows: ("phase", its first lane) or ("lane", its index)."""

    timeline: Timeline
    rows: tuple[tuple[str, int], ...]
    label_width: int


def ready_of(timeline: Timeline) -> Ready:
    """The rows of a timeline: each phase's band over its lanes."""
    rows: list[tuple[str, int]] = []
    for phase, first, last in timeline.phases():
        if phase:
            rows.append(("phase", first))
        rows.extend(("lane", at) for at in range(first, last + 1))
    labels = [len(gate(lane.label)) for lane in timeline.lanes]
    return Ready(timeline, tuple(rows), min(MAX_LABEL, max([4, *labels])))


class TimelineScreen(Working, Screen[None]):
    """The timeline of one run (``t`` on the run screen, binding id ``timeline``)."""

    SCREEN_NAME = "timeline"
    DEFAULT_CSS = """
    TimelineScreen #timeline-header { height: auto; padding: 0 1; background: $panel; }
    TimelineScreen #timeline-axis { height: 2; padding: 0 1; }
    TimelineScreen #timeline-lanes { padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [binding("back")]

    def __init__(self, services: Services, row: RunRow) -> None:
        super().__init__()
        self.services = services
        self.row = row
        self.timeline: Timeline | None = None
        self.rows_of: tuple[tuple[str, int], ...] = ()
        """Each row: ("phase", its first lane) or ("lane", its index)."""
        self._axis: tuple[int, Axis] | None = None
        self._lock = threading.Lock()
        self.label_width = 4

    @property
    def view(self) -> LineView:
        return self.query_one(LineView)

    def compose(self) -> ComposeResult:
        yield Static(self.title_text("reading the times of its calls …"), id="timeline-header")
        yield Static("", id="timeline-axis")
        yield LineView(self.rows, id="timeline-lanes")
        yield KeyBar()

    def title_text(self, note: str) -> Text:
        row = self.row
        head = f"timeline  {row.name or '(unnamed)'}  {row.run_id}  {row.shown_status}"
        return Text(f"{shown(head)}\n{note}")

    def on_mount(self) -> None:
        self.view.focus()
        self.read()

    def read(self) -> None:
        """The run and the times of its calls, in a job that says how far it has come."""
        services, row = self.services, self.row

        def work(report: Callable[[Ready | str], None]) -> None:
            run = services.read(row)
            if run is None:
                report("This run is gone from disk.")
                return

            def progress(done: int, total: int) -> None:
                report(f"reading the times of its calls: {done:,} of {total:,} …")

            report(ready_of(read_timeline(run, progress)))

        self.jobs.stream("timeline", work, self._read, what="Couldn't read the run's timeline")

    def _read(self, read: Ready | str) -> None:
        if isinstance(read, str):
            self._header(read)
            return
        timeline = read.timeline
        self.timeline, self.rows_of, self.label_width = timeline, read.rows, read.label_width
        start, end = timeline.start, timeline.end
        facts = [f"{len(timeline.lanes):,} calls"]
        if start is not None and end is not None:
            facts.append(f"{offset_words(end - start)[1:]} from first start to last event")
        facts.append(f"{len(timeline.deaths)} death{'s' * (len(timeline.deaths) != 1)}")
        facts.append(f"{len(timeline.resumes)} resume{'s' * (len(timeline.resumes) != 1)}")
        if timeline.untimed:
            facts.append(f"{timeline.untimed} attempts without a transcript time (not drawn)")
        self._header(" · ".join(facts) + "\n" + LEGEND)
        self.lay_out()

    def _header(self, note: str) -> None:
        self.query_one("#timeline-header", Static).update(self.title_text(note))

    def on_resize(self, _event: events.Resize) -> None:
        if self.timeline is not None:
            self.lay_out()

    # -- drawing ---------------------------------------------------------------------------

    def bar_width(self) -> int:
        width = self.view.scrollable_content_region.width or self.size.width
        return max(8, width - self.label_width - STATE_WIDTH - 2)

    def axis(self, width: int) -> Axis:
        """The axis for a bar ``width`` cells wide (made once per width, in whichever
        thread asks)."""
        with self._lock:
            if self._axis is None or self._axis[0] != width:
                assert self.timeline is not None
                self._axis = (width, Axis.of(self.timeline, width))
            return self._axis[1]

    def lay_out(self) -> None:
        """The axis for the pane's width (in a job: it walks every attempt), then the lanes
        drawn again on it."""
        timeline, width, label_width = self.timeline, self.bar_width(), self.label_width
        if timeline is None:
            return
        palette = self.services.palette
        self.jobs.start(
            "timeline-axis",
            lambda: axis_text(timeline, self.axis(width), label_width, palette),
            self._laid_out,
            what="Couldn't lay out the timeline",
        )

    def _laid_out(self, text: Text) -> None:
        self.query_one("#timeline-axis", Static).update(text)
        view = self.view
        if view.count != len(self.rows_of):
            view.set_count(len(self.rows_of))  # the lanes show once their axis is made
        else:
            view.read_again()

    def rows(self, first: int, count: int) -> dict[int, Text]:
        """Rows ``first`` … of the lanes (in the `LineView`'s job)."""
        timeline, axis = self.timeline, self._axis
        if timeline is None or axis is None:
            return {}
        palette, width = self.services.palette, self.label_width
        texts = {}
        for row in range(first, min(first + count, len(self.rows_of))):
            kind, at = self.rows_of[row]
            lane = timeline.lanes[at]
            if kind == "phase":
                texts[row] = band_text(lane.phase or "", timeline, axis[1], width, palette)
            else:
                texts[row] = lane_text(lane, timeline, axis[1], width, palette)
        return texts

    def action_back(self) -> None:
        self.post_message(GoBack())


def _marks(timeline: Timeline, axis: Axis) -> dict[int, str]:
    """Column → the mark of a pause, a death or a resume there (a death wins)."""
    marks = {column: PAUSE_MARK for column in axis.breaks}
    for moment in timeline.resumes:
        marks[axis.column(moment)] = RESUME_MARK
    for moment in timeline.deaths:
        marks[axis.column(moment)] = DEATH_MARK
    return marks


def axis_text(timeline: Timeline, axis: Axis, label_width: int, palette: Palette) -> Text:
    """Two lines over the lanes: the marks, then the time of each stretch's start."""
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(" " * (label_width + 1))
    cells = [" "] * axis.width
    for column, mark in _marks(timeline, axis).items():
        cells[column] = mark
    for cell in cells:
        style = {DEATH_MARK: "error", RESUME_MARK: "accent", PAUSE_MARK: "muted"}.get(cell, "")
        out.append(cell, palette[style])
    out.append("\n" + " " * (label_width + 1))
    start = timeline.start or 0.0
    times = [" "] * axis.width
    for a, _b, first, _cols in axis.pieces:
        word = offset_words(a - start)
        if first + len(word) <= axis.width and all(cell == " " for cell in times[first:]):
            times[first : first + len(word)] = list(word)
    end = timeline.end
    if end is not None:
        word = offset_words(end - start)
        at = axis.width - len(word)
        if at >= 0 and all(cell == " " for cell in times[max(0, at - 1) :]):
            times[at:] = list(word)
    out.append("".join(times), palette["muted"])
    return out


def band_text(
    phase: str, timeline: Timeline, axis: Axis, label_width: int, palette: Palette
) -> Text:
    """A phase's band: its name, then a rule with the marks of the axis across it."""
    out = Text(no_wrap=True, overflow="ellipsis")
    name = gate(phase)[: label_width + axis.width // 2]
    out.append(f"{name} ", palette["group"])
    marks = _marks(timeline, axis)
    for column in range(len(name) + 1 - label_width - 1, axis.width):
        mark = marks.get(column) if column >= 0 else None
        out.append(mark or "─", palette["error" if mark == DEATH_MARK else "muted"])
    return out


def lane_text(
    lane: Lane, timeline: Timeline, axis: Axis, label_width: int, palette: Palette
) -> Text:
    """One call: its label, a bar per attempt, a mark where a resume served it from cache,
    and its state."""
    cells: list[tuple[str, str]] = [(" ", "")] * axis.width
    for column, mark in _marks(timeline, axis).items():
        cells[column] = ("┆" if mark != PAUSE_MARK else PAUSE_MARK, "muted")
    for segment in lane.segments:
        glyph, style = GLYPHS.get(segment.state, ("?", ""))
        first, last = axis.column(segment.start), axis.column(segment.end)
        for column in range(first, max(first, last) + 1):
            cells[column] = (glyph, style)
    if lane.cached_at is not None:
        cells[axis.column(lane.cached_at)] = (CACHED_MARK, "accent")
    out = Text(no_wrap=True, overflow="ellipsis")
    label = gate(lane.label)
    if len(label) > label_width:
        label = label[: label_width - 1] + "…"
    out.append(f"{label:<{label_width}} ")
    for glyph, style in cells:
        out.append(glyph, palette[style])
    out.append(f" {lane.state:<{STATE_WIDTH - 1}}", palette[STATE_STYLES.get(lane.state, "")])
    return out


STATE_STYLES = {
    "done": "success",
    "cached": "success",
    "failed": "error",
    "dead": "error",
    "running": "warning",
}
