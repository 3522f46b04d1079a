"""The TUI's log: every failure of background work, with its traceback, in the state dir.

A toast says what failed in one line and goes; the log keeps it (``tui.log`` in the state
dir, `wftop.core.system.statedir.state_dir`: ``$WFTOP_STATE_DIR``, else the user's state dir).
The file is started again when it grows past `MAX_BYTES`. A log that cannot be written costs
nothing but the log: the toast still says what failed.
"""

from __future__ import annotations

import os
import time

from wftop.core.system.statedir import state_dir
from wftop.core.text.redact import redact

MAX_BYTES = 1 << 20
"""The log is started again past this size."""


def log_path() -> str:
    return str(state_dir() / "tui.log")


def log_failure(what: str, text: str, trace: str = "") -> str | None:
    """Append one failure to the log; its path, or None when it cannot be written."""
    path = log_path()
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
    entry = redact(f"{stamp}Z {what}: {text}\n{trace}".rstrip("\n") + "\n")
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        try:
            if os.path.getsize(path) > MAX_BYTES:
                os.replace(path, path + ".1")
        except FileNotFoundError:
            pass
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8", errors="replace") as handle:
            handle.write(entry)
    except OSError:
        return None
    return path
