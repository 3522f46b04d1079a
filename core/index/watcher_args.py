"""What a watch helper is told on its command line, read the same by each helper
(`wftop.core.index.watcher_inotify`, `wftop.core.index.watcher`): ``DEBOUNCE_MS STEP_MS
FOLDER... [--shallow FOLDER...]``. Imports nothing a helper would not load anyway."""

from __future__ import annotations

import signal
from typing import NamedTuple

SHALLOW = "--shallow"
"""On the helper's command line: the folders after it are watched without what is below."""


class HelperArgs(NamedTuple):
    debounce_ms: int
    step_ms: int
    paths: list[str]
    shallow: list[str]


def helper_args(argv: list[str]) -> HelperArgs:
    """The helper's command line read, and Ctrl+C left to its parent to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    debounce, step, *paths = argv
    shallow: list[str] = []
    if SHALLOW in paths:
        at = paths.index(SHALLOW)
        paths, shallow = paths[:at], paths[at + 1 :]
    return HelperArgs(int(debounce), int(step), paths, shallow)
