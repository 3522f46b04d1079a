"""Messages the screens post for the app to act on.

A screen that needs the app to do something posts one of these; it bubbles up to
the App, whose handler does it. So the screens never import the app module (which
imports them), and the app stays the one place that owns what is app-wide.
"""

from __future__ import annotations

from textual.message import Message


class OpenRun(Message):
    """A run was chosen on the home screen: the app shows it on its (reused) run screen."""

    def __init__(self, ident: str) -> None:
        super().__init__()
        self.ident = ident
        """The run, ``<session>/<runId>``."""
