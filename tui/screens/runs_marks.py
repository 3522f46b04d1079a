"""The runs screen's auto marks: which runs `wftop supervise` may resume, read and toggled in
a job, and the supervisor's screen asked for."""

from __future__ import annotations

from functools import partial

from textual.screen import Screen

from wftop.core.row import RunRow
from wftop.core.supervise.files import no_state
from wftop.core.text.gate import shown
from wftop.tui.messages import OpenSupervisor
from wftop.tui.services import Services
from wftop.tui.widgets.run_table import RunTable
from wftop.tui.work import Working


class RunsMarks(Working, Screen[None]):
    """What `RunsScreen` does with auto marks (its base: the marks are drawn by its table)."""

    services: Services

    @property
    def table(self) -> RunTable:
        raise NotImplementedError

    def selected_run(self) -> RunRow | None:
        raise NotImplementedError

    def refresh_rows(self) -> None:
        raise NotImplementedError

    def read_marks(self, toggle: RunRow | None = None) -> None:
        """The runs marked auto, read from the supervisor's state (after marking ``toggle``
        or taking its mark off) in a job; a state wftop cannot use is said in a toast."""
        self.jobs.start("marks", partial(marks_read, toggle), self._show_marks, what="Auto marks")

    def _show_marks(self, found: tuple[frozenset[tuple[str, str]], str | None]) -> None:
        auto, note = found
        self.table.auto = auto
        self.table.invalidate()
        self.refresh_rows()
        if note:
            self.notify(shown(note), timeout=4)

    def action_auto_resume(self) -> None:
        run = self.selected_run()
        if run is None:
            return
        if self.services.read_only:
            self.notify(self.services.read_only, title="Auto refused", severity="warning")
        elif run.host is not None:
            self.notify(
                shown(
                    f"runs of {run.host} are supervised there: wftop supervise --host {run.host}"
                ),
                title="Auto refused",
                severity="warning",
            )
        else:
            self.read_marks(run)

    def action_supervisor(self) -> None:
        self.post_message(OpenSupervisor())


def marks_read(toggle: RunRow | None = None) -> tuple[frozenset[tuple[str, str]], str | None]:
    """(In a thread.) The runs marked auto as (run id, root), after marking ``toggle`` or
    taking its mark off, and what to say about it. With no state file there (no run was
    ever marked) none, and what reads one is not imported: the list's first frame is drawn
    meanwhile."""
    if toggle is None and no_state():
        return frozenset(), None
    from wftop.core.supervise.state import SuperviseStore

    store = SuperviseStore()
    note = None
    if toggle is not None:
        marked = store.toggle(toggle.run_id, toggle.root)
        note = (
            f"auto: wftop supervise may resume {toggle.run_id}"
            if marked
            else f"auto mark taken off {toggle.run_id}"
        )
    marks = store.read_state().marks
    return frozenset((mark.run, mark.root or "") for mark in marks), note
