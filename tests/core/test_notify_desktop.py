"""The desktop channel behind its seam: ``desktop-notifier`` where the extra is installed
(a stand-in module here, recording what it is asked), the platform's command otherwise or
when the library cannot show one; the library is loaded only when a notification is shown,
and what it logs never reaches the terminal."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import pytest

from wftop.core.notify.channels import ChannelError, Ran
from wftop.core.notify.desktop import Desktop, desktop_showers
from wftop.core.notify.events import Event, Kind
from wftop.core.notify.settings import NotifySettings
from wftop.core.notify.setup import make_notifier

FOUND = {"notify-send": "/usr/bin/notify-send", "osascript": "/usr/bin/osascript"}


def event(label: str = "<b>six</b> & co (wf_1)") -> Event:
    return Event(
        kind=Kind.DIED,
        run_id="wf_1",
        ident="s/wf_1@/r",
        label=label,
        text=f"{label} died\x1b]52;c;eA==\x07",
        at=4e9,
        mark="dead@x",
    )


class Runs:
    def __init__(self) -> None:
        self.argvs: list[list[str]] = []

    def __call__(self, argv: Sequence[str], stdin: bytes | None, timeout: float) -> Ran:
        self.argvs.append(list(argv))
        return Ran(0)


class Library:
    """Stands in for the ``desktop_notifier`` module: records each notifier made and sent."""

    def __init__(self, fail: str | None = None) -> None:
        self.loads = 0
        self.made: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []
        self.fail = fail

    def load(self) -> Any:
        self.loads += 1
        library = self

        class DesktopNotifierSync:
            def __init__(self, **options: Any) -> None:
                library.made.append(options)

            def send(self, **fields: Any) -> str:
                library.sent.append(fields)
                if library.fail is not None:
                    # as the library does: it logs, and returns an id all the same
                    logging.getLogger("desktop_notifier.main").warning(
                        "Notification failed", exc_info=ValueError(library.fail)
                    )
                return "id-1"

        return SimpleNamespace(DesktopNotifierSync=DesktopNotifierSync)


def test_without_the_extra_the_platforms_own_command_shows_it():
    runs = Runs()
    showers = desktop_showers("linux", FOUND.get, runs, installed=lambda: False)
    assert [shower.name for shower in showers] == ["notify-send"]
    Desktop(showers).send(event())
    ((program, *_),) = runs.argvs
    assert program == "notify-send"
    assert runs.argvs[0][-1] == "&lt;b&gt;six&lt;/b&gt; &amp; co (wf_1) died␛]52;c;eA==␇"


@pytest.mark.parametrize(
    ("platform", "message"),
    [
        ("linux", "&lt;b&gt;six&lt;/b&gt; &amp; co (wf_1) died␛]52;c;eA==␇"),
        ("darwin", "<b>six</b> & co (wf_1) died␛]52;c;eA==␇"),
    ],
)
def test_with_the_extra_the_library_shows_it_and_is_loaded_only_then(platform, message):
    library, runs = Library(), Runs()
    showers = desktop_showers(platform, FOUND.get, runs, installed=lambda: True, load=library.load)
    assert [shower.name for shower in showers][0] == "desktop-notifier"
    assert library.loads == 0
    desktop = Desktop(showers)
    desktop.send(event())
    desktop.send(event())
    assert library.loads == 1
    assert library.made == [{"app_name": "wftop"}]
    assert library.sent[0] == {"title": "Run died", "message": message}
    assert runs.argvs == []


def test_when_the_library_cannot_show_one_the_command_does_and_its_log_stays_quiet(capsys):
    library, runs = Library(fail="DBUS_SESSION_BUS_ADDRESS not set"), Runs()
    showers = desktop_showers("linux", FOUND.get, runs, installed=lambda: True, load=library.load)
    Desktop(showers).send(event())
    assert len(library.sent) == 1
    assert [argv[0] for argv in runs.argvs] == ["notify-send"]
    alone = desktop_showers(
        "linux", lambda name: None, runs, installed=lambda: True, load=library.load
    )
    with pytest.raises(ChannelError) as caught:
        Desktop(alone).send(event())
    assert str(caught.value) == (
        "desktop-notifier: Notification failed: DBUS_SESSION_BUS_ADDRESS not set"
    )
    assert capsys.readouterr() == ("", "")


def test_a_library_that_will_not_load_is_a_reason_and_the_command_still_shows_it():
    def missing() -> Any:
        raise ImportError("No module named 'dbus_fast'")

    runs = Runs()
    showers = desktop_showers("linux", FOUND.get, runs, installed=lambda: True, load=missing)
    Desktop(showers).send(event())
    assert [argv[0] for argv in runs.argvs] == ["notify-send"]
    with pytest.raises(ChannelError, match="desktop-notifier: No module named 'dbus_fast'"):
        Desktop(showers[:1]).send(event())


def test_the_extra_alone_makes_a_desktop_channel_on_a_desktop():
    made = make_notifier(
        NotifySettings(),
        env={"DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus"},
        write=None,
        state=None,
        report=print,
        which=lambda name: None,
        platform="linux",
        library=lambda: True,
    )
    assert made.notifier.names == ("desktop",)
