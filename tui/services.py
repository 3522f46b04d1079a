"""What screens are given to do their work: `Services`, handed down in their constructors.

A screen draws from the `wftop.tui.store.Store` and acts through these; it never reaches up
into the app for them (it does not import the app module, not even for types). Tests build
their own (a fixed clock, a fake process table, a policy with a fake launcher).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field
from typing import TYPE_CHECKING

from wftop.core.compared import record
from wftop.core.config import Config
from wftop.core.index.details import Details
from wftop.core.row import RunRow
from wftop.core.system.procs import ProcessTable
from wftop.tui.styles import Palette

if TYPE_CHECKING:
    from wftop.core.model import Run
    from wftop.core.remote.link import RemoteHub
    from wftop.core.resume.policy import ResumePolicy
    from wftop.core.resume.rehearse import Rehearse


@record
class Services:
    """The clock, the palette, the settings and the doors to the rest of the machine."""

    clock: Callable[[], float]
    """Seconds since the epoch (tests pass a fixed one)."""
    palette: Palette
    """Style names → Rich styles of the current theme (reloaded by the app on a theme change)."""
    config: Config
    roots: tuple[str, ...]
    """The config roots the runs are read from."""
    processes: ProcessTable
    details: Details
    """Reads one run's whole fold when a screen opens it (`wftop.core.index.details`)."""
    policy: Callable[[], ResumePolicy]
    """Makes the resume policy a plan screen uses (tests: one with a fake launcher)."""
    rehearse: Rehearse | None = None
    """Rehearses a plan's resume for its exact forecast (None: the estimate only)."""
    remote: RemoteHub | None = None
    """The links to other hosts, and one-shot asks of them (None: this machine only)."""
    read_only: str = ""
    """Why resume and relaunch are off ("": they are on)."""
    live: bool = True
    """Screens follow files that grow (off in snapshot tests)."""
    keymap: Mapping[str, str] = field(default_factory=dict)
    """Binding id → keys, as the config's ``[keys]`` table remaps them (long key names)."""
    headline: str = ""
    """What the list's header says first, every time (the demo's banner title, after its
    toast has gone)."""
    seen: Callable[[RunRow], bool] = lambda _row: False
    """The run was marked seen as it stands (``a``, ``A``, ``wftop ack``): its row is dimmed."""

    def read(self, row: RunRow) -> Run | None:
        """The whole run a row names, as its files read now (call it in a job: it reads
        the disk). None: its folder is gone."""
        return self.details.read(
            row.root, row.project, row.session_id, row.run_id, superseded_by=row.superseded_by
        )

    def keys_of(self, binding_id: str, default: str) -> str:
        """The keys bound to ``binding_id`` now."""
        return self.keymap.get(binding_id) or default
