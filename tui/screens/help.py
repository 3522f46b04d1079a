"""``?``: the keys of the screen underneath, then the general ones, as they are bound now."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from rich.console import RenderableType
from rich.style import StyleType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from wftop.core.cost.prices import price_data_line
from wftop.tui.keys import APP_IDS, KEYS, binding
from wftop.tui.services import Services

TITLES = {
    "runs": "Runs",
    "run": "Run",
    "agent": "Agent transcript",
    "journal": "Journal",
    "plan": "Resume plan",
    "sessions": "Sessions",
    "session-report": "Session report",
    "attempts": "Attempts plot",
    "supervisor": "Supervisor",
}

EXTRA = {
    "runs": [("⏎ on a group", "fold or unfold the group")],
    "run": [
        ("⏎ on a phase", "fold or unfold the phase"),
        ("⏎ on a try", "open that attempt's transcript"),
    ],
    "agent": [],
    "journal": [],
}


def key_text(keys: str, display: str | None) -> str:
    if display and "," not in keys:
        return display
    names = {
        "question_mark": "?",
        "slash": "/",
        "escape": "esc",
        "enter": "⏎",
        "down": "↓",
        "up": "↑",
        "pagedown": "pgdn",
        "pageup": "pgup",
    }
    return " ".join(names.get(key, key) for key in keys.split(","))


class _PlainTable(Table):
    """A grid whose string cells are plain text (a remapped key may hold brackets)."""

    def add_row(
        self,
        *renderables: RenderableType | None,
        style: StyleType | None = None,
        end_section: bool = False,
    ) -> None:
        cells = (Text(cell) if isinstance(cell, str) else cell for cell in renderables)
        super().add_row(*cells, style=style, end_section=end_section)


def own_rows(bindings: list[Binding]) -> list[tuple[str, str, str]]:
    """(keys, description, id) of a screen's own bindings that `KEYS` does not hold."""
    rows = []
    for bound in bindings:
        if bound.id in KEYS or not bound.description:
            continue
        keys = key_text(bound.key, bound.key_display)
        rows.append((keys, bound.description, bound.id or ""))
    return rows


def help_table(
    keymap: Mapping[str, str], screen_name: str, own: list[tuple[str, str, str]] | None = None
) -> Table:
    """The keys of a screen, then the general ones; in a narrow pane the descriptions wrap
    and the key and binding id columns stay whole. ``keymap``: the config's ``[keys]`` table
    (binding id → keys, long key names)."""
    table = _PlainTable.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    table.add_column(style="dim", no_wrap=True)
    general = []
    title = Text(f"{TITLES.get(screen_name, screen_name)} screen", style="underline")
    table.add_row(title, "", "")
    for binding_id, spec in KEYS.items():
        if screen_name not in spec.screens and binding_id not in APP_IDS:
            continue
        remapped = keymap.get(binding_id)
        keys = key_text(remapped or spec.keys, None if remapped else spec.key_display)
        row = (keys, spec.words, binding_id)
        if spec.general:
            general.append(row)
        else:
            table.add_row(*row)
    for row in own or []:
        table.add_row(*row)
    for keys, description in EXTRA.get(screen_name, []):
        table.add_row(keys, description, "")
    table.add_row(Text("General", style="underline"), "", "")
    for row in general:
        table.add_row(*row)
    return table


FOOTNOTE = "Right: the binding id, to remap in the [keys] table of the config file."


class HelpScreen(ModalScreen[None]):
    SCREEN_NAME = "help"
    BINDINGS: ClassVar[list[BindingType]] = [
        binding("help-close"),
    ]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 88; max-width: 100%; height: auto; max-height: 90%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    """

    def __init__(self, services: Services, under: Screen[Any]) -> None:
        super().__init__()
        self.services = services
        self.under_name = getattr(under, "SCREEN_NAME", "runs")
        self.own = own_rows([bound for bound in under.BINDINGS if isinstance(bound, Binding)])

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = "keys"
            yield Static(help_table(self.services.keymap, self.under_name, self.own))
            yield Static(Text(FOOTNOTE, style="dim"))
            yield Static(Text(f"Dollars: {price_data_line()}", style="dim"))

    def action_close(self) -> None:
        self.dismiss()
