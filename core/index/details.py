"""One run's whole fold, read when a view opens it: `Details`.

A list holds rows (`wftop.core.row.RunRow`): a few dozen facts per run. A view that shows one
run's calls, plans its resume or names its unreadable lines needs the `Run` itself, read from
the run's folder. `Details.read` finds that folder among its session's run folders (no walk of
the root), reads it with a `RunReader` and classifies it as the cold pass would, with the
owners of its root read now. The reader is kept for the runs opened last (`KEPT`): reading
the run again reads only what its files gained since, so a screen that follows a run of
50,000 calls pays for each appended line, not for the run.

Safe from any thread: each run's reader is used by one thread at a time (a lock per run), and
the `Run` handed out holds a frozen copy of the fold, which later reads leave as it is.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

from wftop.core.read.discovery import session_run_folders
from wftop.core.read.runfolder import RunFolder, run_ident
from wftop.core.stall import DEFAULT_STALL_WINDOW
from wftop.core.system.procs import ProcessTable, default_table

if TYPE_CHECKING:  # what reads a run is imported when one is first read (`Details.read`):
    # a view made with its `Details` waits for neither before it lists every run
    from wftop.core.index.coldpass import SessionFacts
    from wftop.core.index.reader import RunReader
    from wftop.core.model import Run

KEPT = 8
"""Runs whose readers are kept for the next read."""


def ready_to_read() -> None:
    """Imports what `Details.read` needs at its first read (its reader, the cold pass and
    the rows cache with them, 21 modules: 9 ms), for a view to call off its loop before a
    run is first opened."""
    import wftop.core.index.coldpass
    import wftop.core.index.context
    import wftop.core.index.reader  # noqa: F401 - imported for the import's sake


class Details:
    """Runs read on demand, each read again from where its last read stopped."""

    def __init__(
        self,
        *,
        processes: ProcessTable | None = None,
        now: Callable[[], float] = time.time,
        stall_window: float = DEFAULT_STALL_WINDOW,
        kept: int = KEPT,
    ) -> None:
        self.processes = processes if processes is not None else default_table()
        self.now = now
        self.stall_window = stall_window
        self.kept = kept
        self._readers: OrderedDict[str, tuple[RunReader, threading.Lock, SessionFacts]] = (
            OrderedDict()
        )
        self._lock = threading.Lock()

    def folder(self, root: str, project: str, session_id: str, run_id: str) -> RunFolder | None:
        """The run's folder, as discovery names it (None: it is not there)."""
        folders = session_run_folders(root, project, session_id, [])
        return next((folder for folder in folders if folder.run_id == run_id), None)

    def read(
        self,
        root: str,
        project: str,
        session_id: str,
        run_id: str,
        *,
        superseded_by: str | None = None,
    ) -> Run | None:
        """The run as its files read now (None: its folder is gone).

        ``superseded_by``: the session that continued the run, as the list knows it (telling
        it here would need every run folder of the root).
        """
        from wftop.core.index.coldpass import SessionFacts
        from wftop.core.index.context import RunContext
        from wftop.core.index.reader import RunReader
        from wftop.core.read.sessions import local_pid_domain, owners_by_session

        ident = run_ident(root, session_id, run_id)
        with self._lock:
            held = self._readers.get(ident)
            if held is not None:
                self._readers.move_to_end(ident)
        if held is None:
            folder = self.folder(root, project, session_id, run_id)
            if folder is None:
                return None
            held = (RunReader(folder), threading.Lock(), SessionFacts())
            with self._lock:
                held = self._readers.setdefault(ident, held)
                while len(self._readers) > self.kept:
                    self._readers.popitem(last=False)
        reader, lock, facts = held
        owners = owners_by_session([root], self.processes, local_pid_domain())
        superseded = {ident: superseded_by} if superseded_by else {}
        context = RunContext(owners, superseded, self.now(), self.stall_window, facts.cwd)
        with lock:
            alive = context.owner(reader.folder).may_be_alive
            reader.refresh(owner_alive=alive, listing=facts.scripts)
            return reader.run(context, frozen=True)

    def forget(self, ident: str) -> None:
        """Read the run from its start next time."""
        with self._lock:
            self._readers.pop(ident, None)
