"""Where the supervisor keeps its files in a state dir, named without reading any of them:
what a view asks before it imports what reads the marks (`wftop.core.supervise.state`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from wftop.core.system.statedir import state_dir

STATE_NAME: Final = "state.json"
"""The marks and the off switch (`wftop.core.supervise.state.SuperviseStore.state_path`)."""


def supervise_dir(root: Path | None = None) -> Path:
    """``<state>/supervise`` of the state dir ``root`` (default: wftop's)."""
    return (root if root is not None else state_dir()) / "supervise"


def no_state(root: Path | None = None) -> bool:
    """Nothing at all where the state file goes (not even a link): no run is marked, and
    there is nothing to say about the file."""
    return not os.path.lexists(supervise_dir(root) / STATE_NAME)
