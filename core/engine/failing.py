"""How the engine says a failure: its traceback in the engine's log, and one line for every
view naming where that went (`wftop.core.engine.engine.Engine.failed`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from wftop.core.system.statedir import ensure_private_dir


def home_shortened(path: str) -> str:
    """``path`` with the user's home said as ``~`` (a header has little room)."""
    home = os.path.expanduser("~")
    if home not in ("", "/", "~") and path.startswith(home + os.sep):
        return "~" + path[len(home) :]
    return path


def log_trace(log: str | None, trace: str) -> str:
    """Append ``trace`` to the log ``log`` (None, or one that cannot be written: stderr);
    where it went, for a person."""
    if log is not None:
        try:
            ensure_private_dir(Path(log).parent)
            with open(log, "a", encoding="utf-8") as out:
                out.write(trace)
        except OSError:
            pass
        else:
            return home_shortened(log)
    sys.stderr.write(trace)
    sys.stderr.flush()
    return "the engine's stderr"


def failure_said(error: Exception, where: str) -> str:
    """The one line every view is told of ``error``, naming ``where`` its trace went."""
    why = " ".join(str(error).split())
    return f"engine failed: {type(error).__name__}{': ' + why if why else ''} (log: {where})"
