"""A first run: a root not on disk yet (Claude Code makes its config dir when it first runs).

The app opens anyway. The list says where wftop looked and what to try
(`wftop.tui.screens.runs.no_runs_yet`), and `RootLook` looks for the missing roots again,
off the loop, until every one is there; the engine reads a root that appears as it fills,
so its runs show up without a restart.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import partial

from textual.timer import Timer

from wftop.tui.store import Store
from wftop.tui.work import Working

ROOT_LOOK = 2.0
"""Seconds between looks for a root not there."""


def absent(roots: Iterable[str]) -> tuple[str, ...]:
    """The roots that are not folders on disk (reads the disk: not on the loop once it runs)."""
    return tuple(root for root in roots if not os.path.isdir(root))


class RootLook:
    """Tells ``store`` (`Store.roots_missing`) when a missing root appears."""

    def __init__(self, node: Working, store: Store, roots: Iterable[str]) -> None:
        self.node = node
        self.store = store
        self.roots = tuple(roots)
        self._timer: Timer | None = None

    def start(self) -> None:
        """Look every `ROOT_LOOK` seconds while a root is missing (the app is mounted)."""
        from textual.dom import DOMNode

        node = self.node
        if self.store.missing and self._timer is None and isinstance(node, DOMNode):
            self._timer = node.set_interval(ROOT_LOOK, self.look, name="root-look")

    def look(self) -> None:
        self.node.jobs.start(
            "roots", partial(absent, self.roots), self.seen, what="Couldn't look for a root"
        )

    def seen(self, missing: tuple[str, ...]) -> None:
        self.store.roots_missing(missing)
        if not missing and self._timer is not None:
            self._timer.stop()
            self._timer = None
