"""Home: one row per run, a counts line, filter / sort / group, live in place.

The screen draws the store's rows (`wftop.tui.store.Store`) and nothing else: each change
the store publishes moves its runs into place (`RunListView.shift`) and redraws what it
touched; progress during the first read redraws the header alone. While another screen is
shown it only notes that it is behind, and catches up when it shows again.
"""

from __future__ import annotations

from functools import partial
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.timer import Timer
from textual.widgets import Input, Static

from wftop.core.row import RunRow
from wftop.core.text.gate import shown
from wftop.tui.format import count, counts_line, display_path, rows_cost_total, status_counts
from wftop.tui.haystack import Texts
from wftop.tui.keys import LIST_WIDGET_IDS, bindings_for
from wftop.tui.messages import (
    MarkSeen,
    OpenCopy,
    OpenJournal,
    OpenPlan,
    OpenRun,
)
from wftop.tui.runlist import (
    GROUPS,
    SORTS,
    STATUS_FILTERS,
    GroupRow,
    RunListView,
    cycle,
)
from wftop.tui.screens.runs_marks import RunsMarks
from wftop.tui.screens.runs_palette import RunsPalette
from wftop.tui.services import Services
from wftop.tui.store import Change, Store
from wftop.tui.widgets.key_bar import KeyBar
from wftop.tui.widgets.run_table import RunTable
from wftop.tui.widgets.table import FittedTable

RELOAD_SHARE = 4
"""A change of more than one run in this many is ordered by a sort, not run by run."""
TEXTS_AFTER = 0.5
"""Seconds after the list is drawn with every run known that the filter's texts are made
(`RunsScreen._make_texts`): not in the moments the list is first looked at."""


def no_runs_yet(roots: tuple[str, ...], missing: tuple[str, ...] = ()) -> str:
    """What an empty list says: where wftop looked, and what to try. ``missing``: roots
    not on disk (a first run: Claude Code makes its config dir when it first runs)."""
    if missing:
        where = ", ".join(display_path(root) for root in missing)
        return (
            f"No {where} here: Claude Code has not run on this machine yet. wftop keeps"
            " watching; runs show up here as they come. Another config dir: wftop --root DIR."
            " To see wftop at work: wftop demo."
        )
    where = ", ".join(display_path(root) for root in roots) or "no root"
    return (
        f"No Workflow runs under {where} yet. Claude Code keeps them in projects/ there;"
        " another config dir: wftop --root DIR. To see wftop at work: wftop demo."
    )


class RunsScreen(RunsPalette, RunsMarks):
    """Every run, newest activity first."""

    SCREEN_NAME = "runs"
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("runs", exclude=LIST_WIDGET_IDS)
    AUTO_FOCUS = "RunTable"

    def __init__(self, store: Store, services: Services) -> None:
        super().__init__()
        self.store = store
        self.services = services
        self.key_words = {"resume": "plan"} if services.read_only else {}
        """The key bar's words where they differ from the bindings' (read-only: r plan)."""
        self.view = RunListView()
        self._counts: dict[str, int] | None = None
        """Runs per status, kept until the runs change."""
        self._behind = False
        """Changes came while another screen was shown."""
        self._spent = 0
        """Tokens spent on re-runs over the rows shown (`RunRow.rerun_tokens`)."""
        self._cost = ""
        """What the runs listed spent (`rows_cost_total`), for the header."""
        self._said: str | None = None
        self._headline: str | None = None
        """What the header says now (drawn again only when it says something else)."""
        """What the line under an empty list says now."""
        self._held_back = False
        """Runs came during the first read and are not in the list yet (`_take`)."""
        self._listed = False
        """The runs were listed once loaded (from the rows cache, while the engine walks)."""
        self._texts_timer: Timer | None = None
        """Makes the filter's texts when it fires (`_make_texts`)."""

    def compose(self) -> ComposeResult:
        yield Static("", id="runs-header")
        yield Input(
            placeholder="filter: words, status:dead, project:web, session:…, run:…",
            id="runs-filter",
        )
        yield RunTable(
            self.services.palette, self.services.clock, seen=self.services.seen, id="runs-table"
        )
        yield Static("", id="runs-empty")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#runs-filter", Input).display = False
        self.store.changed.subscribe(self, self.on_store_changed)
        self.view.load(self.store.rows.values())
        self.refresh_rows()
        self.read_marks()

    @property
    def table(self) -> RunTable:
        return self.query_one(RunTable)

    # -- data --------------------------------------------------------------------------------

    def on_store_changed(self, change: Change) -> None:
        caught_up = self._held_back and not self._holding()
        moved = (change.rows or caught_up) and self._take(change)
        if change.rows:
            self._counts = None
        if not self.is_current:
            self._behind = True
            return
        if change.clock:
            self.table.invalidate()  # ages and colours move
        if moved:
            self.refresh_rows()
        elif change.rows or change.progress or change.links or change.clock:
            self._header(self.table.row_count)
            self._texts_soon()  # every run may be known now, the list drawn before

    def _holding(self) -> bool:
        """The runs that come are held back: the first read goes on (listed once from the
        engine's rows cache, or not yet), and are taken in one go, with the change that says
        every run is known (or that lists the runs the rows cache kept)."""
        progress = self.store.progress
        return not progress.loaded or (progress.walking and self._listed)

    def _take(self, change: Change) -> bool:
        """Move the change's runs into place (a change of most runs is sorted anew); False
        while they are held back (`_holding`) and some runs are drawn already."""
        store = self.store
        if self._holding() and self.view.held:
            self._held_back = True
            return False
        self._listed = store.progress.loaded
        moved = len(change.added) + len(change.changed) + len(change.removed)
        self.table.forget_widths()  # the lists it measured hold runs as they were
        if self._held_back or moved * RELOAD_SHARE > max(self.view.held, 1):
            self._held_back = False
            self.view.load(store.rows.values())
        else:
            self.view.shift(change.added, change.changed, change.removed)
        return True

    def on_screen_resume(self) -> None:
        if self._behind:
            self._behind = False
            self.table.invalidate()
            self.refresh_rows()

    def on_resize(self) -> None:
        self._header(self.table.row_count)

    def refresh_rows(self) -> None:
        view = self.view
        rows = view.rows()
        self.table.show_hosts(bool(self.store.hosts))
        self.table.show(list(rows), view.shown_texts())
        groups = sum(1 for row in rows if isinstance(row, GroupRow)) if view.group != "none" else 0
        if groups and view.collapsed:  # the runs of a folded group are not counted
            self._spent = sum(row.rerun_tokens or 0 for row in rows if isinstance(row, RunRow))
            self._cost = rows_cost_total(row for row in rows if isinstance(row, RunRow))
        else:
            self._spent = view.rerun_tokens()
            self._cost = view.cost_total()
        self._header(len(rows) - groups)
        self._texts_soon()

    def _texts_soon(self) -> None:
        """Make the filter's texts `TEXTS_AFTER` the list is next drawn, if they are due."""
        if self._texts_due() and self._texts_timer is None:
            self.call_after_refresh(self._texts_later)

    def _texts_due(self) -> bool:
        store = self.store
        return self.view.texts_due and store.progress.known and not store.filling

    def _texts_later(self) -> None:
        if self._texts_timer is None:
            self._texts_timer = self.set_timer(TEXTS_AFTER, self._make_texts, name="texts")

    def _make_texts(self) -> None:
        """What a filter of free words searches, made in a job `TEXTS_AFTER` the list is
        drawn with every run known (at once, the job's CPU was the app's in the moments
        after the first frame, 5 ms at 5,000 runs), so that ``/`` finds it made (20,000
        runs: 15-22 ms of the loop's, 4.4 MB kept); moved with the runs' order, made again
        when every run is ordered anew. Not while the spends are filled in: those replace
        every row, and texts made among the first rows kept the memory they were freed
        from (20-25 MB more at 20,000 runs)."""
        self._texts_timer = None
        if not self._texts_due():
            return
        wanted = self.view.texts_wanted()
        if wanted is not None:
            loads, runs = wanted
            made = partial(self.view.texts_made, loads)
            self.jobs.start(
                "texts", partial(Texts.of, runs), made, what="Couldn't ready the filter"
            )

    def _header(self, listed: int) -> None:
        store = self.store
        total = len(store.rows)
        loaded = store.progress.loaded
        described = self.view.describe()
        suffix = f"   [{described} · {listed} of {total}]" if described else ""
        if self._spent:
            suffix = f" · {count(self._spent)} tokens on re-runs{suffix}"
        if self._cost:
            suffix = f" · {self._cost}{suffix}"
        headline = f"{self.services.headline} · " if self.services.headline else ""
        room = max(10, self.size.width - 2 - len(suffix) - len(headline))
        if not loaded:
            progress = store.progress
            of = f" of {progress.total:,}" if progress.total else ""
            # Stopped (the engine failed, or was lost) it is not scanning: says how far it came.
            scanning = "" if store.engine else "scanning… "
            text = f"{scanning}{progress.read:,}{of} runs read"
        else:
            if self._counts is None:
                self._counts = status_counts(store.rows.values())
            text = counts_line(self._counts, room)
        text = headline + text
        if store.engine:
            text += f" · {store.engine}"
        down = [state.host for state in store.hosts.values() if state.failure is not None]
        if down:
            text += f" · unreachable: {', '.join(down)}"
        text += suffix
        # One line whatever it says: redrawn in place, the screen not laid out again; and
        # not at all when a change of the rows left it saying the same.
        if text != self._headline:
            self._headline = text
            self.query_one("#runs-header", Static).update(Text(shown(text)), layout=False)
        if loaded and not total:
            said = shown(no_runs_yet(self.services.roots, store.missing))
        elif loaded and listed == 0:
            said = "No run matches; esc clears the filter."
        else:
            said = ""
        if said != self._said:  # each key would lay the screen out again
            self._said = said
            empty = self.query_one("#runs-empty", Static)
            empty.update(Text(said))
            empty.display = bool(said)

    def selected_run(self) -> RunRow | None:
        item = self.table.cursor_item()
        return item if isinstance(item, RunRow) else None

    # -- actions -----------------------------------------------------------------------------

    @on(FittedTable.Chosen, "#runs-table")
    def row_chosen(self, event: FittedTable.Chosen) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        item = self.table.cursor_item()
        if isinstance(item, GroupRow):
            self.view.collapsed ^= {item.title}
            self.refresh_rows()
            return
        if isinstance(item, RunRow):
            self.post_message(OpenRun(item.ident))

    def action_filter(self) -> None:
        box = self.query_one("#runs-filter", Input)
        if box.has_focus:  # a / typed in the box is text
            box.insert_text_at_cursor("/")
            return
        box.display = True
        # focused now, not a message later: the letters typed with the ``/`` (a paste, a
        # burst) are already queued behind it and belong to the box, not the list's keys
        self.set_focus(box)
        self.view.ready()  # what the filter searches, made before its first letter

    @on(Input.Changed, "#runs-filter")
    def filter_typed(self, event: Input.Changed) -> None:
        self.view.text = event.value.strip()
        self.refresh_rows()

    @on(Input.Submitted, "#runs-filter")
    def filter_done(self, event: Input.Submitted) -> None:
        if not event.value.strip():
            event.input.display = False
        self.table.focus()

    def action_clear_filter(self) -> None:
        box = self.query_one("#runs-filter", Input)
        if box.has_focus and box.value:
            box.value = ""
            return
        view = self.view
        if not (box.display or view.text or view.status or view.project or view.host is not None):
            return
        box.value = ""
        box.display = False
        self.view.text = ""
        self.view.status = None
        self.view.project = None
        self.view.host = None
        self.table.focus()
        self.refresh_rows()

    def action_cycle_status(self) -> None:
        self.view.status = cycle(STATUS_FILTERS, self.view.status)
        self.refresh_rows()

    def action_cycle_project(self) -> None:
        names = sorted({run.project_name for run in self.store.rows.values()})
        projects: tuple[str | None, ...] = (None, *names)
        self.view.project = cycle(projects, self.view.project)
        self.refresh_rows()

    def action_cycle_sort(self) -> None:
        self.view.sort = cycle(SORTS, self.view.sort)
        self.refresh_rows()

    def action_cycle_group(self) -> None:
        self.view.group = cycle(GROUPS, self.view.group)
        self.view.collapsed.clear()
        self.refresh_rows()

    def action_toggle_rerun_column(self) -> None:
        shown = self.table.toggle_rerun_column()
        self.notify(
            "RE-RUN: tokens spent on re-runs of calls that had returned"
            if shown
            else "RE-RUN column hidden (t shows it)",
            timeout=3,
        )

    def action_resume(self) -> None:
        run = self.selected_run()
        if run is not None:
            self.post_message(OpenPlan(run.ident))

    def action_relaunch(self) -> None:
        run = self.selected_run()
        if run is not None:
            self.post_message(OpenPlan(run.ident, fresh=True))

    def action_journal(self) -> None:
        run = self.selected_run()
        if run is not None:
            self.post_message(OpenJournal(run.ident))

    def action_copy(self) -> None:
        run = self.selected_run()
        if run is not None:
            self.post_message(OpenCopy(run.ident))

    def action_ack(self) -> None:
        run = self.selected_run()
        if run is not None:
            self.post_message(MarkSeen((run.ident,)))

    def action_ack_all(self) -> None:
        self.post_message(MarkSeen(every=True))
