"""The guard's reasons, one case each, with fake process tables and a fixed clock.

No test here reads this machine's processes: the tables are plain data, or the psutil table
over a stand-in psutil module.
"""

from __future__ import annotations

import json
import os
import shutil
from types import SimpleNamespace

import psutil
import pytest

import wftop.core.system.procs
from tests.corpus import copy_tree, only_journal
from tests.procfs import ProcFs
from wftop.core.index.coldpass import scan_roots
from wftop.core.read.sessions import Liveness
from wftop.core.resume.guard import QUIET_SECONDS, check
from wftop.core.system.procs import FakeProcess, FakeProcessTable, PsutilTable

SESSION = "e5c99c64-96da-45a1-841d-2b381f965487"
NOW = 4e9


def the_run(root, table=None):
    (run,) = scan_roots([str(root)], processes=table or FakeProcessTable()).runs
    return run


@pytest.fixture
def killed(tmp_path):
    root = copy_tree("killed", tmp_path)
    past = NOW - 600
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, (past, past))
    script = tmp_path / "six.js"
    script.write_text("export const meta = {name: 'x'}\n")
    cwd = tmp_path / "proj"
    cwd.mkdir()
    return root, str(script), str(cwd)


def verdict(run, killed, table=None, now=NOW, **overrides):
    _, script, cwd = killed
    args = {"script_path": script, "cwd": cwd, **overrides}
    return check(run, processes=table or FakeProcessTable(), now=now, **args)


def register(root, pid, start, domain=None, started_at=None):
    (root / "sessions").mkdir(exist_ok=True)
    entry = {
        "pid": pid,
        "sessionId": SESSION,
        "procStart": start,
        **({"pidDomain": domain} if domain else {}),
        **({"startedAt": started_at} if started_at is not None else {}),
    }
    (root / "sessions" / f"{pid}.json").write_text(json.dumps(entry))


def test_quiet_dead_run_with_script_and_cwd_is_allowed(killed):
    result = verdict(the_run(killed[0]), killed)
    assert result.ok and result.reason == "ok"


def test_live_owner_is_refused(killed):
    root = killed[0]
    register(root, 4242, "777")
    table = FakeProcessTable({4242: FakeProcess("777")})
    result = verdict(the_run(root, table), killed, table)
    assert not result.ok and result.forceable
    assert result.reason == f"live owner: pid 4242 still runs session {SESSION}"


def test_recycled_pid_is_not_an_owner(killed):
    root = killed[0]
    register(root, 4242, "777")
    table = FakeProcessTable({4242: FakeProcess("123")})
    assert verdict(the_run(root, table), killed, table).ok


def test_owner_in_another_pid_namespace_cannot_be_checked(killed, monkeypatch):
    import wftop.core.index.keptrows

    monkeypatch.setattr(wftop.core.index.keptrows, "local_pid_domain", lambda: "linux:here:pid:[1]")
    root = killed[0]
    register(root, 4242, "777", domain="linux:elsewhere:pid:[2]")
    result = verdict(the_run(root), killed)
    assert not result.ok
    assert result.reason == (
        "owner pid 4242 may still run the session: it was registered on another machine or "
        "pid namespace (linux:elsewhere:pid:[2]), so wftop cannot tell whether it is alive"
    )


def test_a_process_resuming_the_session_is_refused(killed):
    argv = ["claude", "-p", "--resume", SESSION, "--", "hello"]
    table = FakeProcessTable({999: FakeProcess("1", argv)})
    result = verdict(the_run(killed[0]), killed, table)
    assert result.reason == f"process 999 is already resuming session {SESSION}"


def test_recent_growth_is_refused(killed):
    run = the_run(killed[0])
    result = verdict(run, killed, now=run.last_activity + QUIET_SECONDS - 5)
    assert "grew 55 s ago" in result.reason
    assert verdict(run, killed, now=run.last_activity + QUIET_SECONDS + 1).ok


def test_completed_run_without_failures_is_refused(tmp_path, killed):
    root = copy_tree("clean", tmp_path)
    assert verdict(the_run(root), killed).reason.startswith("completed with no failed calls")


def test_superseded_run_is_refused(killed):
    root = killed[0]
    source = only_journal(root)
    target = source.parents[4] / "11111111-2222-4333-8444-555555555555" / "subagents" / "workflows"
    target.mkdir(parents=True)
    shutil.copytree(source.parent, target / source.parent.name)
    with open(target / source.parent.name / "journal.jsonl", "ab") as handle:
        handle.write(b'{"type":"started","key":"v2:z","agentId":"a0000000000000001"}\n')
    runs = scan_roots([str(root)], processes=FakeProcessTable()).runs
    old = next(run for run in runs if run.session_id == SESSION)
    assert verdict(old, killed).reason.startswith("superseded: the run continued in session 1111")


def test_session_folder_that_is_not_a_uuid_is_refused_even_with_force(tmp_path, killed):
    root = killed[0]
    session_dir = only_journal(root).parents[3]
    session_dir.rename(session_dir.with_name("not-a-uuid"))
    result = verdict(the_run(root), killed)
    assert "invalid session id" in result.reason
    assert not result.allows(force=True)


def test_missing_script_and_missing_cwd_are_refused(killed):
    run = the_run(killed[0])
    assert verdict(run, killed, script_path="/nowhere/six.js").reason == (
        "script not found: /nowhere/six.js"
    )
    assert "working directory is gone" in verdict(run, killed, cwd="/nowhere/proj").reason
    assert "working directory is unknown" in verdict(run, killed, cwd=None).reason


def test_unreadable_journal_is_refused(killed):
    root = killed[0]
    journal = only_journal(root)
    journal.unlink()
    journal.mkdir()
    assert verdict(the_run(root), killed).reason.startswith("journal unreadable")


def test_fresh_relaunch_may_follow_a_completed_run(tmp_path, killed):
    root = copy_tree("clean", tmp_path)
    run = the_run(root)
    assert verdict(run, killed, fresh=True).ok


# --- A process table that cannot tell -------------------------------------------------------


def stand_in_psutil(process):  # type: ignore[no-untyped-def]
    """A psutil module whose ``Process(pid)`` is ``process(pid)``; its errors are psutil's own."""
    return SimpleNamespace(
        Error=psutil.Error,
        NoSuchProcess=psutil.NoSuchProcess,
        AccessDenied=psutil.AccessDenied,
        Process=process,
        pids=lambda: [],
        boot_time=lambda: 1000.0,
    )


def denied(pid):  # type: ignore[no-untyped-def]
    raise psutil.AccessDenied(pid)


def no_such(pid):  # type: ignore[no-untyped-def]
    raise psutil.NoSuchProcess(pid)


def only_me(pid):  # type: ignore[no-untyped-def]
    if pid != os.getpid():
        raise psutil.NoSuchProcess(pid)
    return SimpleNamespace(pid=pid, create_time=lambda: 1001.0)


def no_kill_probe(pid, signal):  # type: ignore[no-untyped-def]
    raise AssertionError("a table that cannot see itself must not probe pids")


def hidden_by_proc_mount(pid, signal):  # type: ignore[no-untyped-def]
    raise PermissionError(1, "Operation not permitted")  # the pid exists; /proc hides it


BLIND_TABLES = {
    "cannot-tell": lambda tmp_path: FakeProcessTable({4242: FakeProcess("777")}, blind=True),
    "psutil-access-denied": lambda tmp_path: PsutilTable(stand_in_psutil(denied)),
    "psutil-sees-no-process-not-even-itself": lambda tmp_path: PsutilTable(
        stand_in_psutil(no_such)
    ),
    "psutil-sees-itself-but-the-pid-is-hidden": lambda tmp_path: PsutilTable(
        stand_in_psutil(only_me)
    ),
    "no-proc-mounted": lambda tmp_path: ProcFs(str(tmp_path / "no-proc")),
}


@pytest.fixture(params=sorted(BLIND_TABLES))
def blind_table(request, tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    """A process table whose view of the processes is missing, one way or another."""
    probe = hidden_by_proc_mount if request.param.endswith("hidden") else no_kill_probe
    monkeypatch.setattr(wftop.core.system.procs.os, "kill", probe)
    return BLIND_TABLES[request.param](tmp_path)


def test_an_owner_the_table_cannot_see_is_unknown_and_refused_never_resumed(killed, blind_table):
    root = killed[0]
    register(root, 4242, "777", started_at=1_700_000_000_000)
    run = the_run(root, blind_table)
    assert run.owner.liveness is Liveness.UNKNOWN
    result = verdict(run, killed, blind_table)
    assert not result.ok
    assert result.reason == (
        "owner pid 4242 may still run the session: the process table cannot read pid 4242 "
        "(no /proc, or access denied), so wftop cannot tell whether it is alive"
    )


# --- Where procStart cannot be reproduced: the creation time against startedAt ---------------

STARTED_AT_MS = 1_700_000_000_000


def created_at(seconds):  # type: ignore[no-untyped-def]
    """A table without Linux start times whose pid 4242 was created at ``seconds``."""
    return FakeProcessTable({4242: FakeProcess("", created=seconds)}, proc_starts=False)


def test_a_process_created_before_the_owner_registered_is_the_live_owner(killed):
    root = killed[0]
    register(root, 4242, "Thu Sep 10 08:31:58 2026", started_at=STARTED_AT_MS)
    table = created_at(STARTED_AT_MS / 1000 - 1.7)
    result = verdict(the_run(root, table), killed, table)
    assert result.reason == f"live owner: pid 4242 still runs session {SESSION}"


def test_a_process_created_after_the_owner_registered_has_a_recycled_pid(killed):
    root = killed[0]
    register(root, 4242, "Thu Sep 10 08:31:58 2026", started_at=STARTED_AT_MS)
    table = created_at(STARTED_AT_MS / 1000 + 30)
    run = the_run(root, table)
    assert run.owner.liveness is Liveness.DEAD
    assert verdict(run, killed, table).ok


def test_a_running_pid_with_no_start_to_compare_is_unknown_and_refused(killed):
    root = killed[0]
    register(root, 4242, "Thu Sep 10 08:31:58 2026")  # no startedAt
    table = created_at(STARTED_AT_MS / 1000)
    result = verdict(the_run(root, table), killed, table)
    assert not result.ok
    assert result.reason == (
        "owner pid 4242 may still run the session: pid 4242 runs, but the registry file has no "
        "start to compare with its process's, so wftop cannot tell whether it is alive"
    )


def test_the_psutil_table_without_linux_start_times_compares_creation_times(killed, monkeypatch):
    monkeypatch.setattr(wftop.core.system.procs, "reproduces_proc_start", lambda: False)

    def process(created):  # type: ignore[no-untyped-def]
        return lambda pid: SimpleNamespace(pid=pid, create_time=lambda: created)

    root = killed[0]
    register(root, 4242, "Thu Sep 10 08:31:58 2026", started_at=STARTED_AT_MS)
    before = PsutilTable(stand_in_psutil(process(STARTED_AT_MS / 1000 - 1)))
    assert the_run(root, before).owner.liveness is Liveness.ALIVE
    after = PsutilTable(stand_in_psutil(process(STARTED_AT_MS / 1000 + 60)))
    assert the_run(root, after).owner.liveness is Liveness.DEAD


def test_a_refusal_says_how_to_fix_it_and_what_forcing_risks(killed):
    root = killed[0]
    register(root, 4242, "777")
    table = FakeProcessTable({4242: FakeProcess("777")})
    owner = verdict(the_run(root, table), killed, table)
    assert owner.fix == "end that Claude Code session (or `kill 4242`), then plan again"
    assert owner.advice()[1].startswith("--force: starts a second orchestrator")
    run = the_run(root)
    missing = verdict(run, killed, script_path="/nowhere/six.js")
    assert missing.fix == (
        "put the run's script back at /nowhere/six.js (where the run was started from)"
    )
    assert not missing.allows(force=True)
    assert missing.advice() == [f"fix: {missing.fix}", "--force cannot override this"]
