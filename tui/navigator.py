"""The one place that opens screens: `Navigator`.

Screens ask by posting a `wftop.tui.messages.Navigate` message; it bubbles up to the app,
which hands it here. The navigator finds the run's row in the store, decides what can be
shown (resume is off in a read-only wftop; a run on another host has its journal fetched
from there first; a run gone from disk is said so), makes the screen with the store and
services it needs, and pushes it. Whatever it must read first (a remote file, a run that is
not listed) it reads in the background (`wftop.tui.work`), never on the loop.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from wftop.core.read.runfolder import run_ident
from wftop.core.row import RunRow
from wftop.tui.messages import (
    AskBudget,
    AskForce,
    GoBack,
    Navigate,
    OpenAgent,
    OpenAttempts,
    OpenCopy,
    OpenHelp,
    OpenJournal,
    OpenPlan,
    OpenRun,
    OpenRunAt,
    OpenSessionReport,
    OpenSessions,
    OpenSupervisor,
    OpenTimeline,
)
from wftop.tui.services import Services
from wftop.tui.store import Store

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from wftop.core.model import Run
    from wftop.core.remote.fetch import Fetched
    from wftop.tui.work import Working


def run_folder(row: RunRow) -> str:
    """The run's folder (where its journal and agent transcripts are)."""
    if row.journal:
        return os.path.dirname(row.journal)
    return os.path.join(
        row.root, "projects", row.project, row.session_id, "subagents", "workflows", row.run_id
    )


def resume_command(row: RunRow) -> str:
    """The wftop command that plans and resumes this run."""
    return f"wftop resume {shlex.quote(row.run_id)}"


def copy_choices(row: RunRow, agent_id: str | None = None) -> list[tuple[str, str]]:
    """(label, value) pairs the copy menu offers for a run, most wanted first."""
    folder = run_folder(row)
    choices = [
        ("run id", row.run_id),
        ("run folder", folder),
        ("resume command", resume_command(row)),
        ("session id", row.session_id),
        ("journal path", row.journal or os.path.join(folder, "journal.jsonl")),
    ]
    if agent_id:
        choices.insert(1, ("agent id", agent_id))
        choices.insert(2, ("transcript path", os.path.join(folder, f"agent-{agent_id}.jsonl")))
    return choices


class Navigator:
    """Opens the screen each `Navigate` message asks for."""

    def __init__(self, app: App[Any], store: Store, services: Services) -> None:
        self.app = app
        self.store = store
        self.services = services
        self.handlers: dict[type[Navigate], Callable[[Any], None]] = {
            OpenRun: self.open_run,
            OpenPlan: self.open_plan,
            OpenRunAt: self.open_run_at,
            OpenJournal: self.open_journal,
            OpenTimeline: self.open_timeline,
            OpenAgent: self.open_agent,
            OpenCopy: self.open_copy,
            OpenSessions: self.open_sessions,
            OpenSessionReport: self.open_session_report,
            OpenAttempts: self.open_attempts,
            OpenHelp: self.open_help,
            OpenSupervisor: self.open_supervisor,
            AskBudget: self.ask_budget,
            AskForce: self.ask_force,
            GoBack: self.go_back,
        }

    def go(self, message: Navigate) -> None:
        self.handlers[type(message)](message)

    def push(self, screen: Screen[Any], callback: Callable[[Any], None] | None = None) -> None:
        from textual.screen import ModalScreen

        if isinstance(screen, ModalScreen):
            self.app.clear_notifications()  # the screen below shows through: its toasts too
        self.app.push_screen(screen, callback)

    @property
    def jobs(self) -> Any:
        working: Working = self.app  # type: ignore[assignment]
        return working.jobs

    def row(self, ident: str) -> RunRow | None:
        """The run's row; None after saying it is gone."""
        row = self.store.rows.get(ident)
        if row is None:
            self.app.notify("This run is gone from disk.", title="No such run", severity="warning")
        return row

    def say(self, message: str, *, title: str, severity: Any = "information") -> None:
        self.app.notify(message, title=title, severity=severity)

    # -- the home screen and the run ------------------------------------------------------------

    def home(self) -> None:
        from wftop.tui.screens.runs import RunsScreen

        self.push(RunsScreen(self.store, self.services))

    def ready_run_screen(self) -> None:
        """Import in the background what opening a run first needs (its screen, the price
        data its costs are read with: 150-240 ms the first ``enter`` took at 20,000 rows),
        so that the first run opened costs what the next ones do. What it loaded (modules,
        the price data: some 36,000 objects at the collector's next full pass, 7-25 ms on
        whatever key came then) is then kept out of the collector's reach, as the rows are."""
        self.jobs.start(
            "ready-run-screen", ready, lambda _done: self.store.settle(), what="Couldn't ready"
        )

    def open_run(self, message: OpenRun) -> None:
        """The run screen, made once and reused (mounting a screen costs more than a key)."""
        from wftop.tui.screens.run import RunScreen  # not imported before a run is opened

        app = self.app
        if not app.is_screen_installed("run"):
            app.install_screen(RunScreen(self.store, self.services, message.ident), "run")
        screen = app.get_screen("run", RunScreen)
        screen.show_run(message.ident)
        self.push(screen)

    # -- resume -------------------------------------------------------------------------------

    def refuse_read_only(self) -> bool:
        if self.services.read_only:
            self.say(self.services.read_only, title="Resume is off", severity="warning")
            return True
        return False

    def refuse_remote(self, row: RunRow, what: str) -> bool:
        """True (after telling why) when ``row`` lives on a host this wftop cannot reach."""
        if row.host is None or self.services.remote is not None:
            return False
        self.say(
            f"{what} of a run on another host is not in this wftop yet; on {row.host} itself: "
            f"wftop resume {row.run_id} --dry-run",
            title=f"{row.host}: remote run",
            severity="warning",
        )
        return True

    def open_plan(self, message: OpenPlan) -> None:
        """The plan (read-only too: it launches nothing by itself, and says launching is off)."""
        row = self.row(message.ident)
        if row is None:
            return
        what = "Relaunch" if message.fresh else "Resume"
        if self.refuse_remote(row, what):
            return
        if row.host is not None:
            if self.refuse_read_only():
                return
            from wftop.tui.screens.remote_plan import RemotePlanScreen

            self.push(RemotePlanScreen(self.services, row))
            return
        from wftop.core.resume.launcher import Strategy
        from wftop.tui.screens.plan import ResumePlanScreen

        strategy = Strategy.FRESH if message.fresh else None
        self.push(ResumePlanScreen(self.store, self.services, row, strategy=strategy))

    def open_run_at(self, message: OpenRunAt) -> None:
        """The plan of a run named by its folder: its row when listed, else read from disk
        (in the background: the run alone, not every run of the root)."""
        ident = run_ident(message.root, message.session_id, message.run_id)
        if ident in self.store.rows:
            self.open_plan(OpenPlan(ident))
            return
        details = self.services.details

        def read() -> RunRow | None:
            run = details.read(message.root, message.project, message.session_id, message.run_id)
            return None if run is None else RunRow.of(run)

        def opened(row: RunRow | None) -> None:
            if row is None:
                self.say(f"Run `wftop resume {message.run_id}` to resume it.", title="Resume")
                return
            from wftop.tui.screens.plan import ResumePlanScreen

            self.push(ResumePlanScreen(self.store, self.services, row))

        self.jobs.start("open-run-at", read, opened, what="Couldn't read the run")

    def ask_budget(self, message: AskBudget) -> None:
        from wftop.tui.screens.force import BudgetScreen

        self.push(BudgetScreen(message.reason), message.answered)

    def ask_force(self, message: AskForce) -> None:
        from wftop.tui.screens.force import ForceScreen

        self.push(ForceScreen(message.verdict), message.answered)

    # -- files ----------------------------------------------------------------------------------

    def open_journal(self, message: OpenJournal) -> None:
        row = self.row(message.ident)
        if row is None:
            return
        from wftop.tui.screens.journal import JournalScreen  # read on first use

        if row.journal is None:
            said = (
                f"{row.run_id} has no journal.jsonl on disk: its calls are read from its snapshot"
            )
            self.say(said, title="The journal")
            return
        if row.host is None:
            self.push(JournalScreen(self.services, row, row.journal))
            return
        if self.refuse_remote(row, "The journal"):
            return
        from wftop.core.remote.fetch import JOURNAL

        self.say(f"fetching the journal of {row.run_id} from {row.host} …", title=row.host)
        self.fetch(
            row,
            JOURNAL,
            "the journal",
            lambda copy: self.push(
                JournalScreen(self.services, row, copy.folder.journal, details=copy)
            ),
        )

    def open_timeline(self, message: OpenTimeline) -> None:
        row = self.row(message.ident)
        if row is None:
            return
        if row.host is not None:
            self.say("it reads the run's transcripts: this machine's runs only", title="Timeline")
            return
        from wftop.tui.screens.timeline import TimelineScreen  # read on first use

        self.push(TimelineScreen(self.services, row))

    def open_agent(self, message: OpenAgent) -> None:
        row = self.row(message.ident)
        if row is None:
            return
        from wftop.tui.screens.agent import AgentScreen

        agent, label = message.agent_id, message.label
        if row.host is None:
            folder = message.folder or run_folder(row)
            self.push(AgentScreen(self.services, row, agent, label, folder))
            return
        if self.refuse_remote(row, "The transcript"):
            return
        self.say(f"fetching the transcript of {label} from {row.host} …", title=row.host)
        self.fetch(
            row,
            f"agent-{agent}.jsonl",
            "the transcript",
            lambda copy: self.push(AgentScreen(self.services, row, agent, label, copy.folder.path)),
            into=message.folder or None,
        )

    def fetch(
        self,
        row: RunRow,
        name: str,
        what: str,
        show: Callable[[Run], object],
        into: str | None = None,
    ) -> None:
        """Fetch ``name`` of a remote run from its host in the background, then ``show`` its
        local copy; a failure is said in a toast."""
        hub, host = self.services.remote, row.host
        if hub is None or host is None:
            return
        from wftop.core.remote.fetch import MAX_BYTES, fetch_args, fetch_copy
        from wftop.core.remote.rows import run_of  # a remote run's: not before one is opened

        run = run_of(row)
        argv = hub.argv(host, fetch_args(run, name))

        def fetched(result: Fetched) -> None:
            if result.copy is None:
                self.say(
                    result.failure or "no answer", title=f"Couldn't fetch {what}", severity="error"
                )
                return
            if result.cut:
                self.say(
                    f"{what} is longer than {MAX_BYTES // 2**20} MB: its start is shown",
                    title=host,
                    severity="warning",
                )
            show(result.copy)

        self.jobs.start(
            f"fetch-{name}",
            lambda: fetch_copy(argv, run, name, into),
            fetched,
            what=f"Couldn't fetch {what}",
        )

    def open_copy(self, message: OpenCopy) -> None:
        row = self.row(message.ident)
        if row is None:
            return
        from wftop.tui.screens.copy import CopyScreen

        self.push(CopyScreen(copy_choices(row, message.agent_id)))

    # -- sessions, help -------------------------------------------------------------------------

    def open_sessions(self, _message: OpenSessions) -> None:
        from wftop.tui.screens.sessions import SessionsScreen  # read on first use: forensics

        if isinstance(self.app.screen, SessionsScreen):
            self.app.pop_screen()
        else:
            self.push(SessionsScreen(self.services))

    def open_session_report(self, message: OpenSessionReport) -> None:
        from wftop.tui.screens.sessions import SessionReportScreen

        self.push(SessionReportScreen(self.services, message.transcript))

    def open_attempts(self, _message: OpenAttempts) -> None:
        from wftop.tui.screens.attempts import AttemptsScreen

        self.push(AttemptsScreen(self.services))

    def open_supervisor(self, _message: OpenSupervisor) -> None:
        from wftop.tui.screens.supervisor import SupervisorScreen

        self.push(SupervisorScreen(self.services))

    def open_help(self, _message: OpenHelp) -> None:
        from wftop.tui.screens.help import HelpScreen

        if isinstance(self.app.screen, HelpScreen):
            self.app.pop_screen()
        else:
            self.push(HelpScreen(self.services, self.app.screen))

    def go_back(self, _message: GoBack) -> None:
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()


def ready() -> None:
    """What `Navigator.ready_run_screen` imports: the run screen, what reads the run (the
    first ``enter`` imported it, 9 ms of CPU, in the 50 ms it took at 20,000 rows) and
    the price data."""
    import wftop.tui.screens.run  # noqa: F401 - imported for the import's sake
    from wftop.core.cost.prices import known
    from wftop.core.index.details import ready_to_read

    ready_to_read()
    known("")  # loads the price data the package ships
