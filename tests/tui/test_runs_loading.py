"""The runs screen while the first read goes on: the first rows are drawn at once, the rest
are said in the header and drawn in one go once every run is known."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import fields, replace
from typing import Any, NamedTuple

from tests.tui.test_tui_units import only_row
from tests.tui_kit import drawn, runs_host, until
from wftop.core.model import Status
from wftop.core.row import RunRow
from wftop.tui.runorder import activity_key
from wftop.tui.screens.runs import RunsScreen
from wftop.tui.store import Progress, Store
from wftop.tui.widgets.run_table import RunTable


def many(count: int) -> list[RunRow]:
    row = only_row("killed")
    base = row.last_activity or 0.0
    return [
        replace(row, run_id=f"wf_{number:08x}-000", last_activity=base - number)
        for number in range(count)
    ]


def counting_shows(host: Any) -> tuple[RunsScreen, RunTable, list[int]]:
    """The runs screen, its table, and how many runs the table was shown each time from now."""
    screen = host.screen
    assert isinstance(screen, RunsScreen)
    shows: list[int] = []
    table = screen.query_one(RunTable)
    show = table.show
    table.show = lambda items, *texts: shows.append(len(items)) or show(items, *texts)  # type: ignore[method-assign]
    return screen, table, shows


class Loading(NamedTuple):
    pilot: Any
    screen: RunsScreen
    table: RunTable
    shows: list[int]
    store: Store
    runs: list[RunRow]


@asynccontextmanager
async def first_ten() -> AsyncIterator[Loading]:
    """A runs screen at 100×30 whose store has taken the first ten of 30 runs (not applied
    yet), the table's shows counted from before they were taken (`counting_shows`)."""
    host = runs_host()
    runs = many(30)
    async with host.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen, table, shows = counting_shows(host)
        host.store.take(runs[:10])
        yield Loading(pilot, screen, table, shows, host.store, runs)


async def test_the_first_read_is_drawn_first_rows_then_every_run_in_one_go():
    async with first_ten() as (pilot, screen, table, shows, store, runs):
        store.progressed(Progress(10, 30))
        store.apply()
        await pilot.pause()
        assert shows == [10] and len(table.item_keys) == 10  # something to look at, at once
        for start in (10, 20):
            store.take(runs[start : start + 10])
            store.progressed(Progress(start + 10, 30))
            store.apply()
            await pilot.pause()
            header = str(screen.query_one("#runs-header").render())
            assert f"{start + 10:,} of 30 runs read" in header  # the header says it
        assert shows == [10] and len(table.item_keys) == 10  # the table is not drawn again
        store.progressed(Progress(30, 30, loaded=True))
        store.apply()
        await pilot.pause()
        assert shows == [10, 30]  # every run, drawn once, newest first
        assert table.item_keys == [run.ident for run in runs]


async def test_runs_kept_are_drawn_at_once_and_what_the_walk_finds_in_one_go_after():
    """A start with the engine's rows cache: its kept rows are listed once it says they are
    all out (loaded, walking), then what its walk of the roots finds (a run added, one
    removed) is said in the header and drawn in one go once every run is known."""
    async with first_ten() as (pilot, screen, table, shows, store, runs):
        store.apply()
        await pilot.pause()
        store.take(runs[10:29])
        store.progressed(Progress(29, 29, loaded=True, walking=True))
        store.apply()
        await pilot.pause()
        assert shows == [10, 29]  # every run kept, listed at once
        assert not store.progress.known
        store.take([runs[29]], [runs[0].ident, runs[1].ident])
        store.apply()
        await pilot.pause()
        assert shows == [10, 29]  # the table is not drawn again while the walk goes on
        assert " 28 dead " in str(screen.query_one("#runs-header").render())  # said there
        store.progressed(Progress(29, 29, loaded=True))
        store.apply()
        await pilot.pause()
        assert store.progress.known and shows == [10, 29, 28]
        assert table.item_keys == [run.ident for run in runs[2:]]


async def test_what_the_filter_searches_is_made_once_the_spends_are_filled_in():
    """A large first read sends every row before what it spent, then replaces each: the
    filter's texts are made (in a job, once the list is drawn) after that, not among the
    first rows, whose memory they kept from being given back (20-25 MB at 20,000 runs)."""
    runs = [replace(run, cost_pending=True) for run in many(30)]
    async with listed(runs) as (pilot, screen, store):
        host = screen.app
        assert screen.view.texts_due
        store.take(replace(row, cost_pending=False) for row in runs[:29])
        store.apply()
        await drawn(host)
        assert screen.view.texts_due
        store.take([replace(runs[29], cost_pending=False)])
        store.apply()
        await until(pilot, lambda: screen.view.searchable, "the filter's texts")


async def test_the_filters_texts_are_made_a_while_after_every_run_is_drawn(monkeypatch):
    """Neither while the engine walks for runs its rows cache did not keep (every run is
    ordered anew once it has) nor in the moments after the list is drawn, when the job's
    CPU was the app's (5 ms at 5,000 runs): `TEXTS_AFTER` later."""
    from wftop.tui.screens import runs as runs_screen

    monkeypatch.setattr(runs_screen, "TEXTS_AFTER", 600.0)
    async with listed_then_known() as (pilot, screen):
        assert screen.view.texts_due
        screen._make_texts()  # what the timer does when it fires
        await until(pilot, lambda: screen.view.searchable, "the filter's texts")


@asynccontextmanager
async def listed(
    runs: list[RunRow], *, walking: bool = False
) -> AsyncIterator[tuple[Any, RunsScreen, Store]]:
    """A runs screen at 100×30 that has drawn ``runs``, every run known (``walking``:
    listed from the engine's rows cache while its walk goes on)."""
    host = runs_host()
    async with host.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = host.screen
        assert isinstance(screen, RunsScreen)
        store = host.store
        store.take(runs)
        store.progressed(Progress(len(runs), len(runs), loaded=True, walking=walking))
        await drawn(host)  # what the screen asked to be done once it drew is done
        assert len(screen.table.item_keys) == len(runs)
        yield pilot, screen, store


@asynccontextmanager
async def listed_then_known() -> AsyncIterator[tuple[Any, RunsScreen]]:
    """Listed from the engine's rows cache while its walk went on (the filter's texts not
    made meanwhile), then told every run is known in a change that brings no run."""
    async with listed(many(30), walking=True) as (pilot, screen, store):
        assert screen.view.texts_due
        store.progressed(Progress(30, 30, loaded=True))
        await drawn(screen.app)
        yield pilot, screen


async def test_the_filters_texts_are_made_when_every_run_is_known_after_the_list_is_drawn():
    """Listed from the engine's rows cache while its walk goes on, then every run known in a
    change that brings no run: the texts are made then (`TEXTS_AFTER` later), not at the
    first key that draws the list again (``s`` at 20,000 runs read every row's status, name,
    project and spend until they were)."""
    async with listed_then_known() as (pilot, screen):
        await until(pilot, lambda: screen.view.searchable, "the filter's texts", wait=5.0)


class Watched(RunRow):
    """A row that notes itself each time a field of it is read (`touched`)."""

    __slots__ = ()

    def __getattribute__(self, name: str) -> Any:
        touched.add(id(self))
        return super().__getattribute__(name)


touched: set[int] = set()


def watched(row: RunRow) -> Watched:
    made = object.__new__(Watched)
    for name in (each.name for each in fields(RunRow)):
        object.__setattr__(made, name, getattr(row, name))
    return made


async def test_a_status_chosen_reads_only_the_rows_it_draws():
    """``s`` over runs whose texts are made: which runs pass, their keys, the widths of
    their names and projects and what they spent are read off the texts, so a status
    chosen reads no row but those drawn (the screen's 28), not every run's."""
    statuses = [Status.DEAD, Status.COMPLETED, Status.RUNNING]
    runs = [
        replace(watched(run), status=statuses[number % 3], cost_usd=0.25 * number)
        for number, run in enumerate(many(300))
    ]
    assert all(type(run) is Watched for run in runs)
    async with listed(runs) as (pilot, screen, store):
        host = screen.app
        await until(pilot, lambda: screen.view.searchable, "the filter's texts")
        for status in ("attention", "running", "stalled", "dead"):
            touched.clear()
            await pilot.press("s")
            await drawn(host)
            read = len(touched)
            assert screen.view.status == status
            chosen = [
                run
                for run in store.rows.values()
                if run.shown_status in (screen.view.allowed() or ())
            ]
            assert screen.table.item_keys == [run.ident for run in sorted(chosen, key=activity_key)]
            assert read <= 30, status
