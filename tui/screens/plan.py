"""The resume plan: ``r`` (resume) and ``R`` (relaunch fresh) on a run land here.

The plan shows the strategy, exact argv, cwd, why the run stopped, the forecast of every
strategy side by side, hazards and the guard's verdict (with how to clear a refusal);
``1``/``2``/``3`` switch strategy, ``enter`` confirms, ``f`` forces past a refusal the
guard allows forcing (after its own confirmation). `wftop.core.resume.policy` does the
work in thread workers; the screen follows the relaunched run to its end, raising an
alert when a call the forecast served from cache starts live, and then shows the outcome
and what is left. The plan is live: made again when shown, when the run's row changes,
and checked again at the moment of launch.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, cast

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Static
from textual.worker import get_current_worker

from wftop.core.forecast.exact import RehearsalFailed
from wftop.core.resume.rehearse import Rehearse
from wftop.core.forecast.instant import Forecast
from wftop.core.forecast.launchinfo import installed_version
from wftop.core.index.changeset import ChangeSet
from wftop.core.model import Run
from wftop.core.resume.launcher import Strategy
from wftop.core.resume.machine import ResumeState
from wftop.core.resume.plan import Plan
from wftop.core.resume.policy import Event, Request, ResumePolicy, Version
from wftop.core.resume.store import ResumeStore
from wftop.tui.keys import binding
from wftop.tui.remote import refuse_remote
from wftop.tui.screens.force import ForceScreen
from wftop.tui.screens.plan_text import (
    plan_text,
    progress_text,
    request_text,
    verdict_text,
)

if TYPE_CHECKING:
    from wftop.tui.app import WftopApp

STRATEGY_KEYS = {"1": Strategy.RESUME_OWNER, "2": Strategy.RELOCATE, "3": Strategy.SURGICAL}
FOLLOW_INTERVAL = 0.5
"""Seconds between two polls of a relaunch in flight (in the follow worker)."""
RECHECK_SECONDS = 10.0
"""A refused plan is made again this often: a quiet window ends, an owner goes, with no row
changing."""


def machine_policy(
    app: WftopApp, *, version_of: Callable[[str], Version] = installed_version
) -> ResumePolicy:
    """The resume policy over the app's process table and clock, the state dir and the
    configured claude (asked its version with ``version_of``)."""
    return ResumePolicy(
        processes=app.index.processes,
        clock=app.now,
        store=ResumeStore(),
        claude_bin=app.config.claude,
        extra_flags=app.config.resume_flags,
        version_of=version_of,
    )


def policy_of(app: WftopApp) -> ResumePolicy:
    """The app's resume policy: the one it was given (tests), else `machine_policy`."""
    return app.resume_policy() if app.resume_policy is not None else machine_policy(app)


class ResumePlanScreen(ModalScreen[None]):
    """The live plan of one run, the request in flight, then its outcome.

    Every read of the disk, the process table or the CLI happens in a thread worker: the
    plan is made again when the screen shows, when the run's row changes, and (by the
    policy) at the moment ``enter`` launches; the loop only shows what the workers found.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "close", id="plan-close"),
        Binding("enter", "confirm", "resume", id="plan-confirm"),
        Binding("1", "strategy('1')", "resume-owner", id="plan-owner", show=False),
        Binding("2", "strategy('2')", "relocate", id="plan-relocate", show=False),
        Binding("3", "strategy('3')", "surgical", id="plan-surgical", show=False),
        Binding("f", "force", "force past the guard", id="plan-force"),
        Binding("s", "stop", "stop the relaunch", id="plan-stop"),
        binding("help"),
    ]
    SCREEN_NAME = "plan"
    DEFAULT_CSS = """
    ResumePlanScreen { align: center middle; }
    ResumePlanScreen > Vertical {
        width: 95%; max-width: 110; height: auto; max-height: 90%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    ResumePlanScreen VerticalScroll { height: auto; max-height: 1fr; }
    ResumePlanScreen #progress { color: $text-accent; }
    ResumePlanScreen #verdict { dock: bottom; height: auto; border-top: solid $primary; }
    """

    def __init__(self, run: Run, *, strategy: Strategy | None = None) -> None:
        super().__init__()
        self.run_view = run
        self.strategy = strategy
        self.plan: Plan | None = None
        self.request: Request | None = None
        """The request this screen launched or follows (kept once it ended)."""
        self.after: Plan | None = None
        """The plan of the run where the request left it."""
        self.launches = 0
        """Requests this screen asked the policy to start (a test reads it)."""
        self.busy = False
        """A confirmation is being checked and launched by a worker."""
        self.policy: ResumePolicy | None = None
        self.rehearsed: dict[tuple[object, ...], Forecast] = {}
        """Exact forecasts, by what their rehearsal read (`Plan.rehearsal_key`)."""
        self.rehearsals: dict[tuple[object, ...], str] = {}
        """What became of each rehearsal asked for: running, or why there is no forecast."""
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._recheck: Timer | None = None

    @property
    def wftop(self) -> WftopApp:
        return cast("WftopApp", self.app)

    @property
    def following(self) -> bool:
        return self.request is not None and self.request.in_flight

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("planning…", id="verdict")
            with VerticalScroll():
                yield Static("planning…", id="plan")
                yield Static("", id="progress")

    def on_mount(self) -> None:
        self.app.clear_notifications()  # toasts raised before the plan would cover it
        self.policy = policy_of(self.wftop)
        self.wftop.runs_changed.subscribe(self, self.on_runs_changed)
        self.refresh_plan()

    def on_unmount(self) -> None:
        self._wake.set()  # the follow worker stops waiting; the relaunch goes on

    def recheck(self) -> None:
        """Plan a refused run again (not while a launch is checked or a request followed)."""
        if not self.busy and self.request is None:
            self.refresh_plan()

    def on_runs_changed(self, changes: ChangeSet) -> None:
        """The run's row changed: plan it again (not while a request is in flight)."""
        if self.following or self.busy:
            return
        if any(run.run_id == self.run_view.run_id for run in (*changes.added, *changes.changed)):
            self.refresh_plan()

    # -- workers: everything that reads the disk, processes or the CLI --------------------------

    @work(thread=True, exclusive=True, group="plan")
    def refresh_plan(self) -> None:
        """Read the run again, plan it, and follow a request of it already in flight."""
        policy = self.policy
        assert policy is not None
        keep = self.plan.session_id if self.plan and self.plan.strategy is self.strategy else None
        plan = policy.refresh(self.run_view, self.strategy, session_id=keep)
        if plan is None:
            plan = policy.plan(self.run_view, self.strategy, session_id=keep)
        active = None if self.request is not None else policy.in_flight(plan.run.run_id)
        if get_current_worker().is_cancelled:
            return
        if active is not None:
            request, _events = policy.follow_existing(plan, active)
            self.app.call_from_thread(self.launched, plan, request, [])
        else:
            self.app.call_from_thread(self.show_plan, plan)

    @work(thread=True, exclusive=True, group="launch")
    def launch(self, plan: Plan, force: bool) -> None:
        """Check the run once more and launch only if that check passes (the policy does)."""
        policy = self.policy
        assert policy is not None
        request, events = policy.start(plan, force=force)
        self.app.call_from_thread(self.launched, request.plan, request, events)

    @work(thread=True, exclusive=True, group="follow")
    def follow(self, request: Request) -> None:
        """Poll the relaunch until it ends; the loop is told what changed."""
        policy = self.policy
        assert policy is not None
        while request.in_flight and self.is_attached:
            stopping = self._stop.is_set()
            events = policy.stop(request) if stopping else policy.step(request)
            self.app.call_from_thread(self.followed, request, events)
            if request.ended:
                break
            self._wake.wait(FOLLOW_INTERVAL)
            self._wake.clear()
        if request.ended:
            after = policy.after(request)
            self.app.call_from_thread(self.ended, request, after)

    # -- the loop: apply what the workers found ---------------------------------------------

    def show_plan(self, plan: Plan) -> None:
        self.plan = plan
        self.run_view = plan.run
        if self._recheck is not None:
            self._recheck.stop()
        refused = not plan.verdict.ok and self.request is None
        self._recheck = self.set_timer(RECHECK_SECONDS, self.recheck) if refused else None
        exact = self.rehearsed.get(plan.rehearsal_key)
        if exact is not None:
            plan = self.plan = plan.with_forecast(exact)
        self.show_plan_text(plan)
        self.call_later(self.rehearse_shown)
        if self.request is None or self.request.ended:
            self.query_one("#verdict", Static).update(
                verdict_text(plan) if self.request is None else request_text(self.request, plan)
            )

    def show_plan_text(self, plan: Plan) -> None:
        rehearsal = self.rehearsals.get(plan.rehearsal_key, "")
        self.query_one("#plan", Static).update(plan_text(plan, self.wftop.now(), rehearsal))

    def rehearse_shown(self) -> None:
        """Rehearse the plan shown, once per thing it reads, unless a launch has begun, no
        launch can follow (a refusal not even ``f`` overrides), or the app has no rehearsal
        (``--read-only``, the demo, ``exact_forecast = false``)."""
        plan, rehearse = self.plan, self.wftop.rehearse
        if plan is None or rehearse is None or self.request is not None or self.busy:
            return
        if not plan.verdict.ok and not plan.verdict.forceable:
            return
        if plan.strategy is Strategy.FRESH or plan.rehearsal_key in self.rehearsals:
            return
        self.rehearsals[plan.rehearsal_key] = "rehearsing with claude…"
        self.show_plan_text(plan)
        self.rehearse(plan, rehearse)

    @work(thread=True, group="rehearse", exit_on_error=False)
    def rehearse(self, plan: Plan, rehearse: Rehearse) -> None:
        """The exact forecast: the installed CLI rehearses the resume against the mock."""
        forecast, why = None, ""
        try:
            forecast = rehearse(plan)
        except RehearsalFailed as error:
            why = f"no exact forecast: {error}"
        except Exception as error:  # the plan must not wait on "rehearsing…" for ever
            why = f"no exact forecast: the rehearsal failed ({type(error).__name__}: {error})"
        if self.is_attached:
            self.app.call_from_thread(self.rehearsal_done, plan.rehearsal_key, forecast, why)

    def rehearsal_done(self, key: tuple[object, ...], forecast: Forecast | None, why: str) -> None:
        self.rehearsals[key] = why
        if forecast is not None:
            self.rehearsed[key] = forecast
        plan = self.plan
        if plan is not None and plan.rehearsal_key == key and self.request is None:
            self.show_plan(plan)

    def launched(self, plan: Plan, request: Request, events: list[Event]) -> None:
        """A launch (or a request found in flight) came back: follow it, or show the refusal
        of the plan made again at that moment."""
        self.busy = False
        self.show_plan(plan)
        self.notify_events(events)
        if request.state is None or request.state is ResumeState.BLOCKED:
            self.app.notify(request.reason, title="Resume refused", severity="error")
            return
        self.request = request
        self.query_one("#verdict", Static).update(request_text(request, None))
        self.follow(request)

    def followed(self, request: Request, events: list[Event]) -> None:
        self.notify_events(events)
        self.query_one("#progress", Static).update(progress_text(request))
        if request.in_flight:
            self.query_one("#verdict", Static).update(request_text(request, None))

    def ended(self, request: Request, after: Plan | None) -> None:
        self.after = after
        self.query_one("#progress", Static).update(progress_text(request))
        self.query_one("#verdict", Static).update(request_text(request, after))
        if after is not None:
            self.plan = after
            self.run_view = after.run
            self.show_plan_text(after)
        state = request.state.word if request.state else "ended"
        self.app.notify(f"{request.plan.run.run_id}: {state}", title="Resume")

    def notify_events(self, events: list[Event]) -> None:
        for event in events:
            if event.kind == "cache_miss":
                self.app.notify(
                    f"cache miss: {event.data['label']} is re-running. "
                    "Press s to stop the relaunch.",
                    title="Tripwire",
                    severity="error",
                    timeout=30,
                )
            elif event.kind == "reattached":
                self.app.notify("A resume of this run is already under way: following it.")

    # -- keys -----------------------------------------------------------------------------------

    def action_strategy(self, key: str) -> None:
        if self.request is None and not self.busy and self.strategy is not Strategy.FRESH:
            self.strategy = STRATEGY_KEYS[key]
            self.refresh_plan()

    def _may_launch(self) -> Plan | None:
        """The plan ``enter`` (or ``f``) may act on: none while a request is in flight or
        has ended on this screen (its outcome is shown; ``r`` plans again)."""
        if self.busy or self.request is not None or self.plan is None:
            return None
        return self.plan

    def action_confirm(self) -> None:
        plan = self._may_launch()
        if plan is None or not plan.verdict.ok:
            return
        self.start(plan, force=False)

    def action_force(self) -> None:
        plan = self._may_launch()
        if plan is None or plan.verdict.ok or not plan.verdict.forceable:
            return

        def answered(force: bool | None) -> None:
            if force and self._may_launch() is plan:
                self.start(plan, force=True)

        self.app.push_screen(ForceScreen(plan.verdict), answered)

    def start(self, plan: Plan, *, force: bool) -> None:
        self.busy = True
        self.launches += 1
        self.query_one("#verdict", Static).update("checking the run again…")
        self.launch(plan, force)

    def action_stop(self) -> None:
        if self.following:
            self._stop.set()
            self._wake.set()

    def action_close(self) -> None:
        self.dismiss()


def _refuse_read_only(app: WftopApp) -> bool:
    if app.read_only:
        app.notify(app.read_only_reason, title="Resume is off", severity="warning")
        return True
    return False


def open_resume_plan(app: WftopApp, run: Run) -> None:
    """``r``: the resume plan of ``run``."""
    if _refuse_read_only(app):
        return
    if run.host is not None and app.remote is not None:
        from wftop.tui.screens.remote_plan import RemotePlanScreen

        app.push_screen(RemotePlanScreen(run))
    elif not refuse_remote(app, run, "Resume"):
        app.push_screen(ResumePlanScreen(run))


def open_relaunch(app: WftopApp, run: Run) -> None:
    """``R``: the plan of a fresh relaunch (a new run of the same script, no cache)."""
    if not _refuse_read_only(app) and not refuse_remote(app, run, "Relaunch"):
        app.push_screen(ResumePlanScreen(run, strategy=Strategy.FRESH))
