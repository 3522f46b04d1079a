"""The wftop App: a view of the engine's rows. It wires; it holds no screen logic.

The app owns three things and hands them down. The `wftop.tui.store.Store` holds every run as
a row (`wftop.core.row.RunRow`), fed by the engine link (`wftop.core.engine.link`: one async
worker reads the engine's stream on this loop; no thread, no polling) and by the other
hosts' links; it applies what came in at most once a frame and tells the screens what
changed. The `wftop.tui.services.Services` are the clock, the palette, the policy factory and
the other doors screens act through. The `wftop.tui.navigator.Navigator` opens every screen:
screens post `wftop.tui.messages.Navigate` messages and never import this module.

Around them the app raises alerts (toast, bell, terminal title) when a row's status
changes, says when the engine is lost and back, and says every failure of background work
(`wftop.tui.work.JobFailed`) in a toast and the log.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import BindingType
from textual.driver import Driver
from textual.notifications import SeverityLevel
from textual.screen import ModalScreen, Screen

from wftop.core.engine.feed import Delta
from wftop.core.engine.link import Connector, EngineLink, EngineLost, EngineUp, connector_for
from wftop.core.engine.protocol import ProblemSeen, Progress
from wftop.core.index.details import Details
from wftop.core.model import PARTIAL
from wftop.core.system.procs import ProcessTable, default_table
from wftop.core.text.gate import shown, shown_each
from wftop.tui import net
from wftop.tui.alerts import Alert, alert_for
from wftop.tui.config import Config
from wftop.tui.firstrun import RootLook, absent
from wftop.tui.keys import APP_IDS, KEYS, binding, key_list
from wftop.tui.log import log_failure
from wftop.tui.messages import MarkSeen, Navigate, OpenHelp, OpenSessions
from wftop.tui.navigator import Navigator
from wftop.tui.notices import Notices
from wftop.tui.services import Services
from wftop.tui.store import FRAME, Change, Store
from wftop.tui.store import Progress as Reading
from wftop.tui.styles import Palette
from wftop.tui.terminal import TitleSink, titled
from wftop.tui.work import JobFailed, Working

if TYPE_CHECKING:
    from wftop.core.notify.notifier import Notifier
    from wftop.core.remote.link import RemoteHub, Update
    from wftop.core.resume.policy import ResumePolicy
    from wftop.core.resume.rehearse import Rehearse

CSS_FILE = Path(__file__).with_name("app.tcss")
"""The app's stylesheet (package data beside this module)."""

BANNER_SECONDS = 12.0
"""How long the start banner (the demo's) stays; its title then stays in the list's header."""
TOAST_SECONDS = 8.0
"""How long a toast stays when its caller does not say (every toast goes by itself)."""

TICK_SECONDS = 15.0
"""Ages move even when no file does: every row shown is drawn again this often."""


@dataclass(frozen=True)
class Toast:
    """A toast as it was raised (tests and the log read them)."""

    title: str
    message: str
    """As shown: masked, gated, one line per line."""
    severity: SeverityLevel
    until: float = 0.0
    """When it goes (the app's monotonic clock)."""
    markup: bool = False
    """Never: a toast's brackets are text."""


class WftopApp(Working, App[int]):
    """Every Workflow run on this machine (and the hosts named), live."""

    CSS_PATH = str(CSS_FILE)
    TITLE = "wftop"
    BINDINGS: ClassVar[list[BindingType]] = [binding(binding_id) for binding_id in APP_IDS]

    def __init__(
        self,
        roots: list[str],
        *,
        config: Config | None = None,
        connector: Connector | None = None,
        processes: ProcessTable | None = None,
        now: Callable[[], float] = time.time,
        live: bool = True,
        read_only: bool = False,
        rehearse: Rehearse | None = None,
        banner: tuple[str, str] | None = None,
        read_only_reason: str = "",
        remote: RemoteHub | None = None,
        policy: Callable[[], ResumePolicy] | None = None,
        notifier: Notifier | None = None,
    ) -> None:
        """Args:
        roots: the config roots to read.
        config: settings from the config file.
        connector: how the engine is reached (default: the shared one for these roots,
            started on demand; tests pass an engine in this process).
        processes: the process table (tests pass a fake one).
        now: the clock; tests pass a fixed one.
        live: screens follow files that grow (off in snapshot tests).
        read_only: refuse resume and relaunch.
        rehearse: what the resume plan rehearses a resume with (None: no exact forecast).
        banner: (title, text) shown in a toast once the app is up (the demo says what
            it shows); it stays until a window opens or it times out.
        read_only_reason: what ``r`` says when read-only (default: the --read-only flag).
        remote: the links to other hosts, whose runs join this machine's.
        policy: makes the resume plan's policy (None: the machine's).
        notifier: tells what happens (None: made from the config and the environment).
        """
        net.install()
        self.title_sink = TitleSink()
        super().__init__()
        self.config = config = config or Config()
        self.roots = list(roots)
        self.banner = banner
        self.link = EngineLink(connector or connector_for(self.roots, config.stall_window))
        processes = processes if processes is not None else default_table()
        self.store = Store(self, self._next_frame)
        self.store.missing = absent(self.roots)  # before the loop runs: no wait on it
        self.root_look = RootLook(self, self.store, self.roots)
        from wftop.core.resume.store import state_dir

        self.notices = Notices(now(), None if read_only else state_dir())
        reason = ""
        if read_only:
            reason = read_only_reason or "wftop was started with --read-only."
        self.services = Services(
            clock=now,
            palette=Palette(),
            config=config,
            roots=tuple(self.roots),
            processes=processes,
            details=Details(processes=processes, now=now, stall_window=config.stall_window),
            policy=policy or partial(machine_policy, processes, now, config),
            rehearse=None if read_only else rehearse,
            remote=remote,
            read_only=reason,
            live=live,
            keymap={key: ",".join(key_list(keys)) for key, keys in config.keys.items()},
            seen=self.notices.seen,
            headline=banner[0] if banner is not None else "",
        )
        self.navigator = Navigator(self, self.store, self.services)
        self._notifier = notifier
        self.alerts: list[Alert] = []
        """Every alert raised since start, oldest first."""
        self.toasts: list[Toast] = []
        """Every toast raised, oldest first (whole: a toast shows at most two lines)."""
        self._up: list[Toast] = []
        self.engine_lost = 0
        """Times the engine was lost (and another one started)."""
        if remote is not None:
            for host, state in remote.states().items():
                self.store.hosts[host] = state

    def get_driver_class(self) -> type[Driver]:
        return titled(super().get_driver_class(), self.title_sink)

    def _next_frame(self, apply: Callable[[], object]) -> None:
        self.set_timer(FRAME, apply, name="store-frame")

    # -- start -----------------------------------------------------------------------------

    def on_mount(self) -> None:
        config = self.config
        if config.theme:
            if config.theme in self.available_themes:
                self.theme = config.theme
            else:
                self.notify(
                    f"No theme named {config.theme!r}; using {self.theme}.",
                    title="Couldn't apply theme",
                    severity="warning",
                )
        self.services.palette.load(self)
        self.theme_changed_signal.subscribe(self, lambda _theme: self._restyle())
        if config.keys:
            self.set_keymap(dict(config.keys))
        self.store.changed.subscribe(self, self._store_changed)
        self.navigator.home()
        self.title_sink.write("wftop")
        self.follow_engine()
        self.jobs.start(
            "notices", self._make_notices, self._notices_ready, what="Couldn't set up notifications"
        )
        if self.banner is not None:
            title, text = self.banner
            self.notify(text, title=title, timeout=BANNER_SECONDS)
        if self.services.remote is not None:
            self.follow_hosts()
        if self.services.live:
            self.root_look.start()

    def _restyle(self) -> None:
        self.services.palette.load(self)
        self.store.tick()

    # -- the engine ------------------------------------------------------------------------

    @work(exclusive=True, group="engine", exit_on_error=False, name="engine-link")
    async def follow_engine(self) -> None:
        """Read the engine's updates on this loop until the app ends."""
        store = self.store
        try:
            async for update in self.link.updates():
                if isinstance(update, Delta):
                    store.take((*update.added, *update.changed), update.removed)
                    if update.complete and not store.told.loaded:
                        done = len(self.link.rows)
                        store.progressed(Reading(done, done, loaded=True))
                elif isinstance(update, Progress):
                    loaded = store.told.loaded
                    store.progressed(Reading(update.read, update.total, loaded))
                elif isinstance(update, EngineLost):
                    self.engine_lost += 1
                    store.engine_state(f"engine lost: {update.why}; starting another")
                    self.notify(
                        f"{update.why}. Starting another; the runs shown stay until it has "
                        "read them.",
                        title="Engine lost",
                        severity="warning",
                    )
                elif isinstance(update, EngineUp):
                    store.engine_state("")
                    if update.restarted:
                        self.notify(f"Engine {update.hello.pid} is up.", title="Engine back")
                elif isinstance(update, ProblemSeen):
                    self.log.warning(update.text)
        except Exception as error:  # noqa: BLE001 - said and logged, never the app's end
            self.failed("Lost the engine's stream", error)

    def _store_changed(self, change: Change) -> None:
        """Alerts for the runs whose status changed (not while the first read goes on), the
        notifications they make, and the title."""
        if (change.changed or change.added) and self.store.progress.loaded:
            now = self.services.clock()
            for row in (*change.added, *change.changed):
                before = change.before.get(row.ident)
                alert = alert_for(before, row) if before is not None else None
                if alert is not None:
                    self.raise_alert(alert)
                event = self.notices.event(before, row, now)
                if event is not None:
                    self.notices.tell(event, self.shown_run())
        if change.rows or change.clock:
            self.update_title()
        if change.progress and self.store.progress.loaded and not self._ticking:
            self._ticking = True
            if self.services.live:
                self.set_interval(TICK_SECONDS, self.store.tick, name="age-tick")

    _ticking = False

    # -- other hosts -----------------------------------------------------------------------

    @work(exclusive=True, group="remote", exit_on_error=False, name="follow-hosts")
    async def follow_hosts(self) -> None:
        """The other hosts' rows and states, as their links tell them."""
        hub = self.services.remote
        assert hub is not None
        try:
            async for batch in hub.updates():
                for update in batch:
                    self._host_update(update)
        except Exception as error:  # noqa: BLE001 - said and logged, never the app's end
            self.failed("Lost the other hosts", error)

    def _host_update(self, update: Update) -> None:
        state = update.state
        before = self.store.hosts.get(state.host)
        self.store.host_changed(state)
        if state.failure is not None and (before is None or before.failure is None):
            self.notify(state.describe(), title="Host unreachable", severity="warning")
        elif state.failure is None and before is not None and before.failure is not None:
            self.notify(f"{state.host}: connected again", title="Host back")
        delta = update.rows
        if delta is not None:
            self.store.take((*delta.added, *delta.changed), delta.removed)

    # -- failures ----------------------------------------------------------------------------

    @on(JobFailed)
    def job_failed(self, message: JobFailed) -> None:
        message.stop()
        self.failed(message.what, message.error, message.trace)

    def failed(self, what: str, error: BaseException, trace: str = "") -> None:
        """A failure of background work: a toast, and the log."""
        text = f"{type(error).__name__}: {error}"
        path = log_failure(what, text, trace)
        where = f" (logged in {path})" if path else ""
        self.notify(text + where, title=what, severity="error", timeout=10)
        self.log.error(what, text, trace)

    # -- alerts and toasts -------------------------------------------------------------------

    def raise_alert(self, alert: Alert) -> None:
        self.alerts.append(alert)
        if self.config.notify:
            title = {"dead": "Run died", "stalled": "Run stalled"}.get(alert.after, "Run finished")
            self.notify(alert.message, title=title, severity=alert.severity, timeout=8)
        ringing = alert.after in ("dead", "stalled", "failed", "killed", PARTIAL)
        if self.config.bell and ringing and self.notices.notifier is None:
            self.bell()  # until the notifier is made (it rings once across every wftop)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A toast: its message and title masked and gated (`wftop.core.text.gate.shown`),
        each line of the message kept one line, and never read as markup (a toast names
        runs, labels and paths, whose brackets are text); over a modal window (the plan,
        help, copy) only the newest one shows, so toasts never pile up over what the window
        says."""
        lines = shown_each(message.split("\n")) if message else message
        seconds = timeout if timeout is not None and timeout > 0 else TOAST_SECONDS
        toast = Toast(shown(title), lines, severity, time.monotonic() + seconds)
        self.toasts.append(toast)
        if any((up.title, up.message) == (toast.title, toast.message) for up in self.showing):
            return  # the same toast is still shown: merged, not stacked
        say = getattr(self.screen, "say", None) if self.is_running else None
        if callable(say):  # a window that says it inside its own box (a toast covers it)
            say(toast.title, lines, severity)
            return
        if self.is_running and isinstance(self.screen, ModalScreen):
            self.clear_notifications()
        self._up.append(toast)
        width = min(TOAST_WIDTH, self.size.width - TOAST_RACK) - TOAST_FRAME
        super().notify(
            calm(lines, width), title=toast.title, severity=severity, timeout=seconds, markup=False
        )

    def clear_notifications(self) -> None:
        self._up.clear()
        super().clear_notifications()

    @property
    def showing(self) -> list[Toast]:
        """The toasts up now, oldest first."""
        now = time.monotonic()
        self._up = [toast for toast in self._up if toast.until > now]
        return list(self._up)

    def attention(self) -> int:
        """Runs that need a person and are not marked seen (`wftop.tui.store.Store.attention`)."""
        now = self.services.clock()
        return len(self.store.needing(now, self.config.attention_window, self.notices.seen))

    # -- notifications and runs marked seen ----------------------------------------------------

    def _make_notices(self) -> tuple[Notifier | None, tuple[str, ...], dict[str, Any]]:
        """In a thread: the notifier (tmux may be asked) and the marks (the state dir)."""
        import os

        from wftop.core.notify.setup import make_notifier

        acks = self.notices.acks
        marks = acks.table.read() if acks.table is not None else {}
        if self._notifier is not None:
            return self._notifier, (), marks
        made = make_notifier(
            self.config.notifications,
            env=os.environ,
            write=self._write_terminal,
            state=self.notices.state,
            report=self._notice_failed,
            bell=self.config.bell,
        )
        return made.notifier, made.notes, marks

    def _notices_ready(self, made: tuple[Notifier | None, tuple[str, ...], dict[str, Any]]) -> None:
        notifier, notes, marks = made
        self.notices.ready(notifier, notes, marks)
        for note in notes:
            self.log.warning(f"notifications: {note}")
        self.store.tick()

    def _write_terminal(self, data: bytes) -> None:
        """A terminal channel's bytes (from the notifier's thread), written on the loop
        through the driver (nothing under a headless test)."""
        try:
            self.call_from_thread(self._to_driver, data.decode("utf-8", "replace"))
        except RuntimeError as error:  # the app is closing
            raise OSError(str(error)) from None

    def _to_driver(self, text: str) -> None:
        driver = self.title_sink.driver
        if driver is not None:
            driver.write(text)

    def _notice_failed(self, line: str) -> None:
        """A channel failed (said once, from the notifier's thread)."""
        with contextlib.suppress(RuntimeError):
            self.call_from_thread(self.notify, line, title="Notifications", severity="warning")

    def shown_run(self) -> str | None:
        """The run whose screen is the one shown (its events are not told), if any."""
        screen = self.screen
        ident = getattr(screen, "ident", None)
        if ident is None:
            ident = getattr(getattr(screen, "row", None), "ident", None)
        return ident if isinstance(ident, str) else None

    @on(MarkSeen)
    def mark_seen(self, message: MarkSeen) -> None:
        """``a``: the runs named; ``A``: every run that needs you now."""
        message.stop()
        now = self.services.clock()
        if message.every:
            rows = self.store.needing(now, self.config.attention_window, self.notices.seen)
        else:
            rows = [self.store.rows[i] for i in message.idents if i in self.store.rows]
        if not rows:
            self.notify("Nothing needs you.", title="Seen", timeout=3)
            return
        count = len(rows)
        words = rows[0].run_id if count == 1 else f"{count} runs"

        def done(_fresh: int) -> None:
            self.store.tick()
            self.notify(
                f"{words}: seen, until it changes again"
                if count == 1
                else f"{words} seen, until they change again",
                title="Seen",
                timeout=3,
            )

        self.jobs.start(
            "mark-seen", self.notices.mark(rows, now), done, what="Couldn't mark runs seen"
        )

    def update_title(self) -> None:
        count = self.attention()
        title = f"wftop · {count} need attention" if count else "wftop"
        self.sub_title = title
        self.title_sink.write(title)

    @property
    def terminal_title(self) -> str:
        return self.title_sink.title

    async def on_unmount(self) -> None:
        self.notices.close()
        self.title_sink.write("")
        await self.link.close()
        if self.services.remote is not None:
            self.services.remote.close()

    # -- navigation --------------------------------------------------------------------------

    @on(Navigate)
    def navigate(self, message: Navigate) -> None:
        message.stop()
        self.navigator.go(message)

    def action_help(self) -> None:
        self.navigator.go(OpenHelp())

    def action_sessions(self) -> None:
        """``S``: recent sessions, their dead workers and why they stopped."""
        self.navigator.go(OpenSessions())

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        name = getattr(screen, "SCREEN_NAME", "")
        for binding_id, spec in KEYS.items():
            if name not in spec.screens or binding_id in APP_IDS or not spec.palette:
                continue
            action = spec.action
            target = "app" if action.startswith("app.") else "screen"
            yield SystemCommand(
                spec.words[:1].upper() + spec.words[1:],
                f"{binding_id} · {self.services.keys_of(binding_id, spec.keys)}",
                partial(self._run_from_palette, screen, action.removeprefix("app."), target),
            )
        extra = getattr(screen, "palette_commands", None)
        if callable(extra):
            yield from extra()
        yield SystemCommand(
            "Sessions",
            "recent sessions: dead workers and why they stopped · S",
            self.action_sessions,
        )

    def _run_from_palette(self, screen: Screen[Any], action: str, target: str) -> None:
        node = self if target == "app" else screen
        self.call_later(self.run_action, action, node)


TOAST_WIDTH = 60
"""A toast's width (app.tcss), or the screen's when narrower."""
TOAST_FRAME = 3
"""Cells of a toast's width that are not text: its padding and its left border."""
TOAST_RACK = 2
"""Cells of the screen's width the toasts' rack keeps for its scroll bar."""
TOAST_LINES = 2


def calm(text: str, width: int) -> str:
    """``text`` as a toast shows it: at most `TOAST_LINES` lines of ``width`` cells, cut
    with ``…`` (the whole text is in ``WftopApp.toasts`` and the log)."""
    import textwrap

    width = max(width, 10)
    lines: list[str] = []
    for line in text.split("\n"):
        lines += textwrap.wrap(line, width) or [""]
    if len(lines) <= TOAST_LINES:
        return "\n".join(lines)
    kept = lines[:TOAST_LINES]
    kept[-1] = kept[-1][: width - 1].rstrip() + "…"
    return "\n".join(kept)


def machine_policy(
    processes: ProcessTable,
    now: Callable[[], float],
    config: Config,
    *,
    version_of: Callable[[str], Any] | None = None,
) -> ResumePolicy:
    """The resume policy over this process table and clock, the state dir and the
    configured claude (asked its version with ``version_of``)."""
    from wftop.core.forecast.launchinfo import installed_version
    from wftop.core.resume.policy import ResumePolicy
    from wftop.core.resume.store import ResumeStore

    return ResumePolicy(
        processes=processes,
        clock=now,
        store=ResumeStore(),
        claude_bin=config.claude,
        extra_flags=config.resume_flags,
        version_of=version_of or installed_version,
    )
