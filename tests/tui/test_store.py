"""The store: what came in is applied once a frame, rows and progress together; the moments
the list is drawn at once."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App

from tests.tui.test_tui_units import only_row
from wftop.tui.store import Change, Progress, Store


def test_every_run_is_held_once_the_store_says_the_first_read_ended():
    frames: list[object] = []
    store = Store(App(), frames.append)
    rows = [only_row("killed"), only_row("clean")]
    store.take(rows)
    store.progressed(Progress(1, 2))
    assert len(frames) == 1  # one application asked for, whatever came in
    assert store.told.read == 1 and store.progress.read == 0 and store.rows == {}
    change = store.apply()
    assert store.progress.read == 1 and sorted(store.rows) == sorted(row.ident for row in rows)
    assert change.progress and len(change.added) == 2


def test_the_moments_the_list_is_drawn_are_applied_at_once_with_the_rows_before_them():
    """``loaded`` (the list may be drawn) and ``known`` (every run known) wait for no frame:
    the frame timer fired 20-50 ms late on a loop busy reading the last rows. The frame
    asked for before still comes, and publishes nothing when nothing came since."""
    from dataclasses import replace

    frames: list[Callable[[], object]] = []
    published: list[Change] = []
    store = Store(App(), frames.append)
    store.changed.publish = published.append  # type: ignore[method-assign]
    first, second = only_row("killed"), only_row("clean")
    store.take([first])
    store.progressed(Progress(1, 1, loaded=True, walking=True))
    assert store.progress.loaded and not store.progress.known
    assert list(store.rows) == [first.ident] and len(published) == 1
    assert published[0].progress and published[0].added == (first,)
    later = replace(first, started=first.started + 1)
    store.take([second, later])
    store.progressed(Progress(2, 2, loaded=True))
    assert store.progress.known and store.rows[first.ident] == later
    assert published[1].added == (second,) and published[1].changed == (later,)
    assert frames == [store.apply]  # the one asked for by the first rows, not another
    frames[0]()
    assert len(published) == 2 and store.applied == 2


def test_a_large_application_moves_what_is_held_out_of_the_collectors_passes():
    """After an application of 1,000 rows or more (a first read, the spends filled in) the
    store settles what the process holds (`gc.freeze`): a full pass of the cyclic collector
    over 20,000 rows took 70-110 ms, on whatever key came then. A small change does not."""
    from dataclasses import replace

    from wftop.tui.store import SETTLE_ROWS

    settled: list[int] = []
    store = Store(App(), lambda _apply: None, settle=lambda: settled.append(store.applied))
    row = only_row("killed")
    many = [replace(row, run_id=f"wf_{number:08x}-000") for number in range(SETTLE_ROWS)]
    store.take(many[:10])
    store.apply()
    assert settled == []
    store.take(many[10:])  # with the 10 before: fewer than SETTLE_ROWS new
    store.apply()
    assert settled == []
    store.take(replace(each, started=each.started + 1) for each in many)
    store.apply()
    assert settled == [3]


def test_memory_is_given_back_a_frame_after_a_large_application_once_its_rows_are_let_go():
    """The spends filled in replace every row: what the first rows took is freed once the
    `Change` that published the new ones (its ``before``) is let go of, and given back to
    the system a frame later (`wftop.core.system.memory`: glibc kept some 10 MB at 20,000
    runs), once however many large applications came in that frame; a small one does not."""
    from dataclasses import replace

    from wftop.tui.store import SETTLE_ROWS

    frames: list[Callable[[], object]] = []
    given: list[int] = []
    store = Store(App(), frames.append, give_back=lambda: given.append(store.applied))
    row = only_row("killed")
    many = [replace(row, run_id=f"wf_{number:08x}-000") for number in range(SETTLE_ROWS)]
    store.take(many[:10])
    store.apply()
    store.take(many)  # with the 10 before: fewer than SETTLE_ROWS new
    store.apply()
    assert frames == [store.apply, store.apply] and given == []
    frames.clear()
    store.take(replace(each, started=each.started + 1) for each in many)
    change = store.apply()
    assert len(frames) == 2 and given == []  # the next application, and the giving back
    store.take(replace(each, started=each.started + 2) for each in many)
    change = store.apply()  # a second large one in the same frame: still one giving back
    assert len(change.before) == SETTLE_ROWS and given == []
    del change
    giving_back = [frame for frame in frames if frame != store.apply]
    assert len(giving_back) == 1
    giving_back[0]()
    assert given == [4]


def test_the_store_counts_the_rows_whose_spend_is_to_come():
    """`Store.filling`: rows sent before what they spent (`RunRow.cost_pending`), less
    those replaced by a row that says it, or gone."""
    from dataclasses import replace

    store = Store(App(), lambda _apply: None)
    row = only_row("killed")
    rows = [replace(row, run_id=f"wf_{number:08x}-000", cost_pending=True) for number in range(5)]
    store.take([*rows, only_row("clean")])
    store.apply()
    assert store.filling == 5
    store.take([replace(rows[0], cost_pending=False), replace(rows[1], started=9)])
    store.take((), [rows[2].ident, only_row("clean").ident])
    store.apply()
    assert store.filling == 3
    store.take(replace(each, cost_pending=False) for each in rows[1:])
    store.apply()
    assert store.filling == 0


def test_the_runs_needing_a_person_are_found_without_looking_at_those_long_idle():
    """The title counts them at every change (about 80 times over 20,000 runs coming in):
    the dead and partial runs last active before the window are not looked at, and the
    others come in the order they were first held."""
    from dataclasses import fields, replace
    from typing import Any, ClassVar

    from wftop.core.model import Status
    from wftop.core.row import RunRow

    class Looked(RunRow):  # notes each run whose status or last activity is read
        looks: ClassVar[list[str]] = []

        def __getattribute__(self, name: str) -> Any:
            if name in ("status", "last_activity"):
                Looked.looks.append(object.__getattribute__(self, "run_id"))
            return object.__getattribute__(self, name)

    base = only_row("killed")
    made = Looked(**{item.name: getattr(base, item.name) for item in fields(RunRow) if item.init})
    now, window = 1_000_000.0, 3600.0

    def run(number: int, status: Status, idle: float) -> Looked:
        return replace(made, run_id=f"wf_{number:08x}-000", status=status, last_activity=now - idle)

    idle = [run(number, Status.DEAD, 7200.0 + number) for number in range(500)]
    recent = run(1000, Status.DEAD, 60.0)
    stalled = run(1001, Status.STALLED, 90_000.0)
    edge = run(1002, Status.DEAD, window)
    store = Store(App(), lambda _apply: None)
    store.take([idle[0], recent, *idle[1:250], stalled, *idle[250:], edge])
    store.apply()
    Looked.looks.clear()
    assert store.needing(now, window) == [recent, stalled, edge]
    assert not {row.run_id for row in idle} & set(Looked.looks)
    store.take(
        [replace(recent, last_activity=now - 7200.0), replace(idle[3], status=Status.STALLED)]
    )
    store.apply()
    assert [row.run_id for row in store.needing(now, window)] == [
        idle[3].run_id,
        stalled.run_id,
        edge.run_id,
    ]
    assert store.attention(now + 1.0, window) == 2  # the edge's left the window


def test_while_the_first_read_goes_on_what_comes_is_applied_at_the_reading_pace():
    """Until every run is known, an application changes the header's count of runs read and
    the title's count (the list holds the runs back): once some runs are held, what comes is
    applied `READING_FRAME` later, not a frame later. The first runs, and whatever comes
    once the list may be drawn, are applied a frame later; the moment it may be drawn, at
    once."""
    from dataclasses import replace

    frames: list[Callable[[], object]] = []
    reading: list[Callable[[], object]] = []
    store = Store(App(), frames.append, reading=reading.append)
    first, second = only_row("killed"), only_row("clean")
    third = replace(first, run_id="wf_0000000a-000")
    store.take([first])
    store.progressed(Progress(1, 3))
    assert frames == [store.apply] and reading == []  # nothing held yet: drawn a frame later
    frames.pop()()
    store.take([second])
    store.progressed(Progress(2, 3))
    assert frames == [] and reading == [store.apply]
    reading.pop()()
    assert sorted(store.rows) == sorted(row.ident for row in (first, second))
    store.progressed(Progress(3, 3))
    assert frames == [] and reading == [store.apply]
    store.take([third])
    store.progressed(Progress(3, 3, loaded=True))  # applied at once, with the row before it
    assert len(store.rows) == 3 and store.progress.known
    reading.pop()()
    store.take([replace(third, started=third.started + 1)])
    assert frames == [store.apply] and reading == []
