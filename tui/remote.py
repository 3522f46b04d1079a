"""What the app does for a run on another host, and what it does not do yet.

A remote run's journal, transcripts and processes are on its host: reading or launching
anything for it on this machine would read or start the wrong thing (a path on the host may
well exist here too). Its journal is fetched over SSH when asked for
(`wftop.tui.screens.journal.open_journal`, in a worker); for what wftop does not do over SSH
yet, the keys say so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from wftop.core.model import Run
from wftop.core.remote.fetch import MAX_BYTES, fetch_args, fetch_copy
from wftop.tui.format import display_path

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


def open_fetched(
    app: WftopApp,
    run: Run,
    name: str,
    what: str,
    show: Callable[[Run], object],
    into: str | None = None,
    failed: Callable[[], object] | None = None,
) -> None:
    """Fetch ``name`` of a remote ``run`` from its host in a worker, then ``show`` its local
    copy on the loop (`wftop.core.remote.fetch`); a failure is said in a toast, and
    ``failed`` is called."""
    hub, host = app.remote, run.host
    if hub is None or host is None:
        return

    def fetch() -> None:
        fetched = fetch_copy(hub.argv(host, fetch_args(run, name)), run, name, into)
        if fetched.copy is None:
            app.call_from_thread(
                app.notify,
                fetched.failure or "no answer",
                title=f"Couldn't fetch {what}",
                severity="error",
                markup=False,
            )
            if failed is not None:
                app.call_from_thread(failed)
            return
        if fetched.cut:
            app.call_from_thread(
                app.notify,
                f"{what} is longer than {MAX_BYTES // 2**20} MB: its start is shown",
                title=host,
                severity="warning",
                markup=False,
            )
        app.call_from_thread(show, fetched.copy)

    app.run_worker(fetch, thread=True, group=f"fetch-{name}", exclusive=True, exit_on_error=False)


def where_read(run: Run, path: str) -> str:
    """Where a viewer reads its file: the path, or for a remote run the host it came from."""
    if run.host is None:
        return display_path(path)
    return f"fetched from {run.host} into {display_path(path)}"
