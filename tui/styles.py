"""Rich styles for table cells and log lines, taken from the current Textual theme.

Cells and log lines are Rich `Text`, which cannot name theme variables, so the
style names used by `wftop.tui.format` (``status-dead``, ``parity-done`` …) are turned
into Rich styles from the app's CSS variables. Colour only repeats what the
glyph and word already say; ``NO_COLOR`` is honoured by Textual's own filter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.style import Style
from rich.text import Text

if TYPE_CHECKING:
    from textual.app import App

ROLES: dict[str, tuple[str, bool, bool]] = {
    # name: (css variable, bold, dim)
    "status-running": ("text-primary", False, False),
    "status-stalled": ("text-warning", True, False),
    "status-dead": ("text-error", True, False),
    "status-completed": ("text-success", False, False),
    "status-failed": ("text-error", False, False),
    "status-partial": ("text-warning", True, False),
    "status-killed": ("text-warning", False, False),
    "status-superseded": ("foreground-muted", False, False),
    "status-unreadable": ("text-warning", False, False),
    "parity-frame": ("foreground-muted", False, False),
    "parity-done": ("text-success", False, False),
    "parity-failed": ("text-error", True, False),
    "parity-in-flight": ("text-warning", False, False),
    "parity-stopped": ("foreground-muted", False, False),
    "muted": ("foreground-muted", False, False),
    "error": ("text-error", True, False),
    "warning": ("text-warning", False, False),
    "accent": ("text-accent", True, False),
    "primary": ("text-primary", True, False),
    "success": ("text-success", False, False),
    "group": ("text-secondary", True, False),
}


class Palette:
    """Style name → Rich `Style`, rebuilt when the theme changes."""

    def __init__(self) -> None:
        self._styles: dict[str, Style] = {}

    def load(self, app: App[Any]) -> None:
        variables = app.get_css_variables()
        styles = {}
        for name, (variable, bold, dim) in ROLES.items():
            colour = variables.get(variable, "")
            try:
                styles[name] = Style(
                    color=colour[:7] if colour.startswith("#") else None, bold=bold, dim=dim
                )
            except Exception:  # noqa: BLE001 - an odd theme value must not break drawing
                styles[name] = Style(bold=bold, dim=dim)
        self._styles = styles

    def __getitem__(self, name: str) -> Style:
        return self._styles.get(name, Style.null()) if name else Style.null()

    def text(self, pieces: list[tuple[str, str]]) -> Text:
        """Join (text, style name) pieces into one `Text`."""
        out = Text(no_wrap=True, overflow="ellipsis")
        for piece, name in pieces:
            out.append(piece, self[name])
        return out

    def styled(self, text: str, name: str = "") -> Text:
        return Text(text, style=self[name], no_wrap=True, overflow="ellipsis")
