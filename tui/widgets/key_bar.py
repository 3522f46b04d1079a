"""The bottom line: the keys that work now, as one line of text.

Textual's `Footer` makes a widget per key and rebuilds them whenever the
bindings change, which is most of the cost of switching screens. This bar
draws the same facts (the active screen's shown bindings, remapped keys
included) as a single `Static`.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class KeyBar(Static):
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-foreground;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        padding: 0 1;
    }
    """

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._draw()

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, _screen: object) -> None:
        self._draw()

    def _draw(self) -> None:
        variables = self.app.get_css_variables()
        key_colour = variables.get("footer-key-foreground", "")
        key_style = f"bold {key_colour[:7]}" if key_colour.startswith("#") else "bold"
        line = Text(no_wrap=True, overflow="ellipsis")
        seen: set[str] = set()
        active = list(self.screen.active_bindings.values())
        # The screen's own keys first, the app's (quit, help, palette) after them.
        active.sort(key=lambda item: item[0] is self.app or item[1].action.startswith("app."))
        for _node, binding, enabled, _tooltip in active:
            if not binding.show or not enabled or binding.action in seen:
                continue
            seen.add(binding.action)
            if line:
                line.append("  ")
            line.append(self.app.get_key_display(binding), style=key_style)
            line.append(f" {binding.description}")
        self.update(line)
