"""The wftop App: a view of the engine's rows. It wires; it holds no screen logic.

The app owns three things and hands them down. The `wftop.tui.store.Store` holds every run as
a row (`wftop.core.row.RunRow`), fed by the engine link (`wftop.core.engine.link`: one async
worker reads the engine's stream on this loop; no thread, no polling) and by the other
hosts' links; it applies what came in at most once a frame and tells the screens what
changed. The `wftop.tui.services.Services` are the clock, the palette, the policy factory and
the other doors screens act through. The `wftop.tui.navigator.Navigator` opens every screen:
screens post `wftop.tui.messages.Navigate` messages and never import this module.

Around them the app says when the engine is lost and back. What it inherits does the rest:
`wftop.tui.telling.TellApp` raises alerts (toast, bell, terminal title) and notifications
when a row's status changes and keeps the runs marked seen; `wftop.tui.toasts.ToastApp`
keeps toasts calm and says every failure of background work (`wftop.tui.work.JobFailed`) in
a toast and the log. A first run's missing root is looked for by `wftop.tui.firstrun`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import SystemCommand
from textual.binding import BindingType
from textual.driver import Driver
from textual.screen import Screen

from wftop.core.config import Config
from wftop.core.engine.channel import Connector
from wftop.core.engine.feed import Delta
from wftop.core.engine.link import EngineLink, EngineLost, EngineUp, connector_for
from wftop.core.engine.protocol import Kept, ProblemSeen, Progress
from wftop.core.index.details import Details
from wftop.core.system.memory import give_back_memory
from wftop.core.system.procs import ProcessTable, default_table
from wftop.tui import net
from wftop.tui.collector import PAUSE_LIMIT, StartPause
from wftop.tui.firstrun import RootLook, absent
from wftop.tui.keys import APP_IDS, KEYS, binding, key_list
from wftop.tui.messages import Navigate, OpenHelp, OpenSessions
from wftop.tui.navigator import Navigator
from wftop.tui.notices import Notices
from wftop.tui.services import Services
from wftop.tui.store import FRAME, READING_FRAME, Change, Store
from wftop.tui.store import Progress as Reading
from wftop.tui.styles import Palette
from wftop.tui.telling import TellApp
from wftop.tui.terminal import TitleSink, titled
from wftop.tui.toasts import BANNER_SECONDS

if TYPE_CHECKING:
    from wftop.core.notify.notifier import Notifier
    from wftop.core.remote.link import RemoteHub, Update
    from wftop.core.resume.policy import ResumePolicy
    from wftop.core.resume.rehearse import Rehearse

CSS_FILE = Path(__file__).with_name("app.tcss")
"""The app's stylesheet (package data beside this module)."""

TICK_SECONDS = 15.0
"""Ages move even when no file does: every row shown is drawn again this often."""
READY_AFTER = 1.0
"""Seconds after every run is first drawn that what opening a run needs is imported
(`wftop.tui.navigator.Navigator.ready_run_screen`): a run opened sooner imports it then."""


class WftopApp(TellApp):
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
        pause: StartPause | None = None,
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
        pause: the cyclic collector's pause while the app starts, ended once every run
            is first drawn (by `PAUSE_LIMIT` seconds after the app is mounted at most).
        """
        net.install()
        self.title_sink = TitleSink()
        super().__init__()
        self.config = config = config or Config()
        self.roots = list(roots)
        self.banner = banner
        self.link = EngineLink(connector or connector_for(self.roots, config.stall_window))
        processes = processes if processes is not None else default_table()
        self.store = Store(
            self, self._next_frame, reading=self._reading_frame, give_back=self._give_back_memory
        )
        self.store.missing = absent(self.roots)  # before the loop runs: no wait on it
        self.root_look = RootLook(self, self.store, self.roots)
        from wftop.core.system.statedir import state_dir

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
            policy=policy or partial(machine_policy, processes, now, config, roots=self.roots),
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
        self.pause = pause
        self.engine_lost = 0
        """Times the engine was lost (and another one started)."""
        if remote is not None:
            for host, state in remote.states().items():
                self.store.hosts[host] = state

    def get_driver_class(self) -> type[Driver]:
        return titled(super().get_driver_class(), self.title_sink)

    def _next_frame(self, apply: Callable[[], object]) -> None:
        self.set_timer(FRAME, apply, name="store-frame")

    def _reading_frame(self, apply: Callable[[], object]) -> None:
        self.set_timer(READING_FRAME, apply, name="store-frame")

    def _give_back_memory(self) -> None:
        """What the store let go of, given back to the system in a thread (`Store`)."""
        self.jobs.start(
            "give-back", give_back_memory, lambda _asked: None, what="Couldn't free memory"
        )

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
        self.start_notices()
        if self.banner is not None:
            title, text = self.banner
            self.notify(text, title=title, timeout=BANNER_SECONDS)
        if self.services.remote is not None:
            self.follow_hosts()
        if self.services.live:
            self.root_look.start()
        if self.pause is not None:
            self.set_timer(PAUSE_LIMIT, self.pause.end, name="collector-pause")

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
                    if update.complete and not store.told.known:
                        done = len(self.link.rows)
                        store.progressed(Reading(done, done, loaded=True))
                elif isinstance(update, Kept) and not store.told.loaded:
                    done = len(self.link.rows)  # listed while the engine walks for the rest
                    store.progressed(Reading(done, done, loaded=True, walking=True))
                elif isinstance(update, Progress):
                    store.progressed(replace(store.told, read=update.read, total=update.total))
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
                    if update.fatal:  # the engine stopped reading: said until another is up
                        store.engine_state(update.text)
                        said = update.text.removeprefix("engine failed: ")
                        self.notify(said, title="Engine failed", severity="error")
                    elif update.notice:
                        self.notify(update.text, title="Watch", severity="warning")
        except Exception as error:  # noqa: BLE001 - said and logged, never the app's end
            self.failed("Lost the engine's stream", error)

    def _store_changed(self, change: Change) -> None:
        """What a change tells (`TellApp.tell_changes`); the ages' tick once loaded."""
        self.tell_changes(change)
        if change.progress and self.store.progress.loaded and not self._ticking:
            self._ticking = True
            if self.pause is not None:
                self.call_after_refresh(self.pause.end)  # every run drawn
            self.call_after_refresh(self.start_notifier)  # nothing is told before the list
            if self.services.live:
                self.set_interval(TICK_SECONDS, self.store.tick, name="age-tick")
                # once the list is drawn, and a while after: what it imports (in a thread,
                # under the lock every thread shares) is not the list's first frame's
                ready = partial(self.set_timer, READY_AFTER, self.navigator.ready_run_screen)
                self.call_after_refresh(ready)

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

    async def on_unmount(self) -> None:
        if self.pause is not None:
            self.pause.end()  # an app that ends before every run was drawn
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


def machine_policy(
    processes: ProcessTable,
    now: Callable[[], float],
    config: Config,
    *,
    version_of: Callable[[str], Any] | None = None,
    roots: Sequence[str] = (),
) -> ResumePolicy:
    """The resume policy over this process table and clock, the state dir (its spend book,
    unless it lies in one of ``roots``) and the configured claude (asked its version with
    ``version_of``)."""
    from wftop.core.cost.spendbook import book_for
    from wftop.core.forecast.launchinfo import installed_version
    from wftop.core.resume.policy import ResumePolicy
    from wftop.core.resume.store import ResumeStore, state_dir

    return ResumePolicy(
        processes=processes,
        clock=now,
        store=ResumeStore(),
        claude_bin=config.claude,
        extra_flags=config.resume_flags,
        version_of=version_of or installed_version,
        spend_book=book_for(state_dir(), roots),
    )
