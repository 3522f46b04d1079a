"""Sessions: recent sessions with their dead workers and termination cause.

``enter`` drills into a session's forensic report (the same one ``wftop scan``
prints); there, ``r`` on a dead workflow opens its resume plan, and ``p`` on
either screen shows the started-vs-returned plot of every run. Everything shown
is redacted first. The screens are given the services (the roots, the process table) and
read in background jobs; ``r`` asks the navigator for the plan of the run the session's
folder holds (read alone, off the loop, when it is not listed).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Static

from wftop.core.forensics.limits import RECENT_SESSIONS
from wftop.core.forensics.masking import redaction_line
from wftop.core.forensics.report import build_report
from wftop.core.forensics.summary import listed_twice, recent_rows, report_text
from wftop.core.read.errors import cause_words
from wftop.core.text.cuts import cell_width, cut_start
from wftop.core.text.gate import gate
from wftop.core.text.redact import Redactor, redact_tree
from wftop.tui.format import display_path
from wftop.tui.messages import GoBack, OpenAttempts, OpenRunAt, OpenSessionReport
from wftop.tui.services import Services
from wftop.tui.widgets.key_bar import KeyBar
from wftop.tui.work import Working

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


def widths(labels: Sequence[str], rows: Sequence[list[Text]]) -> list[int]:
    """Each column's width: its label's or its widest cell's."""
    return [
        max([len(label), *(row[at].cell_len for row in rows)]) for at, label in enumerate(labels)
    ]


def fill(
    table: DataTable[Any],
    labels: Sequence[str],
    rows: Sequence[list[Text]],
    keys: Sequence[str] | None = None,
) -> None:
    """Every row at once, each column as wide as its label and its widest cell: the table
    measures nothing afterwards, so no row is drawn at widths that change when it is idle
    (as an auto-width column's are, while rows it drew are kept)."""
    table.clear(columns=True)
    for label, width in zip(labels, widths(labels, rows), strict=True):
        table.add_column(label, width=width)
    for at, row in enumerate(rows):
        table.add_row(*row, key=keys[at] if keys is not None else None)


SESSION_COLUMNS = ("last write", "session", "dead/all", "cause", "cwd")
CWD_LEAST = 24
"""The cwd column's width when the screen leaves it less: its end still tells sessions apart
(the whole path is on the line below the table)."""
WORKER_COLUMNS = ("kind", "id", "liveness", "got", "action", "description")


def where(row: dict[str, Any], twice: bool) -> tuple[str, str]:
    """Where a session ran, gated: its cwd (else its project), and its root when one
    session is listed under two roots (the root tells the rows apart)."""
    shown = gate(row["cwd"] or row["project"])
    return shown, gate(f"  (root {display_path(row['root'])})") if twice else ""


class SessionsScreen(Working, Screen[None]):
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

    def __init__(self, services: Services, *, limit: int = RECENT_SESSIONS) -> None:
        super().__init__()
        self.services = services
        self.limit = limit
        self.rows: list[dict[str, Any]] = []
        self.heads: list[list[Text]] = []
        self.wheres: list[tuple[str, str]] = []
        self.room = -1
        self.redactor = Redactor()

    def compose(self) -> ComposeResult:
        yield Static("reading sessions…", id="sessions-header")
        table: DataTable[str] = DataTable(id="sessions-table", cursor_type="row")
        table.add_columns(*SESSION_COLUMNS)
        yield table
        yield Static("", id="sessions-evidence")
        yield KeyBar()

    def on_mount(self) -> None:
        self.load()

    def load(self) -> None:
        roots, limit, processes = list(self.services.roots), self.limit, self.services.processes

        def read() -> tuple[list[dict[str, Any]], Redactor]:
            redactor = Redactor()
            return redact_tree(recent_rows(roots, limit, processes), redactor), redactor

        self.jobs.start("sessions", read, self.show, what="Couldn't read the sessions")

    def show(self, found: tuple[list[dict[str, Any]], Redactor]) -> None:
        rows, redactor = found
        self.rows, self.redactor = rows, redactor
        twice = listed_twice(rows)  # one session under two roots: each row says its root
        self.heads = [
            cells(
                (row["last_write"] or "-")[:19].replace("T", " "),
                row["session_id"][:8],
                f"{row['dead']}/{row['launched']}",
                cause_words(row["cause"]),
            )
            for row in rows
        ]
        self.wheres = [where(row, twice) for row in rows]
        self.room = -1
        self.draw(self.size.width)
        dead = sum(1 for row in rows if row["dead"])
        header = (
            f"Sessions · {len(rows)} newest · {dead} with dead workers · {redaction_line(redactor)}"
        )
        self.query_one("#sessions-header", Static).update(Text(gate(header)))
        self.show_evidence()

    def draw(self, width: int, *, keep: bool = False) -> None:
        """The rows with each cwd cut from its start to what the screen leaves it (at least
        `CWD_LEAST`), again when that changes (``keep``: the cursor stays on its row)."""
        table = self.query_one("#sessions-table", DataTable)
        pad = 2 * table.cell_padding
        fixed = sum(wide + pad for wide in widths(SESSION_COLUMNS[:-1], self.heads))
        room = max(CWD_LEAST, width - table.styles.scrollbar_size_vertical - fixed - pad)
        if room == self.room:
            return
        self.room, cursor = room, table.cursor_row
        rows = [
            [*head, Text(cut_start(path, max(CWD_LEAST, room - cell_width(root))) + root)]
            for head, (path, root) in zip(self.heads, self.wheres, strict=True)
        ]
        fill(table, SESSION_COLUMNS, rows, [row["transcript"] for row in self.rows])
        if keep and 0 < cursor < len(rows):
            table.move_cursor(row=cursor, animate=False)

    def on_resize(self, event: events.Resize) -> None:
        if self.rows:
            self.draw(event.size.width, keep=True)

    def on_screen_resume(self) -> None:
        if self.rows:  # resized while another screen was shown
            self.draw(self.size.width, keep=True)

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
            path, root = self.wheres[self.query_one("#sessions-table", DataTable).cursor_row]
            cause = f"{cause_words(row['cause'])}: {row['evidence'] or 'no evidence line'}"
            text = f"{gate(cause)}\n{path}{root}"  # the whole path, cut in the table
        self.query_one("#sessions-evidence", Static).update(Text(text))

    @on(DataTable.RowSelected, "#sessions-table")
    def action_open(self) -> None:
        row = self.selected()
        if row is not None:
            self.post_message(OpenSessionReport(row["transcript"]))

    def action_plot(self) -> None:
        self.post_message(OpenAttempts())

    def action_reload(self) -> None:
        self.load()

    def action_back(self) -> None:
        self.post_message(GoBack())


class SessionReportScreen(Working, Screen[None]):
    """One session's forensic report: dead workers, cause, evidence, what clears it."""

    SCREEN_NAME = "session-report"
    DEFAULT_CSS = CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "back", key_display="esc"),
        Binding("r", "resume", "resume workflow"),
        Binding("p", "plot", "plot"),
    ]
    AUTO_FOCUS = "#report-workers"

    def __init__(self, services: Services, transcript: str) -> None:
        super().__init__()
        self.services = services
        self.transcript = transcript
        self.data: dict[str, Any] | None = None

    def compose(self) -> ComposeResult:
        yield Static("reading the session…", id="report-header")
        table: DataTable[str] = DataTable(id="report-workers", cursor_type="row")
        table.add_columns(*WORKER_COLUMNS)
        yield table
        with VerticalScroll(id="report-body"):
            yield Static("", id="report-text")
        yield KeyBar()

    def on_mount(self) -> None:
        self.load()

    def load(self) -> None:
        transcript, processes = self.transcript, self.services.processes

        def read() -> tuple[dict[str, Any], Redactor]:
            report = build_report(transcript, processes=processes)
            redactor = Redactor()
            return redact_tree(report.to_json(), redactor), redactor

        self.jobs.start("session-report", read, self.show, what="Couldn't read the session")

    def show(self, found: tuple[dict[str, Any], Redactor]) -> None:
        data, redactor = found
        self.data = data
        table = self.query_one("#report-workers", DataTable)
        fill(
            table,
            WORKER_COLUMNS,
            [
                cells(
                    worker["kind"],
                    worker["id"],
                    worker["liveness"],
                    worker["digest"],
                    worker["action"],
                    worker["description"] or "-",
                )
                for worker in data["dead_workers"]
            ],
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
        self.post_message(run_at(self.transcript, worker["run_id"]))

    def action_plot(self) -> None:
        self.post_message(OpenAttempts())

    def action_back(self) -> None:
        self.post_message(GoBack())


def run_at(transcript: str, run_id: str) -> OpenRunAt:
    """``r`` on a dead workflow of the session whose transcript is ``transcript``
    (``<root>/projects/<project>/<session>.jsonl``): the plan of that run under that root."""
    project_dir = os.path.dirname(transcript)
    root = os.path.dirname(os.path.dirname(project_dir))
    session_id = os.path.basename(transcript).removesuffix(".jsonl")
    return OpenRunAt(root, os.path.basename(project_dir), session_id, run_id)
