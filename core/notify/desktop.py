"""The desktop's own notification, behind a seam: `Shower`.

Where the ``desktop-notifier`` library is installed (the optional extra ``wftop[desktop]``:
D-Bus on Linux and the BSDs, the Notification Center on macOS) it shows the notification;
the platform's own command comes next (``notify-send`` from libnotify, ``osascript`` on
macOS), and is what a machine without the extra uses. A shower that cannot show one (no
session bus, no permission) raises `ChannelError`, and the next is tried; the library is
imported the first time it is asked to show one, never while a view starts.

The library logs what went wrong instead of raising: while it sends, its log is caught
(never printed over a TUI) and its first line is the channel's reason.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol

from wftop.core.notify import payload
from wftop.core.notify.channels import ChannelError, Runner, desktop_argv, run_checked
from wftop.core.notify.events import Event

LIBRARY: Final = "desktop_notifier"
"""The import name of the optional ``desktop-notifier``."""


class Shower(Protocol):
    name: str

    def show(self, title: str, text: str) -> None:
        """Show one notification; `ChannelError` says why it could not."""


class CommandShower:
    """The platform's own command (`wftop.core.notify.channels.desktop_argv`)."""

    def __init__(self, argv: Callable[[str, str], list[str]], run: Runner) -> None:
        self.argv = argv
        self.run = run
        self.name = argv("", "")[0]

    def show(self, title: str, text: str) -> None:
        run_checked(self.argv(title, text), None, self.run)


class _Caught(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            text = f"{text}: {record.exc_info[1]}" if text else str(record.exc_info[1])
        self.lines.append(text)


class LibraryShower:
    """``desktop-notifier``'s synchronous API, loaded by ``load`` on first use."""

    name = "desktop-notifier"

    def __init__(self, load: Callable[[], Any], platform: str) -> None:
        self.load = load
        self.markup = platform not in ("darwin", "win32")
        self._notifier: Any = None

    def show(self, title: str, text: str) -> None:
        body = payload.clean(text)
        caught = _Caught()
        log = logging.getLogger(LIBRARY)
        propagate, log.propagate = log.propagate, False
        log.addHandler(caught)
        try:
            if self._notifier is None:
                self._notifier = self.load().DesktopNotifierSync(app_name="wftop")
            message = payload.markup_text(body) if self.markup else body
            self._notifier.send(title=payload.clean(title), message=message)
        except Exception as error:  # noqa: BLE001 - a library's failure is the channel's
            caught.lines.append(str(error) or type(error).__name__)
        finally:
            log.removeHandler(caught)
            log.propagate = propagate
        if caught.lines:
            raise ChannelError(f"desktop-notifier: {payload.clean(caught.lines[0], 160)}")


def library_installed() -> bool:
    return importlib.util.find_spec(LIBRARY) is not None


def load_library() -> Any:
    return importlib.import_module(LIBRARY)


def desktop_showers(
    platform: str,
    which: Callable[[str], str | None],
    run: Runner,
    *,
    installed: Callable[[], bool] = library_installed,
    load: Callable[[], Any] = load_library,
) -> list[Shower]:
    """The showers of this machine, in the order they are tried (none: no desktop channel)."""
    showers: list[Shower] = []
    if installed():
        showers.append(LibraryShower(load, platform))
    argv = desktop_argv(platform, which)
    if argv is not None:
        showers.append(CommandShower(argv, run))
    return showers


class Desktop:
    """The desktop channel: the first shower that shows it; when none can, every reason."""

    def __init__(self, showers: Sequence[Shower]) -> None:
        self.name = "desktop"
        self.showers = tuple(showers)

    def send(self, event: Event) -> None:
        reasons: list[str] = []
        for shower in self.showers:
            try:
                shower.show(event.title, event.text)
            except ChannelError as error:
                reasons.append(str(error))
                continue
            return
        raise ChannelError("; ".join(reasons) or "no desktop notifier")
