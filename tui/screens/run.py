"""One run: what it is, the parity explained, and every call with its attempts."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.screen import Screen
from textual.widgets import Static

from wftop.core.cost.runs import run_spend
from wftop.core.cost.tokens import Spend
from wftop.core.cost.usage import Spends
from wftop.core.forecast.cachewarm import cache_text, read_cache_warmth
from wftop.core.forecast.launchinfo import LaunchInfo, find_launch
from wftop.core.model import Run
from wftop.core.read.agent_transcript import AgentUsage
from wftop.core.read.usage import AgentUsages
from wftop.core.remote.fetch import JOURNAL, Fetched, fetch_args, fetch_copy
from wftop.core.remote.rows import run_of
from wftop.core.row import RunRow
from wftop.tui.calls import (
    Built,
    CallRow,
    Inputs,
    PhaseRow,
    agent_spends,
    usage_wanted,
)
from wftop.tui.format import spent_line
from wftop.tui.keys import LIST_WIDGET_IDS, bindings_for
from wftop.tui.messages import (
    GoBack,
    MarkSeen,
    OpenAgent,
    OpenCopy,
    OpenJournal,
    OpenPlan,
    OpenTimeline,
)
from wftop.tui.screens.run_summary import BACKGROUND_CALLS, row_summary, rows_held, summary
from wftop.tui.services import Services
from wftop.tui.store import Change, Store
from wftop.tui.widgets.call_table import CallTable
from wftop.tui.widgets.key_bar import KeyBar
from wftop.tui.widgets.table import FittedTable
from wftop.tui.work import Working


class RunScreen(Working, Screen[None]):
    """One run: its summary and calls, read whole when the screen shows it.

    The list holds the run's row only; the run itself (`wftop.core.model.Run`: its fold,
    snapshot, problems) is read in a job when the screen opens it and again when its row
    changes (`wftop.core.index.details`: only what its files gained), or, for a run of
    another host, from its journal fetched from there. Until then the summary says what the
    row says.
    """

    SCREEN_NAME = "run"
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("run", exclude=LIST_WIDGET_IDS)
    AUTO_FOCUS = "CallTable"

    def __init__(self, store: Store, services: Services, ident: str) -> None:
        super().__init__()
        self.store = store
        self.services = services
        self.ident = ident
        self.key_words = {"resume": "plan"} if services.read_only else {}
        """The key bar's words where they differ from the bindings' (read-only: r plan)."""
        self.details: Run | None = None
        """The whole run, as last read (None: not read yet)."""
        self._launch: dict[str, LaunchInfo] = {}
        """The launching ``Workflow`` call of runs without a snapshot, once read."""
        self.folded: set[str] = set()
        """Keys of the phases folded with ``enter`` (kept while the screen shows one run)."""
        self._warm: dict[str, float | None] = {}
        """Until when the owner session's prompt cache of each run stays warm, once read."""
        self._usage: dict[str, dict[str, AgentUsage]] = {}
        """Per run, what the agents without a progress row used (`usage_wanted`), once read."""
        self._usages = AgentUsages()
        self._spends: dict[str, dict[str, Spend]] = {}
        """Per run, what each agent spent (the COST column), once read."""
        self._spent: dict[str, str] = {}
        """Per run, what it and its session spent (`spent_line`), once read."""
        self._spend_cache = Spends()
        self._built: Built | None = None
        """The rows and counts shown, and what they were made from."""
        self._building: Inputs | None = None
        """What the rows job was last asked to make them from."""
        self._copy: str | None = None
        """Where the journal of a remote run was fetched to (fetched again into it)."""
        self._behind = False

    @property
    def row(self) -> RunRow | None:
        return self.store.rows.get(self.ident)

    @property
    def run(self) -> Run | None:
        """The whole run shown, once read (of this screen's run)."""
        details = self.details
        return details if details is not None and details.ident == self.ident else None

    def compose(self) -> ComposeResult:
        yield Static("", id="run-summary")
        yield CallTable(self.services.palette, id="run-calls")
        yield KeyBar()

    def on_mount(self) -> None:
        self.store.changed.subscribe(self, self.on_store_changed)
        self.read_run()
        self.set_interval(30, self.show_summary)  # the minutes the cache stays warm go down

    def show_run(self, ident: str) -> None:
        """Point this (reused) screen at another run."""
        if ident != self.ident:
            self.ident = ident
            self.folded.clear()
            self.details = None
            self._built = self._building = None
            self._copy = None
            if self.is_mounted:
                self.query_one(CallTable).show([])
                self.show_summary()
                self.read_run()

    def on_store_changed(self, change: Change) -> None:
        if not self.is_current:
            self._behind = self._behind or change.touches(self.ident) or change.clock
            return
        if change.clock:
            self.query_one(CallTable).invalidate()
            self.show_summary()
        if change.touches(self.ident):
            self.read_run()

    def on_screen_resume(self) -> None:
        if self._behind:
            self._behind = False
            self.query_one(CallTable).invalidate()
            self.read_run()

    # -- reading the run ---------------------------------------------------------------------

    def read_run(self) -> None:
        """Read the run (again) in a job; the summary says what the row says meanwhile."""
        row = self.row
        self.show_summary()
        if row is None:
            return
        if row.host is not None:
            self._fetch(row)
            return
        services = self.services
        self.jobs.start(
            "details",
            lambda: services.read(row),
            self._read,
            what="Couldn't read the run",
        )

    def _fetch(self, row: RunRow) -> None:
        """A remote run's calls: its journal fetched from its host (each call with its
        agents, which its row does not carry)."""
        hub, host = self.services.remote, row.host
        if hub is None or host is None:
            return
        run, into = run_of(row), self._copy
        argv = hub.argv(host, fetch_args(run, JOURNAL))

        def fetched(result: Fetched) -> None:
            if result.copy is None:
                self.app.notify(
                    result.failure or "no answer",
                    title="Couldn't fetch the run's calls",
                    severity="error",
                )
                return
            self._copy = result.copy.folder.path
            self._read(result.copy)

        self.jobs.start(
            "details",
            lambda: fetch_copy(argv, run, JOURNAL, into),
            fetched,
            what="Couldn't fetch the run's calls",
        )

    def _read(self, run: Run | None) -> None:
        if run is None:
            if self.row is not None:  # listed a moment ago: its folder went meanwhile
                self.query_one("#run-summary", Static).update("This run is gone from disk.")
            return
        if run.ident != self.ident:
            return
        self.details = run
        if run.host is None:
            if run.ident not in self._launch and run.snapshot is None:
                self.read_launch(run)
            self.read_warmth(run)
            self.read_usage(run)
            self.read_spends(run)
        self.refresh_run()

    def refresh_run(self) -> None:
        """Make the call rows of the run read (in a job when it has many calls)."""
        run = self.run
        if run is None:
            self.show_summary()
            return
        usage, spends = self._usage.get(run.ident), self._spends.get(run.ident)
        inputs = Inputs(run, usage, frozenset(self.folded), spends)
        if self._built is not None and inputs.same(self._built.inputs):
            self.show_summary()
        elif len(run.fold.calls) > BACKGROUND_CALLS or not rows_held(run):
            self.show_summary()
            if not inputs.same(self._building):
                self._building = inputs
                self.jobs.start(
                    "call-rows",
                    lambda: Built.of(inputs),
                    self._show_built,
                    what="Couldn't list the run's calls",
                )
        else:
            self._show_built(Built.of(inputs))

    def _show_built(self, built: Built) -> None:
        if built.run.ident != self.ident:
            return
        self._built = built
        self.show_summary()
        table = self.query_one(CallTable)
        fresh = not table.item_keys
        table.show(list(built.rows))
        if fresh:
            first = next((row.key for row in built.rows if isinstance(row, CallRow)), None)
            if first is not None:
                table.move_to_key(first)

    @property
    def several_roots(self) -> bool:
        return len(self.services.roots) > 1

    def show_summary(self) -> None:
        summary_widget = self.query_one("#run-summary", Static)
        width = self.size.width - summary_widget.styles.gutter.width  # a path keeps its end
        run = self.run
        if run is None:
            row = self.row
            if row is None:
                summary_widget.update("This run is gone from disk.")
            else:
                summary_widget.update(Text(row_summary(row, width)))
            return
        until = self._warm.get(run.ident, False)
        cache = None if until is False else cache_text(until, self.services.clock())
        built = self._built
        if built is not None and built.run is run:
            facts = built.facts
        elif built is not None and built.run.ident == run.ident:
            facts = built.facts  # the counts of a moment ago, until the new ones are made
        elif len(run.fold.calls) > BACKGROUND_CALLS or not rows_held(run):
            facts = [f"calls    {len(run.fold.calls):,} (counting…)"]
        else:
            facts = None
        launch = self._launch.get(run.ident)
        spent = self._spent.get(run.ident)
        row = self.row
        if spent is None and run.host is not None and row is not None:  # as its host counted
            tokens = row.tokens
            cost = Spend(tokens, row.cost_usd, row.unpriced_models, 0, row.missing_transcripts)
            spent = spent_line(cost, None)
        text = summary(
            run, launch, cache, root=self.several_roots, facts=facts, spent=spent, width=width
        )
        summary_widget.update(Text(text))

    def on_resize(self) -> None:
        self.show_summary()  # its paths cut to the new width

    def read_warmth(self, run: Run) -> None:
        """Until when the owner's prompt cache stays warm, from its transcript's tail."""
        transcript, ident = run.folder.transcript, run.ident
        self.jobs.start(
            "warmth",
            lambda: read_cache_warmth(transcript).until,
            lambda until: self._warmth_read(ident, until),
            what="Couldn't read the owner's prompt cache",
        )

    def _warmth_read(self, ident: str, until: float | None) -> None:
        if self._warm.get(ident, False) != until:
            self._warm[ident] = until
            self.show_summary()

    def read_usage(self, run: Run) -> None:
        """Time, tokens and tool calls of agents without a progress row, from transcripts
        (which agents those are is found in the job too: a run may have 50,000 calls)."""
        usages, ident, path = self._usages, run.ident, run.folder.path

        def read() -> dict[str, AgentUsage] | None:
            wanted = usage_wanted(run)
            return usages.all_of(path, wanted) if wanted else None

        def read_done(usage: dict[str, AgentUsage] | None) -> None:
            if usage is not None:
                self._usage_read(ident, usage)

        self.jobs.start("usage", read, read_done, what="Couldn't read the agents' usage")

    def _usage_read(self, ident: str, usage: dict[str, AgentUsage]) -> None:
        if (self._usage.get(ident) or {}) != usage:  # none read: the rows stay as they are
            self._usage[ident] = usage
            if ident == self.ident:
                self.refresh_run()

    def read_spends(self, run: Run) -> None:
        """What each agent, the run and its session spent, from their transcripts (each read
        again only when it changed)."""
        spends, ident = self._spend_cache, run.ident

        def read() -> tuple[dict[str, Spend], str]:
            agents = agent_spends(run, spends)
            calls = run_spend(run, spends).total
            return agents, spent_line(calls, spends.of(run.folder.transcript))

        def read_done(found: tuple[dict[str, Spend], str]) -> None:
            agents, line = found
            if self._spends.get(ident) != agents or self._spent.get(ident) != line:
                self._spends[ident], self._spent[ident] = agents, line
                if ident == self.ident:
                    self.refresh_run()

        self.jobs.start("spends", read, read_done, what="Couldn't read what the run spent")

    def read_launch(self, run: Run) -> None:
        """Find the args in the session transcript (it may be large: not on the UI loop)."""
        ident = run.ident
        self.jobs.start(
            "launch",
            lambda: find_launch(run),
            lambda launch: self._launch_read(ident, launch),
            what="Couldn't read the session transcript",
        )

    def _launch_read(self, ident: str, launch: LaunchInfo) -> None:
        self._launch[ident] = launch
        if ident == self.ident:
            self.refresh_run()

    # -- keys ------------------------------------------------------------------------------

    @on(FittedTable.Chosen, "#run-calls")
    def row_chosen(self, event: FittedTable.Chosen) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        row = self.query_one(CallTable).cursor_item()
        if isinstance(row, PhaseRow):
            self.folded ^= {row.key}
            self.refresh_run()
            return
        if not isinstance(row, CallRow) or not row.agent_id:
            return
        self.post_message(OpenAgent(self.ident, row.agent_id, row.label, self._copy or ""))

    def action_back(self) -> None:
        self.post_message(GoBack())

    def action_journal(self) -> None:
        self.post_message(OpenJournal(self.ident))

    def action_timeline(self) -> None:
        self.post_message(OpenTimeline(self.ident))

    def action_resume(self) -> None:
        self.post_message(OpenPlan(self.ident))

    def action_relaunch(self) -> None:
        self.post_message(OpenPlan(self.ident, fresh=True))

    def action_copy(self) -> None:
        row = self.query_one(CallTable).cursor_item()
        agent = row.agent_id if isinstance(row, CallRow) else None
        self.post_message(OpenCopy(self.ident, agent))

    def action_ack(self) -> None:
        self.post_message(MarkSeen((self.ident,)))

    def action_ack_all(self) -> None:
        self.post_message(MarkSeen(every=True))
