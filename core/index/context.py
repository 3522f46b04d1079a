"""What a run's status depends on besides its own folder: `RunContext`, one per pass."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from wftop.core.model import DEFAULT_STALL_WINDOW
from wftop.core.read.runfolder import RunFolder
from wftop.core.read.sessions import NO_OWNER, Owner


def no_cwd(_folder: RunFolder) -> str | None:
    """A `RunContext` cwd lookup for callers that do not show the working directory."""
    return None


@dataclass(frozen=True)
class RunContext:
    """What a run's status depends on besides its own folder, shared by the runs read together.

    The owners and supersessions are looked up by session and run ident, so one context
    serves every run of a pass (the live index hands its own tables, which it keeps current).
    """

    owners: Mapping[str, Owner]
    """Owner per session id; a session without an entry has `NO_OWNER`."""
    superseded: Mapping[str, str]
    """Run ident → the session that continued the run (``find_superseded``)."""
    now: float
    """The moment the runs are classified at (running or stalled depends on it)."""
    stall_window: float = DEFAULT_STALL_WINDOW
    cwd: Callable[[RunFolder], str | None] = no_cwd
    """The working directory of a run's session (``SessionFacts.cwd``), or `no_cwd`."""

    def owner(self, folder: RunFolder) -> Owner:
        return self.owners.get(folder.session_id, NO_OWNER)
