"""Resume log, request state after a restart, private modes, and the per-run lock."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path

import pytest

from wftop.core.resume.errors import (
    IllegalTransition,
    InvalidIdentifier,
    ResumeBusy,
    ResumeError,
    ResumeInProgress,
)
from wftop.core.resume.machine import ResumeEvent, ResumeState
from wftop.core.resume.records import TransitionDetails
from wftop.core.resume.store import STATE_DIR_ENV, ResumeStore, state_dir

E, S = ResumeEvent, ResumeState
RUN = "wf_6838482f-c9a"
FIXED = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
TOP = Path(__file__).parent.parent.parent


@pytest.fixture
def store(tmp_path: Path) -> ResumeStore:
    return ResumeStore(tmp_path / "state", clock=lambda: FIXED, holder="test-holder")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def lines(path: Path) -> list[dict]:
    return [json.loads(raw) for raw in path.read_bytes().splitlines() if raw.strip()]


def confirmed(store: ResumeStore, run: str = RUN) -> str:
    request = store.begin_request(run, reason="user pressed r", strategy="resume-owner").request
    store.record(run, request, E.BEGIN_PREFLIGHT, reason="checking")
    store.record(run, request, E.USER_CONFIRMED, reason="enter")
    return request


def test_state_dir_comes_from_the_environment_or_platformdirs(monkeypatch, tmp_path):
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "x"))
    assert state_dir() == tmp_path / "x"
    assert ResumeStore().root == tmp_path / "x"
    monkeypatch.delenv(STATE_DIR_ENV)
    import platformdirs

    assert state_dir() == Path(platformdirs.user_state_dir("wftop"))


def test_every_transition_is_appended_with_its_fields(store):
    request = confirmed(store)
    store.record(
        RUN,
        request,
        E.LAUNCH,
        reason="resume-owner launch",
        details=TransitionDetails(
            argv=("claude", "-p"),
            cwd="/proj",
            strategy="resume-owner",
            session_id="90d71506-c5e0-41d4-aa81-561580cc57e4",
            log_path="/l",
            status_path="/s",
        ),
    )
    store.record(
        RUN, request, E.SPAWNED, reason="up", details=TransitionDetails(pid=4242, proc_start="777")
    )
    store.record(RUN, request, E.STARTED, reason="task_started seen")
    store.record(RUN, request, E.EXITED_OK, reason="done", details=TransitionDetails(exit_code=0))
    records = lines(store.log_path(RUN))
    assert [(r["from"], r["to"], r["event"]) for r in records] == [
        (None, "planned", None),
        ("planned", "preflight", "begin_preflight"),
        ("preflight", "confirmed", "user_confirmed"),
        ("confirmed", "launching", "launch"),
        ("launching", "launching", "spawned"),
        ("launching", "running", "started"),
        ("running", "completed", "exited_ok"),
    ]
    assert {r["request"] for r in records} == {request}
    assert [r["attempt"] for r in records] == [0, 0, 0, 1, 1, 1, 1]
    assert all(r["time"] == "2026-01-02T03:04:05.678Z" for r in records)
    assert records[0]["reason"] == "user pressed r" and records[0]["strategy"] == "resume-owner"
    assert records[3]["argv"] == ["claude", "-p"] and records[3]["cwd"] == "/proj"
    assert records[4]["pid"] == 4242 and records[4]["proc_start"] == "777"
    assert records[6]["exit_code"] == 0
    assert "pid" not in records[1]  # unknown facts are left out, not written as null


def test_a_restarted_store_finds_the_launched_process(store, tmp_path):
    request = confirmed(store)
    store.record(
        RUN,
        request,
        E.LAUNCH,
        reason="go",
        details=TransitionDetails(status_path="/st", log_path="/lg"),
    )
    store.record(
        RUN, request, E.SPAWNED, reason="up", details=TransitionDetails(pid=99, proc_start="12")
    )
    later = ResumeStore(tmp_path / "state")
    status = later.latest(RUN)
    assert status is not None
    assert (status.request, status.state, status.attempts) == (request, S.LAUNCHING, 1)
    assert status.active
    assert (status.fact("pid"), status.fact("proc_start"), status.fact("status_path")) == (
        99,
        "12",
        "/st",
    )


def test_facts_belong_to_the_current_attempt(store):
    request = confirmed(store)
    store.record(RUN, request, E.LAUNCH, reason="1")
    store.record(RUN, request, E.SPAWNED, reason="up", details=TransitionDetails(pid=1))
    store.record(RUN, request, E.LAUNCH_ERROR, reason="no conversation")
    store.record(RUN, request, E.FALL_BACK, reason="relocate")
    status = store.record(RUN, request, E.RELOCATE, reason="copy")
    assert status.fact("pid") == 1  # still attempt 1
    status = store.record(RUN, request, E.RELOCATED, reason="copied")
    assert status.attempts == 2
    assert status.fact("pid") is None  # attempt 2 has not spawned yet
    status = store.record(RUN, request, E.SPAWNED, reason="up", details=TransitionDetails(pid=2))
    assert status.fact("pid") == 2


def test_a_torn_last_line_is_tolerated_and_not_glued_to_the_next(store):
    request = confirmed(store)
    log = store.log_path(RUN)
    with open(log, "ab") as handle:
        handle.write(b'{"time":"2026-01-02T03:04:05Z","request":"' + request.encode() + b'","att')
    status = store.latest(RUN)
    assert status is not None and status.state is S.CONFIRMED
    store.record(RUN, request, E.LAUNCH, reason="go")
    transitions, problems = store.history(RUN)
    assert [t.to_state for t in transitions][-1] is S.LAUNCHING
    assert len(problems) == 1 and problems[0].reason == "not valid JSON"
    assert log.read_bytes().endswith(b'"reason":"go"}\n')


def test_lines_that_are_not_transitions_are_reported_and_skipped(store):
    request = confirmed(store)
    with open(store.log_path(RUN), "ab") as handle:
        handle.write(
            b'{"time":"t","request":"r","attempt":0,"from":null,"to":"bogus",'
            b'"event":null,"reason":""}\n[1]\n'
        )
    transitions, problems = store.history(RUN)
    assert len(transitions) == 3
    assert len(problems) == 2
    assert store.latest(RUN).request == request


def test_the_latest_request_is_the_one_named_last(store):
    first = confirmed(store)
    store.record(RUN, first, E.STOPPED_BY_USER, reason="changed my mind")
    second = store.begin_request(RUN, reason="again").request
    assert second != first
    latest = store.latest(RUN)
    assert (latest.request, latest.state) == (second, S.PLANNED)
    assert store.status(RUN, first).state is S.STOPPED
    assert store.status(RUN, "nope") is None
    assert store.latest("wf_abcdef-000") is None


def test_a_request_never_launches_twice(store):
    request = confirmed(store)
    store.record(RUN, request, E.LAUNCH, reason="first r")
    size = store.log_path(RUN).stat().st_size
    with pytest.raises(IllegalTransition):
        store.record(RUN, request, E.LAUNCH, reason="second r")
    assert store.log_path(RUN).stat().st_size == size  # nothing appended


@pytest.mark.parametrize("active_event", [None, E.STARTED])
def test_a_new_request_reattaches_while_one_is_launching_or_running(store, active_event):
    request = confirmed(store)
    store.record(RUN, request, E.LAUNCH, reason="go")
    store.record(RUN, request, E.SPAWNED, reason="up", details=TransitionDetails(pid=4321))
    if active_event is not None:
        store.record(RUN, request, active_event, reason="running")
    with pytest.raises(ResumeInProgress, match="pid 4321") as caught:
        store.begin_request(RUN, reason="r pressed again")
    assert caught.value.status.request == request
    assert caught.value.status.active


def test_a_planned_request_cannot_launch_while_another_is_active(store):
    first = confirmed(store)
    second = store.begin_request(RUN, reason="second window").request
    store.record(RUN, second, E.BEGIN_PREFLIGHT, reason="x")
    store.record(RUN, second, E.USER_CONFIRMED, reason="x")
    store.record(RUN, first, E.LAUNCH, reason="first wins")
    with pytest.raises(ResumeInProgress):
        store.record(RUN, second, E.LAUNCH, reason="second loses")
    with pytest.raises(ResumeInProgress):
        store.record(RUN, second, E.RELOCATE, reason="nor via a relocation")
    assert store.status(RUN, second).state is S.CONFIRMED


def test_unknown_requests_and_bad_run_ids_are_refused(store):
    with pytest.raises(ResumeError, match="no resume request"):
        store.record(RUN, "20260101T000000Z-00000000", E.LAUNCH, reason="x")
    for bad in ("wf_../../etc", "../wf_abcdef", "wf_ABCDEF", "wf_abc", "wf_abcdef\n"):
        with pytest.raises(InvalidIdentifier):
            store.log_path(bad)
    with pytest.raises(ResumeError):
        store.launch_paths(RUN, "../x", 1)


def test_files_are_private_even_with_a_permissive_umask(store):
    old = os.umask(0)
    try:
        request = confirmed(store)
        log_path, status_path = store.launch_paths(RUN, request, 1)
        with store.lock(RUN):
            pass
    finally:
        os.umask(old)
    for directory in (store.root, store.root / "resume", store.root / "locks", log_path.parent):
        assert mode(directory) == 0o700, directory
    assert mode(store.log_path(RUN)) == 0o600
    assert mode(store.lock_path(RUN)) == 0o600


def test_wider_existing_dirs_and_files_are_narrowed(tmp_path):
    root = tmp_path / "state"
    (root / "resume").mkdir(parents=True, mode=0o755)
    os.chmod(root / "resume", 0o755)
    log = root / "resume" / f"{RUN}.jsonl"
    log.write_bytes(b"")
    os.chmod(log, 0o644)
    store = ResumeStore(root)
    store.begin_request(RUN, reason="x")
    assert mode(root / "resume") == 0o700
    assert mode(log) == 0o600


def test_a_second_lock_in_the_same_process_is_busy_and_names_the_holder(store):
    with store.lock(RUN) as held:
        assert held.held
        assert "test-holder" in store.lock_path(RUN).read_text()
        with pytest.raises(ResumeBusy, match="test-holder since 2026-01-02T03:04:05.678Z") as info:
            ResumeStore(store.root, holder="other").lock(RUN)
        assert info.value.holder.startswith("test-holder")
        with pytest.raises(ResumeBusy):
            store.lock(RUN)  # the same store, too: pressing r twice
    with store.lock(RUN):  # released on exit
        pass
    assert store.lock_path(RUN).read_text() == ""


def test_a_passed_lock_must_be_held_and_of_the_same_run(store):
    lock = store.lock(RUN)
    lock.release()
    with pytest.raises(ResumeError, match="not a held lock"):
        store.begin_request(RUN, reason="x", lock=lock)
    with store.lock("wf_abcdef-111") as other, pytest.raises(ResumeError):
        store.begin_request(RUN, reason="x", lock=other)


HOLD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from wftop.core.resume.store import ResumeStore
    store = ResumeStore(Path(sys.argv[1]), holder="wftop pid HOLDER")
    with store.lock(sys.argv[2]):
        print("held", flush=True)
        time.sleep(30)
    """
)


def test_another_process_holding_the_lock_is_named_and_its_death_frees_it(store):
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(store.root), RUN],
        cwd=TOP,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(ResumeBusy, match="wftop pid HOLDER"):
            store.lock(RUN)
        with pytest.raises(ResumeBusy):
            store.begin_request(RUN, reason="racing")  # waits 2 s, then gives up
    finally:
        holder.kill()
        holder.wait()
    with store.lock(RUN):  # the kernel dropped the dead holder's lock
        pass


RACE = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from wftop.core.resume.errors import IllegalTransition, ResumeBusy
    from wftop.core.resume.machine import ResumeEvent
    from wftop.core.resume.store import ResumeStore
    store = ResumeStore(Path(sys.argv[1]))
    run, request, go = sys.argv[2], sys.argv[3], float(sys.argv[4])
    time.sleep(max(0.0, go - time.time()))
    try:
        with store.lock(run) as lock:
            store.record(run, request, ResumeEvent.LAUNCH, reason="race", lock=lock)
            time.sleep(0.3)
            print("launched")
    except ResumeBusy:
        print("busy")
    except IllegalTransition:
        print("illegal")
    """
)


def test_racing_processes_launch_one_request_exactly_once(store):
    import time

    request = confirmed(store)
    go = time.time() + 1.0
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACE, str(store.root), RUN, request, str(go)],
            cwd=TOP,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    outcomes = sorted(racer.communicate(timeout=60)[0].strip() for racer in racers)
    assert outcomes.count("launched") == 1
    assert set(outcomes) <= {"launched", "busy", "illegal"}
    launches = [r for r in lines(store.log_path(RUN)) if r["event"] == "launch"]
    assert len(launches) == 1
