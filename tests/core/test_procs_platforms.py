"""Platform seams around the process table, each fallback exercised by patching its question.

`wftop.core.system.platforms` answers what this platform can do; here every answer is forced, so the
macOS and unknown-platform paths run on Linux too. Process tables are plain data.
"""

from __future__ import annotations

import os
import pathlib
from types import SimpleNamespace

import pytest

import wftop.core.read.sessions
import wftop.core.system.procs
from wftop.core.read.sessions import (
    Liveness,
    RegistryEntry,
    judge_owner,
    local_pid_domain,
    read_registry,
)
from wftop.core.system.procs import FakeProcess, FakeProcessTable, PsutilTable, Seen

HERE = "linux:here:pid:[4026531836]"


def entry(domain=None, start="777", started_at=None):  # type: ignore[no-untyped-def]
    return RegistryEntry(
        "/r/sessions/4242.json", 4242, "s", start, None, domain, "2.1.332", started_at
    )


LIVE = FakeProcessTable({4242: FakeProcess("777", created=1_000.0)})


def test_the_registry_file_gives_started_at_in_milliseconds(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "sessions").mkdir()
    (tmp_path / "sessions" / "4242.json").write_text(
        '{"pid": 4242, "sessionId": "s", "procStart": "Thu Sep 10 08:31:58 2026",'
        ' "startedAt": 1789029119710, "pidDomain": "darwin"}'
    )
    (found,) = read_registry(str(tmp_path))
    assert (found.started_at, found.pid_domain) == (1789029119710.0, "darwin")


def test_on_macos_the_domain_is_the_word_darwin(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(wftop.core.read.sessions, "pid_domain_kind", lambda: "darwin")
    assert local_pid_domain() == "darwin"
    mac = FakeProcessTable({4242: FakeProcess("", created=1_000.0)}, proc_starts=False)
    here = entry("darwin", "Thu Sep 10 08:31:58 2026", started_at=1_001_000)
    assert judge_owner(here, mac, local_pid_domain()).liveness is Liveness.ALIVE
    linux = entry("linux:other:pid:[1]", started_at=1_001_000)
    assert judge_owner(linux, mac, local_pid_domain()).liveness is Liveness.UNKNOWN


def test_where_the_domain_cannot_be_named_an_entry_naming_one_is_unknown(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(wftop.core.read.sessions, "pid_domain_kind", lambda: None)
    assert local_pid_domain() is None
    owner = judge_owner(entry("windows:box"), LIVE, local_pid_domain())
    assert owner.liveness is Liveness.UNKNOWN
    assert owner.why.startswith("it was registered on an unnamed pid domain (windows:box)")
    assert judge_owner(entry(None), LIVE, local_pid_domain()).liveness is Liveness.ALIVE


def test_on_linux_an_unreadable_part_of_the_domain_is_left_empty(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """As Claude Code writes it, so that a container without a machine id still matches."""

    def unreadable(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr(wftop.core.read.sessions, "pid_domain_kind", lambda: "linux")
    monkeypatch.setattr(pathlib.Path, "read_text", unreadable)
    monkeypatch.setattr(os, "readlink", lambda path: "pid:[4026531836]")
    assert local_pid_domain() == "linux::pid:[4026531836]"
    monkeypatch.setattr(os, "readlink", unreadable)
    assert local_pid_domain() == "linux::"


def test_the_same_domain_compares_starts_and_another_is_unknown() -> None:
    assert judge_owner(entry(HERE), LIVE, HERE).liveness is Liveness.ALIVE
    assert judge_owner(entry(HERE, "778"), LIVE, HERE).liveness is Liveness.DEAD
    assert judge_owner(entry("linux:there:pid:[1]"), LIVE, HERE).liveness is Liveness.UNKNOWN
    assert judge_owner(entry(HERE), FakeProcessTable(), HERE).liveness is Liveness.DEAD


def test_the_creation_time_may_follow_started_at_by_the_slack_only() -> None:
    slack = wftop.core.read.sessions.START_SLACK
    table = FakeProcessTable({4242: FakeProcess("", created=1_000.0)}, proc_starts=False)
    just_within = entry(start=None, started_at=(1_000.0 - slack + 0.1) * 1000)
    assert judge_owner(just_within, table, None).liveness is Liveness.ALIVE
    past = entry(start=None, started_at=(1_000.0 - slack - 0.1) * 1000)
    assert judge_owner(past, table, None).liveness is Liveness.DEAD


def test_without_a_kill_probe_a_pid_psutil_cannot_find_is_gone(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Windows: ``os.kill`` would end the process, so the table never calls it."""
    import psutil

    def only_me(pid):  # type: ignore[no-untyped-def]
        if pid != os.getpid():
            raise psutil.NoSuchProcess(pid)
        return SimpleNamespace(pid=pid, create_time=lambda: 1.0)

    def never(pid, signal):  # type: ignore[no-untyped-def]
        raise AssertionError("probed")

    module = SimpleNamespace(
        Error=psutil.Error,
        NoSuchProcess=psutil.NoSuchProcess,
        AccessDenied=psutil.AccessDenied,
        Process=only_me,
        boot_time=lambda: 0.0,
    )
    monkeypatch.setattr(wftop.core.system.procs, "can_probe_pids", lambda: False)
    monkeypatch.setattr(wftop.core.system.procs.os, "kill", never)
    assert PsutilTable(module).sighting(4242).seen is Seen.GONE


@pytest.mark.parametrize("pid", [0, -5])
def test_a_pid_no_process_can_have_is_gone(pid) -> None:  # type: ignore[no-untyped-def]
    assert PsutilTable(object()).sighting(pid).seen is Seen.GONE
