"""The bottom line: the keys that work now, as one line of text.

Textual's `Footer` makes a widget per key and rebuilds them whenever the
bindings change, which is most of the cost of switching screens. This bar
draws the same facts (the active screen's shown bindings, remapped keys
included) as a single `Static`, each action once.

The screen's own keys come first and the app's after them. When the line does
not fit, ``q quit`` and ``? help`` stay on it: the screen's keys that do not fit
are dropped from the end (an ``…`` says so) and ``^p palette`` goes first.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

GAP = "  "
KEPT = ("quit", "help")
"""App actions that stay on the line however narrow the pane (without ``app.``)."""


def fit_keys(
    screen_keys: list[tuple[str, str]], app_keys: list[tuple[str, str, str]], width: int
) -> tuple[list[tuple[str, str]], bool, list[tuple[str, str]]]:
    """Which (key, description) pairs fit in ``width`` cells.

    ``app_keys`` are (action, key, description). Returns the screen keys kept, whether
    some were dropped (an ``…`` is drawn) and the app keys kept.
    """

    def cells(pairs: list[tuple[str, str]], ellipsis: bool = False) -> int:
        parts = [len(key) + 1 + len(words) for key, words in pairs] + [1] * ellipsis
        return sum(parts) + len(GAP) * max(0, len(parts) - 1)

    app_all = [(key, words) for _action, key, words in app_keys]
    if cells(screen_keys + app_all) <= width:
        return screen_keys, False, app_all
    kept_app = [(key, words) for action, key, words in app_keys if action in KEPT]
    shown = list(screen_keys)
    while shown and cells(shown + kept_app, ellipsis=True) > width:
        shown.pop()
    return shown, True, kept_app


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

    _line: Text | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._draw()

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def on_resize(self) -> None:
        self._draw()

    def _bindings_changed(self, _screen: object) -> None:
        self._draw()

    def _draw(self) -> None:
        # the variables the app's CSS was last made with (a theme changed makes them
        # again); making them here took 0.5 ms a line, 2-6 lines a screen shown
        variables = self.app.theme_variables or self.app.get_css_variables()
        key_colour = variables.get("footer-key-foreground", "")
        key_style = f"bold {key_colour[:7]}" if key_colour.startswith("#") else "bold"
        seen: set[str] = set()
        screen_keys: list[tuple[str, str]] = []
        app_keys: list[tuple[str, str, str]] = []
        words_of: dict[str, str] = getattr(self.screen, "key_words", {})
        """What a screen says a key does where it differs from the binding's words."""
        for node, binding, enabled, _tooltip in self.screen.active_bindings.values():
            action = binding.action.removeprefix("app.")
            if not binding.show or not enabled or action in seen:
                continue
            seen.add(action)
            key = self.app.get_key_display(binding)
            if node is self.app or binding.action.startswith("app."):
                app_keys.append((action, key, binding.description))
            else:
                screen_keys.append((key, words_of.get(action, binding.description)))
        app_keys.sort(key=lambda item: KEPT.index(item[0]) if item[0] in KEPT else len(KEPT))
        width = self.content_region.width or self.app.size.width - 2
        shown, cut, kept_app = fit_keys(screen_keys, app_keys, width)
        line = Text(no_wrap=True, overflow="ellipsis")
        for key, words in shown:
            if line:
                line.append(GAP)
            line.append(key, style=key_style)
            line.append(f" {words}")
        if cut:
            line.append(GAP if line else "")
            line.append("…")
        for key, words in kept_app:
            if line:
                line.append(GAP)
            line.append(key, style=key_style)
            line.append(f" {words}")
        if line != self._line:
            self._line = line
            # One line, docked, of a fixed height: no new layout of the screen (which
            # would cost a second frame after the key that changed the bindings).
            self.update(line, layout=False)
