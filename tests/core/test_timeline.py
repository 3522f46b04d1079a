"""A run's timeline read from the real trees: lanes, attempts, deaths, resumes, the axis."""

from __future__ import annotations

from tests.corpus import tree
from wftop.core.forensics.timeline import (
    RETRIED,
    Axis,
    Lane,
    Segment,
    Timeline,
    pauses,
    read_timeline,
)
from wftop.core.index.coldpass import scan_roots
from wftop.core.model import Run
from wftop.core.system.procs import FakeProcessTable


def the_run(name: str) -> Run:
    (run,) = scan_roots([str(tree(name))], processes=FakeProcessTable()).runs
    return run


def story(timeline: Timeline) -> dict[str, list[str]]:
    return {lane.label: [segment.state for segment in lane.segments] for lane in timeline.lanes}


def test_a_run_killed_in_parallel_then_resumed():
    timeline = read_timeline(the_run("killed-in-parallel-resumed"))
    assert story(timeline) == {
        "a1": ["done"], "a2": ["done"], "a3": ["dead", "done"], "a4": ["done"],
        "a5": ["done"], "a6": ["done"],
    }  # fmt: skip
    (death,), (resume,) = timeline.deaths, timeline.resumes
    lanes = {lane.label: lane for lane in timeline.lanes}
    killed, rerun = lanes["a3"].segments
    assert killed.end == death < resume == rerun.start  # its bar runs to the death
    assert death == lanes["a4"].segments[0].end  # the last thing that ran before it
    assert {lane.label for lane in timeline.lanes if lane.cached_at == resume} == {"a1", "a2", "a4"}
    assert [lane.state for lane in timeline.lanes] == [
        "cached", "cached", "done", "cached", "done", "done",
    ]  # fmt: skip
    assert [phase for phase, _first, _last in timeline.phases()] == ["Plan", "Fan", "Finish"]


def test_a_dead_run_dies_at_its_last_event():
    timeline = read_timeline(the_run("killed-in-parallel"))
    assert story(timeline)["a3"] == ["dead"]
    assert timeline.deaths == [timeline.end] and timeline.resumes == []


def test_an_attempt_that_failed_on_an_api_error_is_failed_not_dead():
    """No ``failed`` line is written for a 429: the transcript says so; nothing died."""
    timeline = read_timeline(the_run("api-errors-429-resumed"))
    assert story(timeline)["a6"] == ["failed", "done"]
    assert timeline.deaths == [] and len(timeline.resumes) == 1
    failed = read_timeline(the_run("mid-failure-resumed"))
    assert story(failed)["a3"] == ["failed", "done"]
    assert failed.deaths == [] and len(failed.resumes) == 1


def test_a_pause_after_an_attempt_started_again_is_a_death_only_when_nothing_ran():
    # a1 stopped at 10 and was started again at 20, while a2 ran from 5 to 15: the CLI
    # started it again (a stall), nothing died; a pause from 15 to 20 is no death either
    assert pauses([(0, 10), (5, 15), (20, 30)], [(0, 10, 20)]) == ([15], [20])
    assert pauses([(0, 10), (11, 12), (30, 40)], [(0, 10, 30)]) == ([12], [30])
    assert pauses([(0, 10), (10.5, 12)], []) == ([], [])


def test_the_axis_gives_an_hours_pause_one_column_and_fits_the_width():
    hour = 3600.0
    lanes = [
        Lane("a1", None, "done", (Segment(0, 10, "done", "x1"),)),
        Lane("a2", None, "done", (Segment(5, 12, "dead", "x2"),
                                  Segment(hour, hour + 8, "done", "x3"))),
        Lane("a3", None, "done", (Segment(hour + 9, hour + 20, "done", "x4"),)),
        Lane("a4", None, "failed", (Segment(2, 4, RETRIED, "x5"),)),
    ]  # fmt: skip
    timeline = Timeline(lanes, deaths=[12], resumes=[hour])
    for width in (20, 40, 60, 200):
        axis = Axis.of(timeline, width)
        assert axis.breaks == [axis.column(12) + 1]
        assert axis.column(hour) == axis.breaks[0] + 1
        assert axis.column(hour + 20) == width - 1 and axis.column(0) == 0
        (first, second) = axis.pieces
        assert second[3] > first[3] > 1  # 12 s of work before, 20 after: both to scale
