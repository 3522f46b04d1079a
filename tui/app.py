"""The wftop App: wires the run index to the screens; holds no screen logic itself.

The App owns the current runs (``runs``, ident → `Run`), fed first by a thread
worker that runs the index's cold start and then by a thread worker that follows
the disk (with an event loop of its own: the index re-reads, stats and folds
there, never on the app's loop). Each change set is applied here, turned into alerts
(toast, bell, terminal title) and broadcast to the screens on the
``runs_changed`` signal; screens redraw only what changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import BindingType
from textual.notifications import Notify, SeverityLevel
from textual.screen import ModalScreen, Screen
from textual.signal import Signal
from textual.worker import Worker, WorkerState

from wftop.core.index.changeset import ChangeSet
from wftop.core.index.live import LiveIndex
from wftop.core.model import PARTIAL, Run, Status
from wftop.core.text.gate import shown, shown_each
from wftop.tui import net, pacing
from wftop.tui.config import Config
from wftop.tui.feed import (
    Alert,
    HostsUpdated,
    IndexBatch,
    IndexChanged,
    IndexLoaded,
    IndexProgressed,
    Keyed,
    alert_for,
    needs_a_look,
)
from wftop.tui.keys import APP_IDS, KEYS, binding
from wftop.tui.messages import OpenRun
from wftop.tui.screens.runs import RunsScreen
from wftop.tui.source import preview_runs
from wftop.tui.styles import Palette

if TYPE_CHECKING:
    from wftop.core.resume.rehearse import Rehearse
    from wftop.core.remote.feed import HostState
    from wftop.core.remote.link import RemoteHub
    from wftop.core.resume.policy import ResumePolicy
    from wftop.tui.screens.run import RunScreen

CSS_FILE = Path(__file__).with_name("app.tcss")
"""The app's stylesheet (package data beside this module)."""

BANNER_SECONDS = 120.0
"""How long the start banner (the demo's) stays unless a window replaces it."""


class WftopApp(App[int]):
    """Every Workflow run on this machine, live."""

    CSS_PATH = str(CSS_FILE)
    TITLE = "wftop"
    BINDINGS: ClassVar[list[BindingType]] = [binding(binding_id) for binding_id in APP_IDS]

    def __init__(
        self,
        index: LiveIndex,
        *,
        config: Config | None = None,
        now: Callable[[], float] = time.time,
        live: bool = True,
        read_only: bool = False,
        preview: bool | Future[ChangeSet] = True,
        rehearse: Rehearse | None = None,
        banner: tuple[str, str] | None = None,
        read_only_reason: str = "",
        remote: RemoteHub | None = None,
    ) -> None:
        """Args:
        index: the live index (``wftop.core.index.live.LiveIndex``).
        config: settings from the config file.
        now: the clock; tests pass a fixed one.
        live: follow the index after the cold start (off in snapshot tests).
        read_only: refuse resume and relaunch.
        preview: paint the newest runs before the cold start has read them all
            (True: read them first; a future: they are being read already).
        rehearse: what the resume plan rehearses a resume with (None: no exact forecast).
        banner: (title, text) shown in a toast once the app is up (the demo says what
            it shows); it stays until a window opens or it times out.
        read_only_reason: what ``r`` says when read-only (default: the --read-only flag).
        remote: the links to other hosts, whose runs join this machine's.
        """
        pacing.install()
        net.install()
        super().__init__()
        self.index = index
        self.config = config or Config()
        self.now = now
        self.live = live
        self.read_only = read_only
        self.read_only_reason = read_only_reason or "wftop was started with --read-only."
        self.banner = banner
        self.preview = preview
        self.resume_policy: Callable[[], ResumePolicy] | None = None
        """Makes the resume plan's policy; None: the machine's (`tui/screens/plan.py`).
        Tests set one with a fake launcher."""
        self.runs: dict[str, Run] = {}
        """Every run now known, by ident."""
        self.loaded = False
        """The cold start has finished."""
        self.scanned = 0
        """Runs read so far by the cold start."""
        self.alerts: list[Alert] = []
        """Every alert raised since start, oldest first."""
        self._needy: dict[str, Run] = {}
        """The runs of ``runs`` that `needs_a_look` says attention may count."""
        self.terminal_title = ""
        """What the terminal title was last set to."""
        self.styles_palette = Palette()
        self.rehearse = None if read_only else rehearse
        """Rehearses a plan's resume for its exact forecast
        (`wftop.core.forecast.exact.Rehearse`)."""
        self.runs_changed: Signal[ChangeSet] = Signal(self, "runs-changed")
        self.remote = remote
        self.hosts: dict[str, HostState] = remote.states() if remote is not None else {}
        """Every other host read, and whether its runs are live."""
        self._unmounting = threading.Event()
        self._stop_follow: Callable[[], object] | None = None

    # -- start -----------------------------------------------------------------------------

    def on_mount(self) -> None:
        if self.config.theme:
            if self.config.theme in self.available_themes:
                self.theme = self.config.theme
            else:
                self.notify(
                    f"No theme named {self.config.theme!r}; using {self.theme}.",
                    title="Couldn't apply theme",
                    severity="warning",
                )
        self.styles_palette.load(self)
        self.theme_changed_signal.subscribe(self, lambda _theme: self._restyle())
        if self.config.keys:
            self.set_keymap(dict(self.config.keys))
        self.push_screen(RunsScreen())
        self._set_terminal_title("wftop")
        self.load_index()
        if self.banner is not None:
            title, text = self.banner
            self.notify(text, title=title, timeout=BANNER_SECONDS)
        if self.remote is not None:
            self.follow_remote()

    def _restyle(self) -> None:
        self.styles_palette.load(self)
        self.runs_changed.publish(ChangeSet(0, (), tuple(self.runs.values()), ()))

    @work(thread=True, exclusive=True, group="scan", exit_on_error=False, name="cold-start")
    def load_index(self) -> None:
        def progress(count: int, _total: int) -> None:
            self.post_message(IndexProgressed(count))

        if isinstance(self.preview, Future):
            self.post_message(IndexBatch(self.preview.result()))
        elif self.preview:
            self.post_message(IndexBatch(preview_runs(self.index)))
        changes = self.index.cold_start(progress)
        self.post_message(IndexLoaded(changes))

    def on_index_batch(self, message: IndexBatch) -> None:
        self.apply_changes(message.changes, initial=True)

    def on_index_progressed(self, message: IndexProgressed) -> None:
        self.scanned = message.count
        self.runs_changed.publish(ChangeSet(0, (), (), ()))

    def on_index_loaded(self, message: IndexLoaded) -> None:
        self.loaded = True
        known = message.keyed.runs
        stale = tuple(
            ident for ident, run in self.runs.items() if ident not in known and run.host is None
        )
        changes = message.changes
        if stale:
            changes = ChangeSet(changes.seq, changes.added, changes.changed, stale)
        self.apply_changes(changes, initial=True, keyed=message.keyed)
        if self.live:
            self.follow_index()
            self.set_interval(15.0, self.tick, name="age-tick")

    @work(thread=True, exclusive=True, group="watch", exit_on_error=False, name="follow-index")
    def follow_index(self) -> None:
        """Follow the index in this thread, on an event loop of its own: what a change
        costs (reading, folding, classifying) is paid here; the app's loop only applies
        the change sets it posts."""
        asyncio.run(self._follow())

    async def _follow(self) -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        self._stop_follow = partial(loop.call_soon_threadsafe, stop.set)
        if self._unmounting.is_set():
            return
        async for changes in self.index.changes(stop):
            self.post_message(IndexChanged(changes))

    def on_index_changed(self, message: IndexChanged) -> None:
        self.apply_changes(message.changes)

    @work(thread=True, exclusive=True, group="remote", exit_on_error=False, name="follow-hosts")
    def follow_remote(self) -> None:
        """Follow the other hosts in this thread, on an event loop of its own (their
        streams are read and made runs there, never on the app's loop), handing the loop
        the updates that came together."""
        asyncio.run(self._follow_hosts())

    async def _follow_hosts(self) -> None:
        hub = self.remote
        assert hub is not None
        if self._unmounting.is_set():
            return
        async for updates in hub.updates():
            self.post_message(HostsUpdated(updates))

    def on_hosts_updated(self, message: HostsUpdated) -> None:
        for update in message.updates:
            state = update.state
            before = self.hosts.get(state.host)
            self.hosts[state.host] = state
            if state.failure is not None and (before is None or before.failure is None):
                self.notify(
                    state.describe(), title="Host unreachable", severity="warning", markup=False
                )
            elif state.failure is None and before is not None and before.failure is not None:
                self.notify(f"{state.host}: connected again", title="Host back", markup=False)
            self.apply_changes(update.changes)

    def tick(self) -> None:
        """Ages move even when no file does."""
        self.runs_changed.publish(ChangeSet(0, (), (), ()))

    @on(Worker.StateChanged)
    def worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            error = event.worker.error
            self.notify(
                f"{type(error).__name__}: {error}", title="Couldn't read runs", severity="error"
            )

    # -- changes -----------------------------------------------------------------------------

    def apply_changes(
        self, changes: ChangeSet, *, initial: bool = False, keyed: Keyed | None = None
    ) -> None:
        """Take a change set into ``runs``, raise alerts, tell the screens. ``keyed``: the
        change set's runs keyed already (a whole index, keyed in a worker; no alerts)."""
        runs, needy = self.runs, self._needy
        if keyed is not None:
            runs.update(keyed.runs)
            for ident in keyed.runs.keys() - keyed.needy.keys():
                needy.pop(ident, None)
            needy.update(keyed.needy)
        else:
            for run in (*changes.added, *changes.changed):
                ident = run.ident
                before = runs.get(ident)
                runs[ident] = run
                if needs_a_look(run):
                    needy[ident] = run
                else:
                    needy.pop(ident, None)
                if before is not None and not initial:
                    alert = alert_for(before, run)
                    if alert is not None:
                        self.raise_alert(alert)
        for ident in changes.removed:
            runs.pop(ident, None)
            needy.pop(ident, None)
        self.update_title()
        self.runs_changed.publish(changes)

    def raise_alert(self, alert: Alert) -> None:
        self.alerts.append(alert)
        if self.config.notify:
            title = {"dead": "Run died", "stalled": "Run stalled"}.get(alert.after, "Run finished")
            self.notify(alert.message, title=title, severity=alert.severity, timeout=8)
        if self.config.bell and alert.after in ("dead", "stalled", "failed", "killed", PARTIAL):
            self.bell()

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
        runs, labels and paths, whose brackets are text)."""
        lines = shown_each(message.split("\n")) if message else message
        super().notify(lines, title=shown(title), severity=severity, timeout=timeout, markup=False)

    def _on_notify(self, event: Notify) -> None:
        """A toast arrives; over a modal window (the plan, help, copy) only the newest one
        shows, so toasts never pile up over what the window says."""
        if isinstance(self.screen, ModalScreen):
            self._notifications.clear()
        super()._on_notify(event)

    def attention(self) -> int:
        """Runs that need a person: stalled ones, and dead or partial ones (completed with
        failed calls) within the attention window."""
        moment = self.now()
        window = self.config.attention_window
        return sum(
            1
            for run in self._needy.values()
            if run.status is Status.STALLED
            or (run.last_activity is not None and moment - run.last_activity <= window)
        )

    def update_title(self) -> None:
        count = self.attention()
        title = f"wftop · {count} need attention" if count else "wftop"
        self.sub_title = title
        self._set_terminal_title(title)

    def on_unmount(self) -> None:
        self._unmounting.set()
        if self._stop_follow is not None:
            with contextlib.suppress(RuntimeError):  # its loop has already closed
                self._stop_follow()
        self._set_terminal_title("")
        if self.remote is not None:
            self.remote.close()

    def _set_terminal_title(self, title: str) -> None:
        if title == self.terminal_title:
            return
        self.terminal_title = title
        driver = self._driver
        if driver is not None and not self.is_headless:
            driver.write(f"\x1b]2;{shown(title)}\x07")

    # -- actions -----------------------------------------------------------------------------

    def run_screen(self, ident: str) -> RunScreen:
        """The run screen, made once and reused (mounting a screen costs more than a key)."""
        from wftop.tui.screens.run import RunScreen  # not imported before a run is opened

        if not self.is_screen_installed("run"):
            self.install_screen(RunScreen(ident), "run")
        screen = self.get_screen("run", RunScreen)
        screen.show_run(ident)
        return screen

    def on_open_run(self, message: OpenRun) -> None:
        self.push_screen(self.run_screen(message.ident))

    def action_help(self) -> None:
        from wftop.tui.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
        else:
            self.push_screen(HelpScreen(self.screen))

    def action_sessions(self) -> None:
        """``S``: recent sessions, their dead workers and why they stopped."""
        from wftop.tui.screens.sessions import SessionsScreen  # read on first use: forensics

        if isinstance(self.screen, SessionsScreen):
            self.pop_screen()
        else:
            self.push_screen(SessionsScreen(processes=self.index.processes))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        name = getattr(screen, "SCREEN_NAME", "")
        for binding_id, spec in KEYS.items():
            if name not in spec.screens or binding_id in APP_IDS or not spec.palette:
                continue
            action = spec.action
            target = "app" if action.startswith("app.") else "screen"
            yield SystemCommand(
                spec.words[:1].upper() + spec.words[1:],
                f"{binding_id} · {self._key_of(binding_id)}",
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

    def _run_from_palette(self, screen: Screen[object], action: str, target: str) -> None:
        node = self if target == "app" else screen
        self.call_later(self.run_action, action, node)

    def _key_of(self, binding_id: str) -> str:
        keys = self._keymap.get(binding_id) or KEYS[binding_id].keys
        return keys
