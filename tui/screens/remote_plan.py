"""``r`` on a run of another host: the plan made there, shown here.

The plan of a remote run is the host's own (``wftop resume RUN --dry-run --json`` over SSH,
in a thread worker): its files, processes and CLI are there, so is the guard. This screen
shows what it says, masked again here. ``enter`` runs the resume there
(``wftop resume RUN --yes --json``, `wftop.core.remote.resume`): the host checks the run
again, launches the CLI detached (it goes on if the connection drops or wftop quits), and its
events stream back here; when it ends the host is asked for its plan again, so a finished
run shows that nothing is left and a second ``enter`` launches nothing (the host refuses).
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from wftop.core.read.jsonline import UnreadableLine, parse_line
from wftop.core.remote.resume import RemoteResume, event_text, resume_args, words
from wftop.core.remote.rows import run_of
from wftop.core.remote.transport import Reply, run_remote
from wftop.core.row import RunRow
from wftop.core.text.gate import gate, gate_each, shown, shown_each
from wftop.core.text.redact import Redactor, redact_value
from wftop.tui.keys import binding
from wftop.tui.services import Services
from wftop.tui.work import Working


def plan_args(run: RunRow) -> list[str]:
    """``wftop resume`` on the host for this run, as a dry run printing JSON."""
    return resume_args(run_of(run), "--dry-run")


def plan_of(reply: Reply | None) -> dict[str, Any] | None:
    """The host's plan, when one came back."""
    if reply is None or not reply.stdout.strip():
        return None
    try:
        plan = parse_line(reply.stdout)
    except UnreadableLine:
        return None
    return plan if isinstance(plan, dict) else None


def remote_plan_text(run: RunRow, reply: Reply) -> str:
    """What the host's plan says, or why there is none."""
    host = run.host or ""
    plan = plan_of(reply)
    if plan is None:
        why = reply.failure.describe(host) if reply.failure else f"{host}: no plan came back"
        return shown_each([f"No plan from {host}.", why])
    plan = redact_value(plan, Redactor())
    forecast = plan.get("forecast") if isinstance(plan.get("forecast"), dict) else {}
    cause = plan.get("stop_cause") if isinstance(plan.get("stop_cause"), dict) else {}
    refusal = plan.get("refusal") if isinstance(plan.get("refusal"), dict) else None
    argv = plan.get("argv") if isinstance(plan.get("argv"), list) else []
    lines = [
        f"strategy   {plan.get('strategy')}   recommended: {plan.get('recommended')}",
        f"session    {plan.get('session_id')}",
        f"cwd        {plan.get('cwd')} (on {host})",
        f"stopped    {cause.get('cause', '-')}: {cause.get('evidence', '-')}",
        f"from cache {words(forecast.get('cached'))}",
        f"run again  {words(forecast.get('live'))}",
        f"command    {' '.join(str(word) for word in argv[:5])} …",
    ]
    for hazard in plan.get("hazards") or []:
        if isinstance(hazard, dict):
            lines.append(f"hazard     {hazard.get('code')}: {hazard.get('message')}")
    if refusal is not None:
        lines.append(f"guard      refuses: {refusal.get('reason')}")
        if refusal.get("fix"):
            lines.append(f"           {refusal.get('fix')}")
    else:
        lines.append(f"guard      {plan.get('guard') or 'allows it'}")
    return gate_each(lines)


class RemotePlanScreen(Working, ModalScreen[None]):
    """The plan of a run on another host, as that host makes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "launch", "resume there", id="remote-plan-launch"),
        Binding("escape,q", "close", "close", id="remote-plan-close"),
        binding("help"),
    ]
    SCREEN_NAME = "plan"
    DEFAULT_CSS = """
    RemotePlanScreen { align: center middle; }
    RemotePlanScreen > Vertical {
        width: 95%; max-width: 110; height: auto; max-height: 90%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    """

    def __init__(self, services: Services, run: RunRow) -> None:
        super().__init__()
        self.services = services
        self.run_view = run
        self.reply: Reply | None = None
        self.resume: RemoteResume | None = None
        """The resume running on the host, while its events are read."""
        self.progress: list[str] = []
        """What the host said of the resume, in order."""
        self.outcome: str | None = None
        """How the last resume from here ended."""

    def compose(self) -> ComposeResult:
        run = self.run_view
        with Vertical():
            title = f"Resume {run.name or '(unnamed)'}  {run.run_id}  on {run.host}"
            yield Static(Text(shown(title), style="bold"), id="remote-plan-title")
            yield Static(
                Text(f"asking {gate(run.host or '')} for its plan …"), id="remote-plan-body"
            )
            yield Static("", id="remote-plan-progress")
            yield Static(Text(gate(self.footer())), id="remote-plan-keys")

    def footer(self) -> str:
        host = self.run_view.host
        if self.resume is not None:
            return f"resuming on {host} … (it goes on there if you close this) · esc close"
        if self.launchable():
            return f"enter resume on {host} · esc close"
        return "esc close"

    def launchable(self) -> bool:
        """The host made a plan and its guard allows it."""
        plan = plan_of(self.reply)
        return plan is not None and plan.get("refusal") is None

    def on_mount(self) -> None:
        self.fetch_plan()

    def fetch_plan(self) -> None:
        hub = self.services.remote
        run = self.run_view
        if hub is None or run.host is None:
            return
        argv = hub.argv(run.host, plan_args(run))
        self.jobs.start(
            "remote-plan",
            lambda: run_remote(argv, timeout=60.0),
            self.show_reply,
            what=f"Couldn't ask {run.host} for its plan",
        )

    def show_reply(self, reply: Reply) -> None:
        self.reply = reply
        body = remote_plan_text(self.run_view, reply)
        self.query_one("#remote-plan-body", Static).update(Text(body))
        self.show_progress()

    def show_progress(self) -> None:
        lines = [f"on {self.run_view.host}  {line}" for line in self.progress[-6:]]
        if self.outcome is not None:
            lines.append(f"outcome  {self.outcome}")
        self.query_one("#remote-plan-progress", Static).update(Text(shown_each(lines)))
        self.query_one("#remote-plan-keys", Static).update(Text(gate(self.footer())))

    def action_launch(self) -> None:
        host = self.run_view.host
        if self.resume is not None:
            self.notify(f"A resume of this run is running on {host}.", title="Resuming")
        elif not self.launchable():
            self.notify(f"{host} does not allow it: see the plan.", title="Nothing to launch")
        else:
            hub = self.services.remote
            if hub is None or host is None:
                return
            argv = hub.argv(host, resume_args(run_of(self.run_view), "--yes"))
            self.resume = RemoteResume(argv, host)
            self.progress, self.outcome = [], None
            self.show_progress()
            self.run_resume(self.resume)

    def run_resume(self, resume: RemoteResume) -> None:
        """Read the host's events until the resume there ends, then ask for its plan again
        (each event's text made in the job, the end said once it has ended)."""

        def follow(report: Any) -> None:
            for event in resume.events():
                report(redact_value(event_text(event), Redactor()))
            report(None)

        self.jobs.stream(
            "remote-resume",
            follow,
            self._progressed,
            what=f"Lost the resume on {self.run_view.host}",
        )

    def _progressed(self, text: str | None) -> None:
        if text is None:
            self._ended()
            return
        self.progress.append(text)
        self.show_progress()

    def _ended(self) -> None:
        resume = self.resume
        if resume is None:
            return
        ended = resume.ended
        self.resume = None
        if ended is not None and ended.last is not None:
            self.outcome = redact_value(event_text(ended.last), Redactor())
        elif ended is not None and ended.failure is not None:
            self.outcome = f"no answer: {ended.failure.describe(self.run_view.host or '')}"
        else:
            self.outcome = "ended without a word"
        self.show_progress()
        self.fetch_plan()  # what is left to do, as the host sees it now

    def on_unmount(self) -> None:
        if self.resume is not None:
            self.resume.close()  # stop reading; the resume on the host goes on

    def action_close(self) -> None:
        self.dismiss()
