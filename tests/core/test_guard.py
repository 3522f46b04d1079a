"""The guard's reasons, one case each, with a fake process table and a fixed clock."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tests.corpus import copy_tree, only_journal
from wftop.core.coldpass import scan_roots
from wftop.core.procs import FakeProcess, FakeProcessTable
from wftop.core.resume.guard import QUIET_SECONDS, check

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


def register(root, pid, start, domain=None):
    (root / "sessions").mkdir(exist_ok=True)
    entry = {
        "pid": pid,
        "sessionId": SESSION,
        "procStart": start,
        **({"pidDomain": domain} if domain else {}),
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
    import wftop.core.coldpass

    monkeypatch.setattr(wftop.core.coldpass, "local_pid_domain", lambda: "linux:here:pid:[1]")
    root = killed[0]
    register(root, 4242, "777", domain="linux:elsewhere:pid:[2]")
    result = verdict(the_run(root), killed)
    assert "another machine or pid namespace" in result.reason


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
