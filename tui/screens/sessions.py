"""Sessions: recent sessions with their dead workers and termination cause.

``enter`` drills into a session's forensic report (the same one ``wftop scan``
prints); there, ``r`` on a dead workflow opens its resume plan, and ``p`` on
either screen shows the started-vs-returned plot of every run. Everything shown
is redacted first. The screen is self-contained: it needs only the roots, and
takes them from the app's index when it has some.
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Static

from wftop.core.forensics.limits import RECENT_SESSIONS
from wftop.core.forensics.masking import redaction_line
from wftop.core.forensics.report import build_report
from wftop.core.forensics.summary import recent_rows, report_text
from wftop.core.read.discovery import default_roots, run_ident
from wftop.core.read.errors import cause_words
from wftop.core.system.procs import ProcessTable, default_table
from wftop.core.text.gate import gate
from wftop.core.text.redact import Redactor, redact_tree
from wftop.tui.screens import plan
from wftop.tui.widgets.key_bar import KeyBar

CSS = """
SessionsScreen #sessions-header, SessionReportScreen #report-header {
    height: 1; padding: 0 1; background: $panel; text-wrap: nowrap; text-overflow: ellipsis;
}
SessionsScreen #sessions-table { height: 1fr; }
SessionsScreen #sessions-evidence { height: auto; max-height: 4; padding: 0 1; color: $text-muted; }
SessionReportScreen #report-workers { height: auto; max-height: 12; }
SessionReportScreen #report-body { height: 1fr; padding: 0 1; }
"""


def cells(*values: str) -> list[Text]:
    """A row's cells as plain text: gated, never read as markup (a DataTable reads a string
    cell as Rich markup)."""
    return [Text(gate(value)) for value in values]


def app_roots(app: Any) -> list[str]:
    """The roots the app's index reads, else the default root."""
    roots = getattr(getattr(app, "index", None), "roots", None)
    return list(roots) if roots else default_roots()


class SessionsScreen(Screen[None]):
    """The newest sessions under the roots, each with its dead workers and cause."""

    SCREEN_NAME = "sessions"
    DEFAULT_CSS = CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "back", key_display="esc"),
        Binding("enter", "open", "report", key_display="⏎"),
        Binding("p", "plot", "plot"),
        Binding("f5", "reload", "reload"),
    ]
    AUTO_FOCUS = "#sessions-table"

    def __init__(
        self,
        roots: list[str] | None = None,
        *,
        processes: ProcessTable | None = None,
        limit: int = RECENT_SESSIONS,
    ) -> None:
        super().__init__()
        self.roots = roots
        self.processes = processes or default_table()
        self.limit = limit
        self.rows: list[dict[str, Any]] = []
        self.redactor = Redactor()

    def compose(self) -> ComposeResult:
        yield Static("reading sessions…", id="sessions-header")
        table: DataTable[str] = DataTable(id="sessions-table", cursor_type="row")
        table.add_columns("last write", "session", "dead/all", "cause", "cwd")
        yield table
        yield Static("", id="sessions-evidence")
        yield KeyBar()

    def on_mount(self) -> None:
        if self.roots is None:
            self.roots = app_roots(self.app)
        self.load()

    @work(thread=True, exclusive=True, group="sessions")
    def load(self) -> None:
        rows = recent_rows(self.roots or [], self.limit, self.processes)
        redactor = Redactor()
        shown = redact_tree(rows, redactor)
        self.app.call_from_thread(self.show, shown, redactor)

    def show(self, rows: list[dict[str, Any]], redactor: Redactor) -> None:
        self.rows, self.redactor = rows, redactor
        table = self.query_one("#sessions-table", DataTable)
        table.clear()
        for row in rows:
            when = (row["last_write"] or "-")[:19].replace("T", " ")
            table.add_row(
                *cells(
                    when,
                    row["session_id"][:8],
                    f"{row['dead']}/{row['launched']}",
                    cause_words(row["cause"]),
                    row["cwd"] or row["project"],
                ),
                key=row["transcript"],
            )
        dead = sum(1 for row in rows if row["dead"])
        header = (
            f"Sessions · {len(rows)} newest · {dead} with dead workers · {redaction_line(redactor)}"
        )
        self.query_one("#sessions-header", Static).update(Text(gate(header)))
        self.show_evidence()

    def selected(self) -> dict[str, Any] | None:
        table = self.query_one("#sessions-table", DataTable)
        if not self.rows or table.cursor_row is None or table.cursor_row >= len(self.rows):
            return None
        return self.rows[table.cursor_row]

    @on(DataTable.RowHighlighted, "#sessions-table")
    def show_evidence(self) -> None:
        row = self.selected()
        text = ""
        if row is not None:
            text = f"{cause_words(row['cause'])}: {row['evidence'] or 'no evidence line'}"
        self.query_one("#sessions-evidence", Static).update(Text(gate(text)))

    @on(DataTable.RowSelected, "#sessions-table")
    def action_open(self) -> None:
        row = self.selected()
        if row is not None:
            self.app.push_screen(SessionReportScreen(row["transcript"], processes=self.processes))

    def action_plot(self) -> None:
        from wftop.tui.screens.attempts import AttemptsScreen

        self.app.push_screen(AttemptsScreen(self.roots or [], processes=self.processes))

    def action_reload(self) -> None:
        self.load()

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()


class SessionReportScreen(Screen[None]):
    """One session's forensic report: dead workers, cause, evidence, what clears it."""

    SCREEN_NAME = "session-report"
    DEFAULT_CSS = CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "back", key_display="esc"),
        Binding("r", "resume", "resume workflow"),
        Binding("p", "plot", "plot"),
    ]
    AUTO_FOCUS = "#report-workers"

    def __init__(self, transcript: str, *, processes: ProcessTable | None = None) -> None:
        super().__init__()
        self.transcript = transcript
        self.processes = processes or default_table()
        self.data: dict[str, Any] | None = None

    def compose(self) -> ComposeResult:
        yield Static("reading the session…", id="report-header")
        table: DataTable[str] = DataTable(id="report-workers", cursor_type="row")
        table.add_columns("kind", "id", "liveness", "got", "action", "description")
        yield table
        with VerticalScroll(id="report-body"):
            yield Static("", id="report-text")
        yield KeyBar()

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="session-report")
    def load(self) -> None:
        report = build_report(self.transcript, processes=self.processes)
        redactor = Redactor()
        data = redact_tree(report.to_json(), redactor)
        self.app.call_from_thread(self.show, data, redactor)

    def show(self, data: dict[str, Any], redactor: Redactor) -> None:
        self.data = data
        table = self.query_one("#report-workers", DataTable)
        table.clear()
        for worker in data["dead_workers"]:
            table.add_row(
                *cells(
                    worker["kind"],
                    worker["id"],
                    worker["liveness"],
                    worker["digest"],
                    worker["action"],
                    worker["description"] or "-",
                )
            )
        term = data["termination"]
        header = (
            f"Session {data['session_id'][:8]} · {len(data['dead_workers'])} dead of "
            f"{data['launched']} · cause {cause_words(term['cause'])}"
        )
        self.query_one("#report-header", Static).update(Text(gate(header)))
        body = report_text(data) + "\n\n" + redaction_line(redactor)
        self.query_one("#report-text", Static).update(Text(body))

    def selected_worker(self) -> dict[str, Any] | None:
        if self.data is None:
            return None
        table = self.query_one("#report-workers", DataTable)
        workers = self.data["dead_workers"]
        row = table.cursor_row
        return workers[row] if workers and row is not None and row < len(workers) else None

    def action_resume(self) -> None:
        worker = self.selected_worker()
        if worker is None or worker["kind"] != "workflow" or not worker["run_id"]:
            self.app.notify("Select a dead workflow to resume.", title="Resume", severity="warning")
            return
        open_resume(self.app, self.transcript, worker["run_id"])

    def action_plot(self) -> None:
        from wftop.tui.screens.attempts import AttemptsScreen

        self.app.push_screen(AttemptsScreen(app_roots(self.app), processes=self.processes))

    def action_back(self) -> None:
        self.app.pop_screen()


def open_resume(app: Any, transcript: str, run_id: str) -> None:
    """``r`` on a dead workflow of the session whose transcript is ``transcript``: the resume
    plan of that run under that root, else a hint when no run is found."""
    slug_dir = os.path.dirname(transcript)
    root = os.path.dirname(os.path.dirname(slug_dir))
    session_id = os.path.basename(transcript).removesuffix(".jsonl")
    ident = run_ident(root, session_id, run_id)
    run = None
    index = getattr(app, "index", None)
    if index is not None and hasattr(index, "get"):
        run = index.get(ident)
    if run is None:
        run = getattr(app, "runs", {}).get(ident)
    if run is None:
        from wftop.core.index.coldpass import scan_roots

        run = next(
            (r for r in scan_roots(app_roots(app)).runs if r.ident == ident),
            None,
        )
    if run is None:
        app.notify(f"Run `wftop resume {run_id}` to resume it.", title="Resume")
        return
    plan.open_resume_plan(app, run)
