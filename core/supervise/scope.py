"""The runs a supervisor acts on (`Scope`): those marked auto in the TUI, plus the runs and
projects its command line names, or every run of its roots; judged on a run read from disk
or on the engine's row of it."""

from __future__ import annotations

from dataclasses import dataclass

from wftop.core.model import Run
from wftop.core.row import RunRow
from wftop.core.supervise.state import SuperviseState


@dataclass(frozen=True)
class Scope:
    """The runs a supervisor acts on: those marked auto, plus these."""

    runs: tuple[str, ...] = ()
    projects: tuple[str, ...] = ()
    everything: bool = False

    def takes(self, run: Run, state: SuperviseState) -> bool:
        if self.everything or run.run_id in self.runs:
            return True
        if self.projects and {run.cwd, run.project_short, run.folder.project} & set(self.projects):
            return True
        return state.marked(run.run_id, run.folder.root)

    def takes_row(self, row: RunRow, state: SuperviseState) -> bool:
        """`takes`, of the engine's row of a run."""
        if self.everything or row.run_id in self.runs:
            return True
        if self.projects and {row.cwd, row.project_name, row.project} & set(self.projects):
            return True
        return state.marked(row.run_id, row.root)

    def words(self) -> str:
        if self.everything:
            return "every run"
        parts = [f"run {run}" for run in self.runs]
        parts += [f"project {project}" for project in self.projects]
        return ", ".join([*parts, "the runs marked auto"])
