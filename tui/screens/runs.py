"""Home: one row per run, a counts line, filter / sort / group, live in place."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, ClassVar, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import BindingType
from textual.screen import Screen
from textual.widgets import Input, Static

from wftop.core.index.changeset import ChangeSet
from wftop.core.model import Run
from wftop.core.text.gate import shown
from wftop.tui.format import count, counts_line, status_counts
from wftop.tui.keys import LIST_WIDGET_IDS, bindings_for
from wftop.tui.messages import OpenRun
from wftop.tui.runlist import (
    GROUPS,
    LOCAL,
    SORTS,
    STATUS_FILTERS,
    GroupRow,
    RunListView,
    cycle,
)
from wftop.tui.widgets.key_bar import KeyBar
from wftop.tui.widgets.run_table import RunTable
from wftop.tui.widgets.table import FittedTable

if TYPE_CHECKING:
    from wftop.tui.app import WftopApp


BIG_LIST = 1000
"""From this many runs on, live changes are redrawn in batches."""

BIG_LIST_DELAY = 0.25
"""Seconds a batch of live changes waits before the list is redrawn."""


class RunsScreen(Screen[None]):
    """Every run, newest activity first."""

    SCREEN_NAME = "runs"
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("runs", exclude=LIST_WIDGET_IDS)
    AUTO_FOCUS = "RunTable"

    def __init__(self) -> None:
        super().__init__()
        self.view = RunListView()
        self._counts: dict[str, int] | None = None
        """Runs per status, kept until the runs change."""
        self._refresh_pending = False
        self._spent = 0
        """Tokens spent on re-runs over the rows shown (`Run.rerun_tokens`)."""

    @property
    def wftop(self) -> WftopApp:
        """The app, typed for reading its state (its module is imported for typing only)."""
        return cast("WftopApp", self.app)

    def compose(self) -> ComposeResult:
        yield Static("", id="runs-header")
        yield Input(
            placeholder="filter: words, status:dead, project:web, session:…, run:…",
            id="runs-filter",
        )
        yield RunTable(self.wftop.styles_palette, self.wftop.now, id="runs-table")
        yield Static("", id="runs-empty")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#runs-filter", Input).display = False
        self.wftop.runs_changed.subscribe(self, self.on_runs_changed)
        self.refresh_rows()
        self.read_marks()

    @property
    def table(self) -> RunTable:
        return self.query_one(RunTable)

    # -- data --------------------------------------------------------------------------------

    def on_runs_changed(self, changes: ChangeSet) -> None:
        self._counts = None
        if changes.seq == 0 and not changes.added:
            self.table.invalidate()  # a clock tick or a new theme: ages and colours move
        if len(self.wftop.runs) < BIG_LIST:
            self.refresh_rows()
        elif not self._refresh_pending:
            # Re-sorting thousands of runs for every burst of file events would keep a
            # core busy: redraw at most a few times a second.
            self._refresh_pending = True
            self.set_timer(BIG_LIST_DELAY, self._flush)

    def _flush(self) -> None:
        self._refresh_pending = False
        self.refresh_rows()

    def on_resize(self) -> None:
        self._header(self.wftop.runs.values(), len(self.table.item_keys))

    def refresh_rows(self) -> None:
        runs = self.wftop.runs.values()
        rows = self.view.rows(runs)
        self.table.show_hosts(bool(self.wftop.hosts))
        self.table.show(list(rows))
        groups = (
            sum(1 for row in rows if isinstance(row, GroupRow)) if self.view.group != "none" else 0
        )
        if groups and self.view.collapsed:  # the runs of a folded group are not counted
            self._spent = sum(row.rerun_tokens or 0 for row in rows if isinstance(row, Run))
        else:
            self._spent = self.view.rerun_tokens(runs)
        self._header(runs, len(rows) - groups)

    def _header(self, runs: Iterable[Run], listed: int) -> None:
        app = self.wftop
        total = len(app.runs)
        described = self.view.describe()
        suffix = f"   [{described} · {listed} of {total}]" if described else ""
        if self._spent:
            suffix = f" · {count(self._spent)} tokens on re-runs{suffix}"
        room = max(10, self.size.width - 2 - len(suffix))
        if not app.loaded:
            text = f"scanning… {app.scanned} runs read"
        else:
            if self._counts is None:
                self._counts = status_counts(runs)
            text = counts_line(self._counts, room)
        down = [state.host for state in app.hosts.values() if state.failure is not None]
        if down:
            text += f" · unreachable: {', '.join(down)}"
        text += suffix
        self.query_one("#runs-header", Static).update(Text(shown(text)))
        empty = self.query_one("#runs-empty", Static)
        if app.loaded and not total:
            empty.update("No Workflow runs under the roots yet.")
        elif app.loaded and listed == 0:
            empty.update("No run matches; esc clears the filter.")
        else:
            empty.update("")
        empty.display = bool(app.loaded and listed == 0)

    def selected_run(self) -> Run | None:
        item = self.table.cursor_item()
        return item if isinstance(item, Run) else None

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
        if isinstance(item, Run):
            self.post_message(OpenRun(item.ident))

    def action_filter(self) -> None:
        box = self.query_one("#runs-filter", Input)
        box.display = True
        box.focus()
        wanted = self.view.without_hays(self.wftop.runs.values())
        if wanted:
            self.make_hays(wanted)

    @work(thread=True, exclusive=True, group="hays", exit_on_error=False)
    def make_hays(self, runs: list[Run]) -> None:
        """What the filter will match each run against, made while the first key is typed."""
        made = RunListView.make_hays(runs)
        self.app.call_from_thread(self.view.add_hays, made)

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
        names = sorted({run.project_short for run in self.wftop.runs.values()})
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
            from wftop.tui.screens.plan import open_resume_plan

            open_resume_plan(self.wftop, run)

    def action_relaunch(self) -> None:
        run = self.selected_run()
        if run is not None:
            from wftop.tui.screens.plan import open_relaunch

            open_relaunch(self.wftop, run)

    # -- wftop supervise ------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="marks", exit_on_error=False)
    def read_marks(self, toggle: Run | None = None) -> None:
        """The runs marked auto, read from the supervisor's state (after marking ``toggle``
        or taking its mark off), off the loop; a state wftop cannot use is said in a toast."""
        from wftop.core.supervise.audit import AuditError
        from wftop.core.supervise.state import SuperviseStore

        store = SuperviseStore()
        note = None
        try:
            if toggle is not None:
                marked = store.toggle(toggle.run_id, toggle.folder.root)
                note = (
                    f"auto: wftop supervise may resume {toggle.run_id}"
                    if marked
                    else f"auto mark taken off {toggle.run_id}"
                )
            marks = store.read_state().marks
        except AuditError as error:
            self.app.call_from_thread(self._marks_failed, str(error))
            return
        auto = frozenset((mark.run, mark.root or "") for mark in marks)
        self.app.call_from_thread(self._show_marks, auto, note)

    def _show_marks(self, auto: frozenset[tuple[str, str]], note: str | None) -> None:
        self.table.auto = auto
        self.table.invalidate()
        self.refresh_rows()
        if note:
            self.notify(shown(note), timeout=4)

    def _marks_failed(self, why: str) -> None:
        self.notify(shown(why), title="Auto marks", severity="error", timeout=8)

    def action_auto_resume(self) -> None:
        run = self.selected_run()
        if run is None:
            return
        if self.wftop.read_only:
            self.notify(self.wftop.read_only_reason, title="Auto refused", severity="warning")
        elif run.host is not None:
            self.notify(
                shown(
                    f"runs of {run.host} are supervised there: wftop supervise --host {run.host}"
                ),
                title="Auto refused",
                severity="warning",
            )
        else:
            self.read_marks(run)

    def action_supervisor(self) -> None:
        from wftop.tui.screens.supervisor import SupervisorScreen

        self.app.push_screen(SupervisorScreen())

    def action_journal(self) -> None:
        run = self.selected_run()
        if run is not None:
            from wftop.tui.screens.journal import open_journal  # read on first use

            open_journal(self.wftop, run)

    def action_copy(self) -> None:
        run = self.selected_run()
        if run is not None:
            from wftop.tui.screens.copy import CopyScreen, run_choices

            self.app.push_screen(CopyScreen(run_choices(run)))

    def palette_commands(self) -> Iterable[SystemCommand]:
        for status in STATUS_FILTERS[1:]:
            yield SystemCommand(
                f"Show {status} runs", "filter the list by status", self._status_setter(status)
            )
        for sort in SORTS:
            yield SystemCommand(f"Sort by {sort}", "order of the run list", self._sort_setter(sort))
        for group in GROUPS:
            yield SystemCommand(
                f"Group by {group}", "group the run list", self._group_setter(group)
            )
        if self.wftop.hosts:
            for host in (None, LOCAL, *self.wftop.hosts):
                title = {None: "every host", LOCAL: "this machine"}.get(host, f"host {host}")
                yield SystemCommand(
                    f"Show runs of {title}", "filter the list by host", self._host_setter(host)
                )

    def _host_setter(self, host: str | None) -> Callable[[], None]:
        def apply() -> None:
            self.view.host = host
            self.refresh_rows()

        return apply

    def _status_setter(self, status: str | None) -> Callable[[], None]:
        def apply() -> None:
            self.view.status = status
            self.refresh_rows()

        return apply

    def _sort_setter(self, sort: str) -> Callable[[], None]:
        def apply() -> None:
            self.view.sort = sort
            self.refresh_rows()

        return apply

    def _group_setter(self, group: str) -> Callable[[], None]:
        def apply() -> None:
            self.view.group = group
            self.view.collapsed.clear()
            self.refresh_rows()

        return apply
