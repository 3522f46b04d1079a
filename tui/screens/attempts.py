"""The stats plot: one row per run, one dot per attempt, returned or not.

A filled dot is an agent that returned a result; a hollow one never did (it
failed, died with its session, or was superseded by a respawn). The numbers are
those of ``wftop stats``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from wftop.core.forensics.masking import redaction_line
from wftop.core.forensics.stats import compute_stats
from wftop.core.text.gate import gate
from wftop.core.text.redact import Redactor, redact_tree
from wftop.tui.messages import GoBack
from wftop.tui.services import Services
from wftop.tui.widgets.key_bar import KeyBar
from wftop.tui.work import Working

RETURNED, NOT_RETURNED = "●", "○"
LABEL_WIDTH = 34


class AttemptPlot(Static):
    """Rows of dots from ``Stats.to_json()["per_run"]``."""

    DEFAULT_CSS = "AttemptPlot { height: auto; padding: 0 1; }"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.runs: list[dict[str, Any]] = []

    def plot(self, runs: list[dict[str, Any]]) -> None:
        self.runs = runs
        self.update(self.render_plot(max(20, self.size.width or 80)))

    def on_resize(self) -> None:
        if self.runs:
            self.update(self.render_plot(max(20, self.size.width)))

    def render_plot(self, width: int) -> Text:
        text = Text()
        room = max(4, width - LABEL_WIDTH - 12)
        if not self.runs:
            return Text("no runs")
        for run in self.runs:
            label = gate(f"{run['run_id']} {run['name'] or ''}")[: LABEL_WIDTH - 1]
            text.append(f"{label:<{LABEL_WIDTH}}")
            attempts = run["attempts"]
            for attempt in attempts[:room]:
                if attempt["returned"]:
                    text.append(RETURNED, style="green")
                else:
                    text.append(NOT_RETURNED, style="bold red")
            if len(attempts) > room:
                text.append(f" +{len(attempts) - room}", style="dim")
            text.append(f"  {run['returned']}/{run['started']}\n", style="dim")
        return text


class AttemptsScreen(Working, Screen[None]):
    """Every run's attempts, oldest run first, with the totals of ``wftop stats``."""

    SCREEN_NAME = "attempts"
    DEFAULT_CSS = """
    AttemptsScreen #attempts-header { height: auto; padding: 0 1; background: $panel; }
    AttemptsScreen #attempts-body { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "back", key_display="esc"),
    ]

    def __init__(self, services: Services) -> None:
        super().__init__()
        self.services = services

    def compose(self) -> ComposeResult:
        yield Static("reading runs…", id="attempts-header")
        with VerticalScroll(id="attempts-body"):
            yield AttemptPlot(id="attempts-plot")
        yield KeyBar()

    def on_mount(self) -> None:
        self.load()

    def load(self) -> None:
        roots, processes = list(self.services.roots), self.services.processes

        def read() -> tuple[dict[str, Any], Redactor]:
            redactor = Redactor()
            stats = compute_stats(roots, processes=processes)
            return redact_tree(stats.to_json(), redactor), redactor

        self.jobs.start("attempts", read, self.show, what="Couldn't read the runs' attempts")

    def show(self, found: tuple[dict[str, Any], Redactor]) -> None:
        data, redactor = found
        causes = ", ".join(f"{cause} ×{n}" for cause, n in data["causes"].items()) or "-"
        header = Text(
            f"{data['runs']} runs · {data['runs_with_gaps']} with gaps · "
            f"{data['returned']} of {data['started']} attempts returned · "
            f"{data['runs_that_reran_completed_calls']} resumes re-ran completed calls\n"
            f"causes seen: {causes}\n"
            f"{RETURNED} returned  {NOT_RETURNED} did not · {redaction_line(redactor)}"
        )
        self.query_one("#attempts-header", Static).update(header)
        self.query_one(AttemptPlot).plot(data["per_run"])

    def action_back(self) -> None:
        self.post_message(GoBack())
