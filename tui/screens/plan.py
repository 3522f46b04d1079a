"""The resume plan: ``r`` (resume) and ``R`` (relaunch fresh) on a run land here.

The plan shows the strategy, exact argv, cwd, why the run stopped, the forecast of every
strategy side by side, hazards and the guard's verdict (with how to clear a refusal);
``1``/``2``/``3`` switch strategy, ``enter`` confirms, ``f`` forces past a refusal the
guard allows forcing (after its own confirmation). `wftop.core.resume.policy` does the
work in background jobs (`wftop.tui.work`): the run is read whole (its row is all the list
holds), planned, launched and stepped there, never on the loop. The screen follows the
relaunched run to its end, raising an alert when a call the forecast served from cache starts
live, and then shows the outcome and what is left. The plan is live: made again when shown,
when the run's row changes, and checked again at the moment of launch.

A launch and the request it starts, followed to its end: `wftop.tui.screens.plan_launch`,
this screen's base.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.timer import Timer
from textual.widgets import Static

from wftop.core.forecast.exact import RehearsalFailed
from wftop.core.forecast.fates import Forecast
from wftop.core.resume.budget import over_budget
from wftop.core.resume.launcher import Strategy
from wftop.core.resume.plan import Plan
from wftop.core.resume.rehearse import Rehearse
from wftop.core.resume.request import Request
from wftop.core.row import RunRow
from wftop.tui.keys import binding
from wftop.tui.messages import AskBudget, AskForce
from wftop.tui.screens.plan_launch import LaunchFollowing
from wftop.tui.screens.plan_text import (
    Followed,
    before_text,
    plan_text,
    request_text,
    verdict_text,
)
from wftop.tui.services import Services
from wftop.tui.store import Change, Store

BUDGET_SOURCE = "max_usd in the config"
"""What sets the budget `enter` holds a plan to (`wftop.core.resume.budget.over_budget`)."""

STRATEGY_KEYS = {"1": Strategy.RESUME_OWNER, "2": Strategy.RELOCATE, "3": Strategy.SURGICAL}
RECHECK_SECONDS = 10.0
"""A refused plan is made again this often: a quiet window ends, an owner goes, with no row
changing."""


class ResumePlanScreen(LaunchFollowing):
    """The live plan of one run, the request in flight, then its outcome."""

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
    ResumePlanScreen #said { height: auto; display: none; }
    ResumePlanScreen #verdict-box { dock: bottom; height: auto; border-top: solid $primary; }
    ResumePlanScreen #verdict { height: auto; }
    """

    def __init__(
        self, store: Store, services: Services, row: RunRow, *, strategy: Strategy | None = None
    ) -> None:
        super().__init__()
        self.store = store
        self.services = services
        self.row = row
        """The run's row (the list's), as it was last seen."""
        self.strategy = strategy
        self.rehearsed: dict[tuple[object, ...], Forecast] = {}
        """Exact forecasts, by what their rehearsal read (`Plan.rehearsal_key`)."""
        self.rehearsals: dict[tuple[object, ...], str] = {}
        """What became of each rehearsal asked for: running, or why there is no forecast."""
        self._recheck: Timer | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            with Vertical(id="verdict-box"):
                yield Static("planning…", id="verdict")
                yield Static("", id="said")
            with VerticalScroll():
                yield Static("planning…", id="plan")
                yield Static("", id="progress")

    def on_mount(self) -> None:
        self.app.clear_notifications()  # toasts raised before the plan would cover it
        self.policy = self.services.policy()
        self.store.changed.subscribe(self, self.on_store_changed)
        self.refresh_plan()

    def recheck(self) -> None:
        """Plan a refused run again (not while a launch is checked or a request followed)."""
        if not self.busy and self.request is None:
            self.refresh_plan()

    def on_store_changed(self, change: Change) -> None:
        """The run's row changed: plan it again (not while a request is in flight)."""
        fresh = next((row for row in change.changed if row.ident == self.row.ident), None)
        fresh = fresh or next((row for row in change.added if row.ident == self.row.ident), None)
        if fresh is None:
            return
        self.row = fresh
        if not (self.following or self.busy):
            self.refresh_plan()

    # -- jobs: everything that reads the disk, processes or the CLI -------------------------

    def refresh_plan(self) -> None:
        """Read the run again, plan it, and follow a request of it already in flight."""
        policy, services, row = self.policy, self.services, self.row
        assert policy is not None
        keep = self.plan.session_id if self.plan and self.plan.strategy is self.strategy else None
        strategy = self.strategy
        unfollowed = self.request is None and not services.read_only

        def plan() -> tuple[Plan | None, Request | None, Followed | None]:
            run = services.read(row)
            if run is None:
                return None, None, None
            made = policy.plan(run, strategy, session_id=keep)
            active = policy.in_flight(made.run.run_id) if unfollowed else None
            if active is None:
                return made, None, None
            request, _events = policy.follow_existing(made, active)
            return made, request, Followed.of(request)

        self.jobs.start("plan", plan, self._planned, what="Couldn't plan the resume")

    def _planned(self, found: tuple[Plan | None, Request | None, Followed | None]) -> None:
        plan, request, followed = found
        if plan is None:
            self.query_one("#verdict", Static).update("This run is gone from disk.")
            return
        if request is not None and followed is not None:
            self.launched((plan, request, followed, []))
        else:
            self.show_plan(plan)

    # -- the loop: apply what the jobs found --------------------------------------------------

    def show_plan(self, plan: Plan) -> None:
        self.plan = plan
        self.run_view = plan.run
        if self.request is not None and self.request.ended:
            # The body keeps the forecast the resume was launched on (`show_plan_text`);
            # only the verdict says how the run stands now.
            self.query_one("#verdict", Static).update(request_text(self.request, plan))
            return
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
                verdict_text(plan, off=self.services.read_only)
                if self.request is None
                else request_text(self.request, plan)
            )

    def show_plan_text(self, plan: Plan) -> None:
        rehearsal = self.rehearsals.get(plan.rehearsal_key, "")
        body = self.query_one("#plan", Static)
        # The table fits the box: its width once laid out, else what the box will give it.
        width = body.content_size.width or min(110, self.size.width * 95 // 100) - 5
        request, now = self.request, self.services.clock()
        if request is not None and request.ended:  # what was forecast, never one made again
            body.update(before_text(request, now, rehearsal, width))
            return
        body.update(plan_text(plan, now, rehearsal, width))

    def on_resize(self) -> None:
        if self.plan is not None:  # once the box has its new width
            self.call_after_refresh(self.show_plan_text, self.plan)

    def rehearse_shown(self) -> None:
        """Rehearse the plan shown, once per thing it reads, unless a launch has begun, no
        launch can follow (a refusal not even ``f`` overrides), or the app has no rehearsal
        (``--read-only``, the demo, ``exact_forecast = false``)."""
        plan, rehearse = self.plan, self.services.rehearse
        if plan is None or rehearse is None or self.request is not None or self.busy:
            return
        if not plan.verdict.ok and not plan.verdict.forceable:
            return
        if plan.strategy is Strategy.FRESH or plan.rehearsal_key in self.rehearsals:
            return
        key = plan.rehearsal_key
        self.rehearsals[key] = "rehearsing with claude…"
        self.show_plan_text(plan)
        self.jobs.start(
            f"rehearse-{len(self.rehearsals)}",
            lambda: rehearsal_of(plan, rehearse),
            lambda found: self.rehearsal_done(key, *found),
            what="Couldn't rehearse the resume",
        )

    def rehearsal_done(self, key: tuple[object, ...], forecast: Forecast | None, why: str) -> None:
        self.rehearsals[key] = why
        if forecast is not None:
            self.rehearsed[key] = forecast
        plan = self.plan
        if plan is not None and plan.rehearsal_key == key and self.request is None:
            self.show_plan(plan)

    # -- keys -----------------------------------------------------------------------------------

    def action_strategy(self, key: str) -> None:
        if self.request is None and not self.busy and self.strategy is not Strategy.FRESH:
            self.strategy = STRATEGY_KEYS[key]
            self.refresh_plan()

    def _may_launch(self) -> Plan | None:
        """The plan ``enter`` (or ``f``) may act on: none while a request is in flight or
        has ended on this screen (its outcome is shown; ``r`` plans again), nor read-only."""
        if self.services.read_only:
            self.app.notify(self.services.read_only, title="Launching is off", severity="warning")
            return None
        if self.busy or self.request is not None or self.plan is None:
            return None
        return self.plan

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Read-only: forcing and stopping are not offered (``enter`` says why it launches
        nothing)."""
        return not (self.services.read_only and action in ("force", "stop"))

    def action_confirm(self) -> None:
        plan = self._may_launch()
        if plan is None or not plan.verdict.ok:
            return
        budget = self.services.config.max_usd
        over = None if budget is None else over_budget(plan.forecast, budget, BUDGET_SOURCE)
        if over is None:
            self.start(plan, force=False)
            return

        def answered(anyway: bool | None) -> None:
            if anyway and self._may_launch() is plan:
                self.start(plan, force=False)

        self.post_message(AskBudget(over, answered))

    def action_force(self) -> None:
        plan = self._may_launch()
        if plan is None or plan.verdict.ok or not plan.verdict.forceable:
            return

        def answered(force: bool | None) -> None:
            if force and self._may_launch() is plan:
                self.start(plan, force=True)

        self.post_message(AskForce(plan.verdict, answered))

    def action_close(self) -> None:
        self.dismiss()

    def say(self, title: str, text: str, severity: str) -> None:
        """What the app would toast while the plan is shown, inside the plan's box (a toast
        would cover its border): the newest only."""
        said = self.query_one("#said", Static)
        colour = {"error": "red", "warning": "yellow"}.get(severity, "green")
        said.update(Text(f"{title}: {text}" if title else text, style=colour))
        said.display = True


def rehearsal_of(plan: Plan, rehearse: Rehearse) -> tuple[Forecast | None, str]:
    """The exact forecast (the installed CLI rehearses the resume against the mock), or why
    there is none: the plan never waits on "rehearsing…" for ever."""
    try:
        return rehearse(plan), ""
    except RehearsalFailed as error:
        return None, f"no exact forecast: {error}"
    except Exception as error:  # noqa: BLE001 - said in the plan, where it was asked for
        return None, f"no exact forecast: the rehearsal failed ({type(error).__name__}: {error})"
