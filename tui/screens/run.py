"""One run: what it is, the parity explained, and every call with its attempts."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

import orjson
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import get_current_worker

from wftop.core.forecast.cachewarm import cache_text, read_cache_warmth
from wftop.core.forecast.launchinfo import LaunchInfo, find_launch
from wftop.core.index.changeset import ChangeSet
from wftop.core.model import Run
from wftop.core.read.agent_transcript import AgentUsage
from wftop.core.read.usage import AgentUsages
from wftop.core.remote.fetch import JOURNAL
from wftop.core.text.gate import gate
from wftop.core.text.redact import Redactor
from wftop.tui.calls import (
    Built,
    CallRow,
    Inputs,
    PhaseRow,
    call_facts,
    usage_wanted,
)
from wftop.tui.format import display_path, one_line, status_label
from wftop.tui.keys import LIST_WIDGET_IDS, bindings_for
from wftop.tui.remote import open_fetched
from wftop.tui.widgets.call_table import CallTable
from wftop.tui.widgets.key_bar import KeyBar
from wftop.tui.widgets.table import FittedTable

if TYPE_CHECKING:
    from wftop.tui.app import WftopApp


def owner_text(run: Run) -> str:
    entry = run.owner.entry
    if entry is None:
        return "none (no live process holds the session)"
    return f"pid {entry.pid} ({run.owner.liveness.value})"


def snapshot_text(run: Run) -> str:
    if run.host is not None:  # read there: only whether it is current came over
        return f"on {run.host}, {'current' if run.snapshot_current else 'none current'}"
    if run.snapshot is None:
        return "none (the process never wrote an end-of-run snapshot)"
    status = run.snapshot.status or "?"
    if run.snapshot_current:
        return f"{status}, current"
    return f"{status}, stale (older than the journal: the run went on after it)"


def args_text(run: Run, launch: LaunchInfo | None = None) -> str:
    """The run's args: from the snapshot, else from the launching call once it is read."""
    if run.host is not None:
        return f"- (in the session transcript on {run.host})"
    if run.snapshot is not None and run.snapshot.has_args:
        args, where = run.snapshot.args, ""
    elif launch is None:
        return "… (reading the session transcript)" if run.snapshot is None else "-"
    elif not launch.has_args:
        return "-"
    else:
        args, where = launch.args, "  (from the session transcript)"
    return one_line(orjson.dumps(args, default=repr).decode(), 120) + where


def summary(
    run: Run,
    launch: LaunchInfo | None = None,
    cache: str | None = None,
    *,
    root: bool = False,
    facts: list[str] | None = None,
) -> str:
    """The block above the calls, one fact per line (``cache``: `cache_text`, once read;
    ``root``: name the run's root, which tells apart copies of one run under several roots;
    ``facts``: `call_facts`, when made already)."""
    mask = Redactor()
    head = f"{status_label(run.shown_status)}  {run.name or '(unnamed)'}  {run.run_id}"
    if run.superseded_by:
        head += f"  → continued in session {run.superseded_by}"
    lines = [
        head,
        *(call_facts(run) if facts is None else facts),
        f"script   {display_path(run.script_path)}",
        f"args     {args_text(run, launch)}",
        f"session  {run.session_id}   owner: {owner_text(run)}",
        *([f"         {cache}"] if cache else []),  # the owner session's prompt cache
        f"cwd      {display_path(run.cwd)}",
        *([f"root     {display_path(run.folder.root)}"] if root else []),
        f"snapshot {snapshot_text(run)}",
    ]
    if run.problems:
        lines.append(f"unreadable: {len(run.problems)} line(s) — J shows them")
    return "\n".join(gate(mask(line)) for line in lines)


def rows_held(run: Run) -> bool:
    """The snapshot's agent rows, which the call rows join, are in memory (the first time
    they are read from the file, in the worker that makes the rows)."""
    return run.snapshot is None or run.snapshot.rows_held


BACKGROUND_CALLS = 2_000
"""A run with more calls than this has its rows and call counts made in a worker (50,000
calls take about a second); a smaller one has them made at once (a few milliseconds)."""


class RunScreen(Screen[None]):
    SCREEN_NAME = "run"
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("run", exclude=LIST_WIDGET_IDS)
    AUTO_FOCUS = "CallTable"

    def __init__(self, ident: str) -> None:
        super().__init__()
        self.ident = ident
        self._launch: dict[str, LaunchInfo] = {}
        """The launching ``Workflow`` call of runs without a snapshot, once read."""
        self.folded: set[str] = set()
        """Keys of the phases folded with ``enter`` (kept while the screen shows one run)."""
        self._warm: dict[str, float | None] = {}
        """Until when the owner session's prompt cache of each run stays warm, once read."""
        self._usage: dict[str, dict[str, AgentUsage]] = {}
        """Per run, what the agents without a progress row used (`usage_wanted`), once read."""
        self._usages = AgentUsages()
        self._built: Built | None = None
        """The rows and counts shown, and what they were made from."""
        self._remote: dict[str, tuple[Run, Run]] = {}
        """Per remote run, the run as its row was and its copy with the fetched journal's calls."""
        self._fetching: set[str] = set()
        """Remote runs whose journal is being fetched."""
        self._building: Inputs | None = None
        """What the rows worker was last asked to make them from."""

    @property
    def wftop(self) -> WftopApp:
        """The app, typed for reading its state (its module is imported for typing only)."""
        return cast("WftopApp", self.app)

    @property
    def run(self) -> Run | None:
        return self.wftop.runs.get(self.ident)

    def compose(self) -> ComposeResult:
        yield Static("", id="run-summary")
        yield CallTable(self.wftop.styles_palette, id="run-calls")
        yield KeyBar()

    def on_mount(self) -> None:
        self.wftop.runs_changed.subscribe(self, self.on_runs_changed)
        self.refresh_run()
        self.set_interval(30, self.show_summary)  # the minutes the cache stays warm go down

    def show_run(self, ident: str) -> None:
        """Point this (reused) screen at another run."""
        if ident != self.ident:
            self.ident = ident
            self.folded.clear()
            self._built = self._building = None
            if self.is_mounted:
                self.query_one(CallTable).show([])
                self.refresh_run()

    def on_runs_changed(self, changes: ChangeSet) -> None:
        if not self.is_active:
            return
        if changes.seq == 0 and not changes.added:
            self.query_one(CallTable).invalidate()
        if changes.seq == 0 or any(run.ident == self.ident for run in changes.changed):
            self.refresh_run()

    def on_screen_resume(self) -> None:
        self.refresh_run()

    def refresh_run(self) -> None:
        run = self.run
        if run is None:
            self.query_one("#run-summary", Static).update("This run is gone from disk.")
            return
        launch = self._launch.get(run.ident)
        if run.host is not None:
            run = self._remote_calls(run)
        elif launch is None and run.snapshot is None:
            self.read_launch(run)
        if run.host is None:
            self.read_warmth(run)
            self.read_usage(run)
        inputs = Inputs(run, self._usage.get(run.ident), frozenset(self.folded))
        if self._built is not None and inputs.same(self._built.inputs):
            self.show_summary()
        elif len(run.fold.calls) > BACKGROUND_CALLS or not rows_held(run):
            self.show_summary()
            if not inputs.same(self._building):
                self._building = inputs
                self.build_rows(inputs)
        else:
            self._show_built(Built.of(inputs))

    def _remote_calls(self, run: Run) -> Run:
        """A remote run with the calls of its journal as fetched from its host (each with its
        agents, which its row does not carry), once they came; asked again when the row
        changes."""
        source, copy = self._remote.get(run.ident, (None, None))
        if source is not run and run.ident not in self._fetching:
            self._fetching.add(run.ident)

            def fetched(copy: Run, source: Run = run) -> None:
                self._fetching.discard(source.ident)
                self._remote[source.ident] = (source, copy)
                if source.ident == self.ident:
                    self.refresh_run()

            def failed(ident: str = run.ident) -> None:
                self._fetching.discard(ident)  # asked again when the row next changes

            into = None if copy is None else copy.folder.path  # fetched again: same folder
            open_fetched(
                self.wftop, run, JOURNAL, "the run's calls", fetched, into=into, failed=failed
            )
        return run if copy is None else copy

    @work(thread=True, exclusive=True, group="call-rows", exit_on_error=False)
    def build_rows(self, inputs: Inputs) -> None:
        """The rows of a run with many calls, made off the loop."""
        built = Built.of(inputs)
        if not get_current_worker().is_cancelled:  # a newer request replaced this one
            self.app.call_from_thread(self._show_built, built)

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
        return len(getattr(self.wftop.index, "roots", ())) > 1

    def show_summary(self) -> None:
        run = self.run
        if run is not None:
            until = self._warm.get(run.ident, False)
            cache = None if until is False else cache_text(until, self.wftop.now())
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
            text = summary(run, launch, cache, root=self.several_roots, facts=facts)
            self.query_one("#run-summary", Static).update(Text(text))

    @work(thread=True, exclusive=True, group="warmth", exit_on_error=False)
    def read_warmth(self, run: Run) -> None:
        """Until when the owner's prompt cache stays warm, from its transcript's tail."""
        until = read_cache_warmth(run.folder.transcript).until
        self.app.call_from_thread(self._warmth_read, run.ident, until)

    def _warmth_read(self, ident: str, until: float | None) -> None:
        if self._warm.get(ident, False) != until:
            self._warm[ident] = until
            self.show_summary()

    @work(thread=True, exclusive=True, group="usage", exit_on_error=False)
    def read_usage(self, run: Run) -> None:
        """Time, tokens and tool calls of agents without a progress row, from transcripts
        (which agents those are is found here too: a run may have 50,000 calls)."""
        wanted = usage_wanted(run)
        if wanted:
            usage = self._usages.all_of(run.folder.path, wanted)
            self.app.call_from_thread(self._usage_read, run.ident, usage)

    def _usage_read(self, ident: str, usage: dict[str, AgentUsage]) -> None:
        if (self._usage.get(ident) or {}) != usage:  # none read: the rows stay as they are
            self._usage[ident] = usage
            if ident == self.ident:
                self.refresh_run()

    @work(thread=True, exclusive=True, group="launch", exit_on_error=False)
    def read_launch(self, run: Run) -> None:
        """Find the args in the session transcript (it may be large: not on the UI loop)."""
        launch = find_launch(run)
        self.app.call_from_thread(self._launch_read, run.ident, launch)

    def _launch_read(self, ident: str, launch: LaunchInfo) -> None:
        self._launch[ident] = launch
        if ident == self.ident:
            self.refresh_run()

    @on(FittedTable.Chosen, "#run-calls")
    def row_chosen(self, event: FittedTable.Chosen) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        run, row = self.run, self.query_one(CallTable).cursor_item()
        if isinstance(row, PhaseRow):
            self.folded ^= {row.key}
            self.refresh_run()
            return
        if run is None or not isinstance(row, CallRow) or not row.agent_id:
            return
        from wftop.tui.screens.agent import AgentScreen

        agent, label = row.agent_id, row.label
        if run.host is None:
            self.app.push_screen(AgentScreen(run, agent, label))
            return
        _source, copy = self._remote.get(run.ident, (None, None))
        if copy is not None:
            self.notify(f"fetching the transcript of {label} from {run.host} …", markup=False)
            open_fetched(
                self.wftop,
                copy,
                f"agent-{agent}.jsonl",
                "the transcript",
                lambda fetched: self.app.push_screen(AgentScreen(fetched, agent, label)),
                into=copy.folder.path,
            )

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_journal(self) -> None:
        if self.run is not None:
            from wftop.tui.screens.journal import open_journal  # read on first use

            open_journal(self.wftop, self.run)

    def action_resume(self) -> None:
        if self.run is not None:
            from wftop.tui.screens.plan import open_resume_plan

            open_resume_plan(self.wftop, self.run)

    def action_relaunch(self) -> None:
        if self.run is not None:
            from wftop.tui.screens.plan import open_relaunch

            open_relaunch(self.wftop, self.run)

    def action_copy(self) -> None:
        if self.run is not None:
            from wftop.tui.screens.copy import CopyScreen, run_choices

            row = self.query_one(CallTable).cursor_item()
            agent = row.agent_id if isinstance(row, CallRow) else None
            self.app.push_screen(CopyScreen(run_choices(self.run, agent)))
