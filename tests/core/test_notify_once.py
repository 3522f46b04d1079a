"""Once per event across processes, a cooldown per run, the rules before the channels, a channel
that fails or hangs; and acknowledgements."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from wftop.core.notify.acks import Acks, RunState, needs_you
from wftop.core.notify.channels import ChannelError
from wftop.core.notify.events import Event, Kind
from wftop.core.notify.ledger import MemoryLedger, StateLedger
from wftop.core.notify.notifier import Notifier
from wftop.core.notify.settings import NotifySettings

NOW = 4e9


def event(
    at: float = NOW, kind: Kind = Kind.DIED, mark: str = "dead@1", ident: str = "s/wf_1@/r"
) -> Event:
    return Event(kind, "wf_1", ident, "six (wf_1)", "six (wf_1) died", at, mark, "running", "dead")


def test_one_event_is_told_once_by_whichever_process_claims_it(tmp_path):
    first, second = StateLedger(tmp_path), StateLedger(tmp_path)
    assert first.claim(event(), 300)
    assert not second.claim(event(at=NOW + 1), 300)
    assert not first.claim(event(at=NOW + 1000), 300)
    assert (tmp_path / "notify" / "sent.json").stat().st_mode & 0o777 == 0o600


def _claim(state: str) -> bool:
    return StateLedger(Path(state)).claim(event(), 300)


CLAIM = "import sys; from tests.core.test_notify_once import _claim; print(_claim(sys.argv[1]))"
"""A process that claims the event and says whether it got it (started by itself, not from a
pool: a pool's resource tracker would outlive the test, to the end of the suite)."""


def test_processes_claiming_at_once_tell_it_once(tmp_path):
    top = Path(__file__).parents[2]
    claims = [
        subprocess.Popen(
            [sys.executable, "-c", CLAIM, str(tmp_path)], cwd=top, stdout=subprocess.PIPE, text=True
        )
        for _ in range(12)
    ]
    try:
        said = [claim.communicate(timeout=120)[0].split() for claim in claims]
    finally:
        for claim in claims:
            claim.kill()
            claim.wait()
    assert sorted(said) == [["False"]] * 11 + [["True"]]


def test_a_runs_next_event_of_a_kind_waits_out_the_cooldown():
    ledger = MemoryLedger()
    assert ledger.claim(event(), 300)
    assert not ledger.claim(event(at=NOW + 299, mark="dead@2"), 300)
    assert ledger.claim(event(at=NOW + 299, kind=Kind.RESUME, mark="completed@3"), 300)
    assert ledger.claim(event(at=NOW + 299, mark="dead@2", ident="s/wf_2@/r"), 300)
    assert ledger.claim(event(at=NOW + 300, mark="dead@2"), 300)
    assert not ledger.claim(event(at=NOW + 300, mark="dead@2"), 0)


class Channel:
    def __init__(
        self, name: str, fail: str | None = None, hold: threading.Event | None = None
    ) -> None:
        self.name = name
        self.fail = fail
        self.hold = hold
        self.sent: list[Event] = []

    def send(self, happened: Event) -> None:
        if self.hold is not None:
            self.hold.wait(10)
        if self.fail:
            raise ChannelError(self.fail)
        self.sent.append(happened)


def test_the_rules_that_need_no_disk_are_checked_where_the_event_is_raised():
    bell = Channel("bell")
    notifier = Notifier(NotifySettings(), [bell], MemoryLedger(), report=print)
    assert not notifier.submit(event(kind=Kind.COMPLETED))
    assert not notifier.submit(event(), shown="s/wf_1@/r")
    on = Notifier(NotifySettings(events=frozenset(Kind)), [bell], MemoryLedger(), report=print)
    assert on.wanted(event(kind=Kind.COMPLETED))
    assert not Notifier(NotifySettings(), [], MemoryLedger(), report=print).submit(event())


def test_a_failing_channel_says_so_once_and_the_others_still_deliver(tmp_path):
    said: list[str] = []
    bad, good = Channel("desktop", fail="notify-send exited with 1: no server"), Channel("tmux")
    notifier = Notifier(
        NotifySettings(cooldown=0), [bad, good], MemoryLedger(), report=said.append, log=said.append
    )
    assert notifier.deliver(event()) == ("tmux",)
    assert notifier.deliver(event(mark="dead@2")) == ("tmux",)
    assert said == ["notifications: desktop failed: notify-send exited with 1: no server"] * 2
    assert len(good.sent) == 2


def test_a_channel_that_hangs_never_blocks_the_caller():
    hold = threading.Event()
    slow = Channel("command", hold=hold)
    notifier = Notifier(NotifySettings(cooldown=0), [slow], MemoryLedger(), report=print)
    for mark in ("dead@1", "dead@2", "dead@3"):
        assert notifier.submit(event(mark=mark))
    assert slow.sent == []
    hold.set()
    notifier.close(timeout=5)
    assert [happened.mark for happened in slow.sent] == ["dead@1", "dead@2", "dead@3"]


def test_an_unwritable_state_dir_still_tells_and_says_why_once(tmp_path):
    (tmp_path / "notify").write_text("not a dir")
    said: list[str] = []
    bell = Channel("bell")
    notifier = Notifier(NotifySettings(), [bell], StateLedger(tmp_path), report=said.append)
    assert notifier.deliver(event()) == ("bell",)
    assert len(said) == 1 and said[0].startswith("notifications: ledger failed: cannot record")


def test_a_seen_run_needs_you_again_once_it_changes(tmp_path):
    dead = RunState("s/wf_1@/r", "wf_1", "dead", NOW - 60)
    book = Acks(tmp_path).load()
    assert not book.seen(dead)
    assert book.ack([dead], NOW) == 1
    again = Acks(tmp_path).load()
    assert again.seen(dead)
    assert again.seen(dead._replace(last_activity=NOW - 60.001))  # as a row holds it
    assert not again.seen(dead._replace(last_activity=NOW - 5))
    assert not again.seen(dead._replace(shown="partial"))
    assert again.ack([dead], NOW + 1) == 0
    assert (tmp_path / "acks.json").stat().st_mode & 0o777 == 0o600


def test_read_only_acknowledgements_last_the_session_and_write_nothing(tmp_path):
    book = Acks(None).load()
    dead = RunState("s/wf_1@/r", "wf_1", "dead", NOW)
    assert book.ack([dead], NOW) == 1
    assert book.seen(dead)
    assert list(tmp_path.iterdir()) == []


def test_dead_failed_and_partial_need_you_within_the_window_stalled_always():
    day = 86400.0
    assert needs_you("dead", NOW - day + 1, NOW, day)
    assert not needs_you("dead", NOW - day - 1, NOW, day)
    assert not needs_you("partial", NOW - 3 * day, NOW, day)
    assert needs_you("failed", None, NOW, day)
    assert needs_you("stalled", NOW - 30 * day, NOW, day)
    assert not needs_you("running", NOW, NOW, day)
    assert not needs_you("completed", NOW, NOW, day)
