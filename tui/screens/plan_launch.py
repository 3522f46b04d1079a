"""A resume launched from the plan and followed to its outcome: the launch checked again in a
job, the relaunch stepped in jobs (one at a time) every `FOLLOW_INTERVAL`, the tripwire's
alerts raised, ``s`` stopping it, and the outcome shown with the plan of the run where it
left it.

`LaunchFollowing` is the plan screen's base (`wftop.tui.screens.plan.ResumePlanScreen`): it
holds the request in flight and hands what comes back to the screen's `show_plan` and
`show_plan_text`. The policy's `Request` is changed by every step: it stays with the job
that steps it, and the screen is handed a frozen `Followed` of it after each step.
"""

from __future__ import annotations

from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Static

from wftop.core.model import Run
from wftop.core.resume.machine import ResumeState
from wftop.core.resume.plan import Plan
from wftop.core.resume.policy import ResumePolicy
from wftop.core.resume.request import Event, Request
from wftop.tui.screens.plan_text import Followed, outcome_text, progress_text, request_text
from wftop.tui.work import Working

FOLLOW_INTERVAL = 0.5
"""Seconds between two steps of a relaunch in flight."""


class LaunchFollowing(Working, ModalScreen[None]):
    """A screen that launches a plan and follows the request it starts."""

    def __init__(self) -> None:
        super().__init__()
        self.plan: Plan | None = None
        self.run_view: Run | None = None
        """The whole run the plan shown was made of."""
        self.policy: ResumePolicy | None = None
        self.request: Followed | None = None
        """The request this screen launched or follows, as its last step left it."""
        self.after: Plan | None = None
        """The plan of the run where the request left it."""
        self.launches = 0
        """Requests this screen asked the policy to start (a test reads it)."""
        self.busy = False
        """A confirmation is being checked and launched by a job."""
        self._live: Request | None = None
        """The policy's request: only ever handed to the job that steps it."""
        self._stopping = False
        self._stepper: Timer | None = None

    @property
    def following(self) -> bool:
        return self.request is not None and self.request.in_flight

    def show_plan(self, plan: Plan) -> None:
        """Show ``plan`` (the screen's own)."""
        raise NotImplementedError

    def show_plan_text(self, plan: Plan) -> None:
        """Show ``plan``'s body (the screen's own)."""
        raise NotImplementedError

    # -- jobs: the launch and each step --------------------------------------------------------

    def start(self, plan: Plan, *, force: bool) -> None:
        """Check the run once more and launch only if that check passes (the policy does)."""
        policy = self.policy
        assert policy is not None
        self.busy = True
        self.launches += 1
        self.query_one("#verdict", Static).update("checking the run again…")

        def launch() -> tuple[Plan, Request, Followed, list[Event]]:
            request, events = policy.start(plan, force=force)
            return request.plan, request, Followed.of(request), events

        self.jobs.start("launch", launch, self.launched, what="Couldn't launch the resume")

    def _step(self) -> None:
        """Step the relaunch once (in a job; never two at once), or stop it when asked."""
        request, policy = self._live, self.policy
        if request is None or policy is None or self.jobs.busy("follow"):
            return
        stopping = self._stopping

        def step() -> tuple[Followed, list[Event], Plan | None]:
            events = policy.stop(request) if stopping else policy.step(request)
            after = policy.after(request) if request.ended else None
            return Followed.of(request), events, after

        self.jobs.start("follow", step, self.followed, what="Couldn't follow the resume")

    # -- the loop: apply what the jobs found --------------------------------------------------

    def launched(self, found: tuple[Plan, Request, Followed, list[Event]]) -> None:
        """A launch (or a request found in flight) came back: follow it, or show the refusal
        of the plan made again at that moment."""
        plan, request, followed, events = found
        self.busy = False
        self.show_plan(plan)
        self.notify_events(events)
        if followed.state is None or followed.state is ResumeState.BLOCKED:
            self.app.notify(followed.reason, title="Resume refused", severity="error")
            return
        self._live = request
        self.request = followed
        self.query_one("#verdict", Static).update(request_text(followed, None))
        self._stepper = self.set_interval(FOLLOW_INTERVAL, self._step, name="follow-resume")
        self._step()

    def followed(self, found: tuple[Followed, list[Event], Plan | None]) -> None:
        followed, events, after = found
        self.request = followed
        self.notify_events(events)
        self.query_one("#progress", Static).update(progress_text(followed))
        if followed.in_flight:
            self.query_one("#verdict", Static).update(request_text(followed, None))
        else:
            self.ended(followed, after)

    def ended(self, request: Followed, after: Plan | None) -> None:
        if self._stepper is not None:
            self._stepper.stop()
        self._live = None
        self.after = after
        self.query_one("#progress", Static).update(outcome_text(request))
        self.query_one("#verdict", Static).update(request_text(request, after))
        if after is not None:
            self.plan = after
            self.run_view = after.run
        self.show_plan_text(request.plan)
        state = request.state.word if request.state else "ended"
        spent = f" · {request.spent}" if request.spent else ""
        self.app.notify(f"{request.plan.run.run_id}: {state}{spent}", title="Resume")

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

    def action_stop(self) -> None:
        if self.following:
            self._stopping = True
            self._step()
