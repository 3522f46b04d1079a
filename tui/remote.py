"""What the app does for a run on another host, and what it does not do yet.

A remote run's journal, transcripts and processes are on its host: reading or launching
anything for it on this machine would read or start the wrong thing (a path on the host may
well exist here too). Its journal is fetched over SSH when asked for
(`wftop.tui.screens.journal.open_journal`, in a worker); for what wftop does not do over SSH
yet, the keys say so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wftop.core.model import Run

if TYPE_CHECKING:
    from wftop.tui.app import WftopApp


def refuse_remote(app: WftopApp, run: Run, what: str) -> bool:
    """True (after telling why) when ``run`` lives on another host."""
    if run.host is None:
        return False
    app.notify(
        f"{what} of a run on another host is not in this wftop yet; on {run.host} itself: "
        f"wftop resume {run.run_id} --dry-run",
        title=f"{run.host}: remote run",
        severity="warning",
        markup=False,
    )
    return True
