"""Each channel's exact bytes or argv, with an injected writer and runner; which channels the
environment asks for, tmux answering through the same runner."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence

import pytest

from wftop.core.notify import payload
from wftop.core.notify.channels import (
    ChannelError,
    Command,
    Ran,
    Terminal,
    Tmux,
    desktop_argv,
)
from wftop.core.notify.desktop import CommandShower, Desktop
from wftop.core.notify.detect import Terminal as Term
from wftop.core.notify.detect import choose, osc_for, terminal_of
from wftop.core.notify.events import Event, Kind
from wftop.core.notify.settings import NotifySettings
from wftop.core.notify.setup import make_notifier

HOSTILE = "six\x1b]52;c;cHduZWQ=\x07 \x9c#(touch /tmp/x)#[fg=red];"
"""A run name with an OSC 52, a BEL, a C1 ST, a tmux shell command and style, a final ``;``."""


def event(label: str = "mock-six (wf_1)", kind: Kind = Kind.DIED) -> Event:
    return Event(
        kind=kind,
        run_id="wf_1",
        ident="s/wf_1@/r",
        label=label,
        text=f"{label} died with 1 worker in flight",
        at=4e9,
        mark="dead@x",
        before="running",
        after="dead",
    )


class Recorder:
    """A runner that records every argv and stdin and answers from a table."""

    def __init__(self, answers: dict[str, Ran] | None = None) -> None:
        self.calls: list[tuple[list[str], bytes | None]] = []
        self.answers = answers or {}

    def __call__(self, argv: Sequence[str], stdin: bytes | None, timeout: float) -> Ran:
        self.calls.append((list(argv), stdin))
        return self.answers.get(" ".join(argv[:2]), Ran(0))


def test_terminal_channels_write_these_exact_bytes():
    written: list[bytes] = []
    happened = event()
    for name in ("bell", "osc9", "osc99", "osc777"):
        Terminal(name, written.append).send(happened)
    text = "mock-six (wf_1) died with 1 worker in flight"
    kitty = "wftop-" + __import__("hashlib").sha256(happened.key.encode()).hexdigest()[:12]
    assert written == [
        b"\x07",
        f"\x1b]9;Run died: {text}\x07".encode(),
        f"\x1b]99;i={kitty}:d=0:p=title;Run died\x1b\\".encode()
        + f"\x1b]99;i={kitty}:d=1:p=body;{text}\x1b\\".encode(),
        f"\x1b]777;notify;Run died;{text}\x07".encode(),
    ]


def test_inside_tmux_an_osc_is_wrapped_for_passthrough_with_every_esc_doubled():
    written: list[bytes] = []
    Terminal("osc9", written.append, wrap=True).send(event())
    assert written == [
        b"\x1bPtmux;\x1b\x1b]9;Run died: mock-six (wf_1) died with 1 worker in flight\x07\x1b\\"
    ]
    assert (
        payload.tmux_passthrough(b"\x1b]99;a\x1b\\") == b"\x1bPtmux;\x1b\x1b]99;a\x1b\x1b\\\x1b\\"
    )


def test_no_bel_esc_or_st_of_a_hostile_name_reaches_an_osc_body():
    for name in ("osc9", "osc99", "osc777"):
        written: list[bytes] = []
        Terminal(name, written.append).send(event(HOSTILE))
        (data,) = written
        ends = {"osc9": b"\x07", "osc777": b"\x07", "osc99": b"\x1b\\"}[name]
        bodies = data.split(ends)
        assert bodies[-1] == b""
        for body in bodies[:-1]:
            assert body.count(b"\x1b") == 1 and body.startswith(b"\x1b]")
            assert b"\x07" not in body and b"\xc2\x9c" not in body
        assert "␛]52;c;cHduZWQ=␇".encode() in data


def test_osc777_shows_a_semicolon_in_the_title_as_a_comma():
    assert payload.osc777("a;b", "c;d") == b"\x1b]777;notify;a,b;c;d\x07"


def test_tmux_sets_the_text_as_an_option_and_shows_only_the_option_on_every_client():
    run = Recorder({"tmux list-clients": Ran(0, b"/dev/pts/3\n/dev/pts/7\n")})
    Tmux(run, option="@wftop_notice_9").send(event(HOSTILE))
    (listing, _), (argv, stdin) = run.calls
    assert listing == ["tmux", "list-clients", "-F", "#{client_name}"]
    value = (
        "Run died: six␛]52;c;cHduZWQ=␇ \\x9c##(touch /tmp/x)##[fg=red];"
        " died with 1 worker in flight"
    )
    assert argv == [
        "tmux", "set-option", "-g", "@wftop_notice_9", value,
        ";", "display-message", "-d", "8000", "-c", "/dev/pts/3", "#{@wftop_notice_9}",
        ";", "display-message", "-d", "8000", "-c", "/dev/pts/7", "#{@wftop_notice_9}",
        ";", "set-option", "-gu", "@wftop_notice_9",
    ]  # fmt: skip
    assert stdin is None


def test_a_text_ending_in_a_semicolon_does_not_end_the_tmux_command():
    assert payload.tmux_text("a #b;") == "a ##b\\;"


def test_desktop_runs_the_platforms_own_command_with_the_text_as_arguments():
    run = Recorder()
    found = {"notify-send": "/usr/bin/notify-send", "osascript": "/usr/bin/osascript"}
    linux = desktop_argv("linux", found.get)
    assert linux is not None
    Desktop([CommandShower(linux, run)]).send(event("<b>six</b> & co"))
    mac = desktop_argv("darwin", found.get)
    assert mac is not None
    Desktop([CommandShower(mac, run)]).send(event('six" & do shell script "x'))
    (linux_argv, _), (mac_argv, _) = run.calls
    assert linux_argv == [
        "notify-send", "--app-name=wftop", "--", "Run died",
        "&lt;b&gt;six&lt;/b&gt; &amp; co died with 1 worker in flight",
    ]  # fmt: skip
    assert mac_argv[:7] == [
        "osascript", "-e", "on run argv",
        "-e", "display notification (item 2 of argv) with title (item 1 of argv)",
        "-e", "end run",
    ]  # fmt: skip
    assert mac_argv[7:] == ["Run died", 'six" & do shell script "x died with 1 worker in flight']


def test_without_a_desktop_notifier_there_is_no_desktop_channel():
    assert desktop_argv("linux", lambda name: None) is None
    assert desktop_argv("darwin", lambda name: None) is None
    assert desktop_argv("sunos5", lambda name: None) is None
    made = make_notifier(
        NotifySettings(channels=("desktop",)),
        env={},
        write=None,
        state=None,
        report=print,
        which=lambda name: None,
        platform="linux",
        library=lambda: False,
    )
    assert made.notifier.names == ()
    assert made.notes == (
        "desktop: no desktop notifier on this machine"
        " (install notify-send (libnotify), or wftop[desktop])",
    )


def test_a_command_gets_the_event_as_json_on_stdin_and_its_argv_as_given():
    run = Recorder()
    Command(["ntfy", "publish", "t; rm -rf ~"], run).send(
        event(HOSTILE + " sk-ant-api03-" + "x" * 40)
    )
    ((argv, stdin),) = run.calls
    assert argv == ["ntfy", "publish", "t; rm -rf ~"]
    assert stdin is not None and stdin.endswith(b"\n")
    data = json.loads(stdin)
    assert data["event"] == "died" and data["run_id"] == "wf_1" and data["severity"] == "error"
    assert "x" * 40 not in data["name"]
    assert b"\\u009c" in stdin and b"\xc2\x9c" not in stdin


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (
            OSError(2, "No such file or directory"),
            "cannot run notify-send (No such file or directory)",
        ),
        (subprocess.TimeoutExpired(["x"], 10), "notify-send took more than 10 s (killed)"),
        (
            Ran(1, b"", b"GDBus.Error: no server\n"),
            "notify-send exited with 1: GDBus.Error: no server",
        ),
    ],
)
def test_a_channel_that_fails_says_why_in_one_line(answer, why):
    def run(argv, stdin, timeout):
        if isinstance(answer, BaseException):
            raise answer
        return answer

    with pytest.raises(ChannelError) as failed:
        Desktop([CommandShower(payload.notify_send, run)]).send(event())
    assert str(failed.value) == why


@pytest.mark.parametrize(
    ("terminal", "osc"),
    [
        (Term(program="iTerm.app"), "osc9"),
        (Term(program="WezTerm"), "osc9"),
        (Term(kitty=True, term="xterm-256color"), "osc99"),
        (Term(term="xterm-kitty"), "osc99"),
        (Term(program="ghostty"), "osc777"),
        (Term(term="foot-extra"), "osc777"),
        (Term(term="rxvt-unicode-256color"), "osc777"),
        (Term(program="tmux", termtype="iTerm2 3.5.0"), "osc9"),
        (Term(program="tmux", termtype="kitty(0.35.2)"), "osc99"),
        (Term(program="Apple_Terminal", term="xterm-256color"), None),
    ],
)
def test_the_terminal_names_its_osc(terminal, osc):
    assert osc_for(terminal) == osc


def test_inside_tmux_the_clients_terminal_is_asked_of_tmux():
    run = Recorder(
        {
            "tmux show-environment": Ran(
                0, b"-DISPLAY\nTERM_PROGRAM=iTerm.app\nTERM=xterm-256color\n"
            ),
            "tmux display-message": Ran(0, b"iTerm2 3.5.0\t1\n"),
        }
    )
    env = {"TMUX": "/tmp/tmux-1/default,1,0", "TMUX_PANE": "%3", "TERM_PROGRAM": "tmux"}
    terminal = terminal_of(env, run)
    assert terminal == Term(
        program="iTerm.app",
        term="xterm-256color",
        termtype="iTerm2 3.5.0",
        tmux=True,
        passthrough=True,
    )
    assert [argv for argv, _ in run.calls] == [
        ["tmux", "show-environment", "-g"],
        ["tmux", "display-message", "-p", "-t", "%3", "#{client_termtype}\t#{allow-passthrough}"],
    ]
    chosen = choose(terminal, env=env, platform="linux", has_desktop=True, command=False, tty=True)
    assert chosen == ("bell", "osc9", "tmux")


def test_without_passthrough_no_osc_is_chosen_inside_tmux():
    terminal = Term(program="iTerm.app", tmux=True, passthrough=False)
    env = {"TMUX": "x", "DISPLAY": ":0"}
    chosen = choose(terminal, env=env, platform="linux", has_desktop=True, command=True, tty=True)
    assert chosen == ("bell", "tmux", "desktop", "command")


def test_over_ssh_or_without_a_terminal_the_choice_follows():
    plain = Term(term="xterm-256color")
    ssh = {"SSH_CONNECTION": "1 2 3 4", "DBUS_SESSION_BUS_ADDRESS": "unix:x"}
    assert choose(plain, env=ssh, platform="linux", has_desktop=True, command=False, tty=True) == (
        "bell",
    )
    desk = {"DBUS_SESSION_BUS_ADDRESS": "unix:x"}
    assert choose(
        plain, env=desk, platform="linux", has_desktop=True, command=False, tty=False
    ) == ("desktop",)
    assert choose(
        plain, env={}, platform="darwin", has_desktop=True, command=False, tty=True, bell=False
    ) == ("desktop",)


def test_wftop_notify_wins_and_an_osc_named_inside_tmux_is_wrapped():
    run = Recorder({"tmux show-environment": Ran(0, b""), "tmux display-message": Ran(0, b"\t0\n")})
    written: list[bytes] = []
    made = make_notifier(
        NotifySettings(channels=("bell",)),
        env={"WFTOP_NOTIFY": "osc777, tmux", "TMUX": "x"},
        write=written.append,
        state=None,
        report=print,
        run=run,
    )
    assert made.notifier.names == ("osc777", "tmux")
    assert made.notes == (
        "osc777: tmux does not pass it on to the terminal (set -g allow-passthrough on)",
    )
    made.notifier.channels[0].send(event())
    assert written[0].startswith(b"\x1bPtmux;\x1b\x1b]777;notify;")
