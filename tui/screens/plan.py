"""The resume plan: ``r`` (resume) and ``R`` (relaunch fresh) on a run land here.

The plan shows the strategy, exact argv, cwd, the forecast of every strategy side
by side, hazards and the guard's verdict; ``1``/``2``/``3`` switch strategy,
``enter`` confirms, and the screen then follows the relaunched run to its end,
raising an alert when a call the forecast served from cache starts live.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

from rich.markup import escape
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from wftop.core.model import Run
from wftop.core.procs import default_table
from wftop.core.redact import redact
from wftop.core.resume.driver import Attempt, ResumeDriver
from wftop.core.resume.errors import ResumeError, ResumeInProgress
from wftop.core.resume.launcher import Strategy, SubprocessLauncher
from wftop.core.resume.machine import ResumeState
from wftop.core.resume.plan import Plan, make_plan
from wftop.core.resume.store import ResumeStore
from wftop.tui.keys import binding

if TYPE_CHECKING:
    from wftop.tui.app import WftopApp

STRATEGY_KEYS = {"1": Strategy.RESUME_OWNER, "2": Strategy.RELOCATE, "3": Strategy.SURGICAL}


def _shown(text: str) -> str:
    """Text from disk as markup: secrets masked (`wftop.core.redact`), then escaped."""
    return escape(redact(text))


def plan_text(plan: Plan) -> str:
    """The plan as Rich markup (everything from disk masked and escaped)."""
    run = plan.run
    fresh = plan.strategy is Strategy.FRESH
    what = "Relaunch fresh" if fresh else "Resume"
    choice = (
        "a new run of the same script, nothing from cache"
        if fresh
        else f"recommended: {plan.recommended.value}   (1 resume-owner · 2 relocate · 3 surgical)"
    )
    lines = [
        f"[b]{what}[/b] {_shown(run.name or '(unnamed)')}  {run.run_id}  ({run.shown_status})",
        f"strategy  [b]{plan.strategy.value}[/b]   {choice}",
        f"session   {plan.session_id}"
        + ("" if plan.session_id == run.session_id else f"  (new; owner {run.session_id})"),
        f"cwd       {_shown(plan.cwd or '-')}",
        f"argv      {_shown(' '.join(plan.argv[:-1]))} <prompt>",
        "",
    ]
    for name, forecast in plan.forecasts.items():
        mark = "▶" if name == plan.strategy.value else " "
        lines.append(f"{mark} {name:<13} {_shown(forecast.summary())}")
        lines.append(f"    live: {_shown(', '.join(forecast.live) or '-')}")
    if plan.recommended is Strategy.SURGICAL and not fresh:
        lines.append(
            "  surgical continues in a new session; the owner session's conversation "
            "does not receive the result"
        )
    for hazard in plan.hazards:
        lines.append(f"[yellow]hazard[/] {hazard.code}: {_shown(hazard.message)}")
    return "\n".join(lines)


def verdict_text(plan: Plan) -> str:
    """The guard's verdict and the keys that act on it (docked under the scrolling plan)."""
    verdict = plan.verdict
    colour = "green" if verdict.ok else "red"
    if plan.strategy is Strategy.FRESH:
        keys = "enter relaunch · esc close" if verdict.ok else "esc close"
    else:
        keys = "enter resume · 1/2/3 strategy · esc close" if verdict.ok else "esc close"
    return f"[{colour}]guard  {_shown(verdict.reason)}[/]\n{keys} · ? keys"


class ResumePlanScreen(ModalScreen[None]):
    """The plan of one run, then the relaunched run's progress."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "close", id="plan-close"),
        Binding("enter", "confirm", "resume", id="plan-confirm"),
        Binding("1", "strategy('1')", "resume-owner", id="plan-owner", show=False),
        Binding("2", "strategy('2')", "relocate", id="plan-relocate", show=False),
        Binding("3", "strategy('3')", "surgical", id="plan-surgical", show=False),
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
        self.attempt: Attempt | None = None
        self.driver: ResumeDriver | None = None
        self.processes = default_table()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("", id="verdict")
            with VerticalScroll():
                yield Static("planning…", id="plan")
                yield Static("", id="progress")

    def on_mount(self) -> None:
        index = getattr(self.app, "index", None)
        if index is not None:
            self.processes = index.processes  # owners judged as the run list judged them
        self.app.clear_notifications()  # toasts raised before the plan would cover it
        self.make_plan()

    @work(thread=True, exclusive=True, group="plan")
    def make_plan(self) -> None:
        app = cast("WftopApp", self.app)
        plan = make_plan(
            self.run_view,
            processes=self.processes,
            now=app.now(),
            strategy=self.strategy,
            claude_bin=app.config.claude,
            extra_flags=app.config.resume_flags,
        )
        self.app.call_from_thread(self.show_plan, plan)

    def show_plan(self, plan: Plan) -> None:
        self.plan = plan
        self.query_one("#plan", Static).update(plan_text(plan))
        self.query_one("#verdict", Static).update(verdict_text(plan))

    def action_strategy(self, key: str) -> None:
        if self.attempt is None and self.strategy is not Strategy.FRESH:
            self.strategy = STRATEGY_KEYS[key]
            self.make_plan()

    def action_confirm(self) -> None:
        plan = self.plan
        if plan is None or self.attempt is not None or not plan.verdict.ok:
            return
        self.driver = ResumeDriver(
            ResumeStore(), SubprocessLauncher(self.processes), self.processes
        )
        try:
            status, attempt = self.driver.start(plan)
        except ResumeInProgress as busy:
            status, attempt = busy.status, self.driver.attach(plan, busy.status)
            self.app.notify("A resume of this run is already under way: following it.")
        except ResumeError as error:
            self.app.notify(str(error), title="Resume refused", severity="error")
            return
        self.attempt = attempt
        self.progress(f"{status.state.word}: {status.transitions[-1].reason}")
        if attempt is not None:
            self.set_interval(0.5, self.follow)

    def progress(self, text: str) -> None:
        self.query_one("#progress", Static).update(_shown(text))

    def follow(self) -> None:
        if self.attempt is None or self.driver is None:
            return
        status, misses = self.driver.step(self.attempt)
        for label in misses:
            self.app.notify(
                f"cache miss: {redact(label)} is re-running. Press s to stop the relaunch.",
                title="Tripwire",
                severity="error",
                timeout=30,
            )
        done = self.attempt.watch.progress
        line = (
            f"live: {', '.join(done.started) or '-'}   returned: {len(done.returned)}"
            f"   from cache: {', '.join(done.cached) or '-'}"
        )
        if status is not None:
            line = f"{status.state.word}: {status.transitions[-1].reason}\n{line}"
            if status.state not in (ResumeState.LAUNCHING, ResumeState.RUNNING):
                self.app.notify(f"{self.run_view.run_id}: {status.state.word}", title="Resume")
                self.attempt = None
        self.progress(line)

    def action_stop(self) -> None:
        if self.attempt is not None and self.driver is not None:
            status = self.driver.stop(self.attempt)
            self.progress(f"{status.state.word}: by you")
            self.attempt = None

    def action_close(self) -> None:
        self.dismiss()


def _refuse_read_only(app: WftopApp) -> bool:
    if app.read_only:
        app.notify(app.read_only_reason, title="Resume is off", severity="warning")
        return True
    return False


def open_resume_plan(app: WftopApp, run: Run) -> None:
    """``r``: the resume plan of ``run``."""
    if not _refuse_read_only(app):
        app.push_screen(ResumePlanScreen(run))


def open_relaunch(app: WftopApp, run: Run) -> None:
    """``R``: the plan of a fresh relaunch (a new run of the same script, no cache)."""
    if not _refuse_read_only(app):
        app.push_screen(ResumePlanScreen(run, strategy=Strategy.FRESH))
