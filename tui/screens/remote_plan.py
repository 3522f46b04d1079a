"""``r`` on a run of another host: the plan made there, shown here.

The plan of a remote run is the host's own (``wftop resume RUN --dry-run --json`` over SSH,
in a thread worker): its files, processes and CLI are there, so is the guard. This screen
shows what it says, masked again here. Launching the resume on the host from here is not in
this version; the last line names the command to run there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, cast

import orjson
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from wftop.core.model import Run
from wftop.core.redact import Redactor, redact_value
from wftop.core.remote.transport import Reply, run_remote
from wftop.tui.keys import binding

if TYPE_CHECKING:
    from wftop.tui.app import WftopApp


def plan_args(run: Run) -> list[str]:
    """``wftop resume`` on the host for this run, as a dry run printing JSON. Every value is
    given as ``--name=value`` or after ``--``: nothing the host sent reads as an option."""
    folder = run.folder
    return [
        "resume",
        f"--session={folder.session_id}",
        f"--root={folder.root}",
        "--no-default-root",
        "--dry-run",
        "--json",
        "--",
        folder.run_id,
    ]


def words(items: Any) -> str:
    return ", ".join(str(item) for item in items) if isinstance(items, list) and items else "-"


def remote_plan_text(run: Run, reply: Reply) -> str:
    """What the host's plan says, or why there is none."""
    host = run.host or ""
    try:
        plan = orjson.loads(reply.stdout) if reply.stdout.strip() else None
    except orjson.JSONDecodeError:
        plan = None
    if not isinstance(plan, dict):
        why = reply.failure.describe(host) if reply.failure else f"{host}: no plan came back"
        return f"No plan from {host}.\n{why}"
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
    return "\n".join(lines)


class RemotePlanScreen(ModalScreen[None]):
    """The plan of a run on another host, as that host makes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
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

    def __init__(self, run: Run) -> None:
        super().__init__()
        self.run_view = run
        self.reply: Reply | None = None

    @property
    def wftop(self) -> WftopApp:
        return cast("WftopApp", self.app)

    def compose(self) -> ComposeResult:
        run = self.run_view
        with Vertical():
            title = f"Resume {run.name or '(unnamed)'}  {run.run_id}  on {run.host}"
            yield Static(Text(title, style="bold"), id="remote-plan-title")
            yield Static(Text(f"asking {run.host} for its plan …"), id="remote-plan-body")
            yield Static(Text(self.footer()), id="remote-plan-keys")

    def footer(self) -> str:
        run = self.run_view
        return (
            f"The resume runs on {run.host}, not from here (not in this version): "
            f"wftop resume {run.run_id} there · esc close"
        )

    def on_mount(self) -> None:
        self.fetch_plan()

    @work(thread=True, exclusive=True, group="remote-plan", exit_on_error=False)
    def fetch_plan(self) -> None:
        hub = self.wftop.remote
        run = self.run_view
        if hub is None or run.host is None:
            return
        reply = run_remote(hub.argv(run.host, plan_args(run)), timeout=60.0)
        self.app.call_from_thread(self.show_reply, reply)

    def show_reply(self, reply: Reply) -> None:
        self.reply = reply
        body = remote_plan_text(self.run_view, reply)
        self.query_one("#remote-plan-body", Static).update(Text(body))

    def action_close(self) -> None:
        self.dismiss()
