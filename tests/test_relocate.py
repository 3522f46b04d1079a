"""Copy-only relocation: atomic, private, idempotent, source untouched; and the heal's rules."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

import pytest

from core.journal import CallState
from core.resume.errors import InvalidIdentifier, RelocationConflict, RelocationError
from core.resume.relocate import (
    fold_lines,
    heal_plan,
    healed_fold,
    may_be_launched,
    relocate_journal,
)
from tests.corpus import copy_tree, only_journal

NEW_SID = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"
RUN = "wf_abcdef12-345"


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def key(n: int) -> str:
    return f"v2:{n:064x}"


def line(**record) -> bytes:
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def started(n: int, agent: str, label: str) -> bytes:
    return line(type="started", key=key(n), agentId=agent, label=label, phase="P")


def result(n: int, agent: str) -> bytes:
    return line(type="result", key=key(n), agentId=agent, result={"n": n},
                remoteControlDeviceReport=False, sessionId="s")


def failed(n: int, agent: str) -> bytes:
    return line(type="failed", key=key(n), agentId=agent)


@pytest.fixture
def target_session(tmp_path: Path) -> Path:
    return tmp_path / "projects" / "-proj" / NEW_SID


def journal_at(tmp_path: Path, content: bytes) -> Path:
    path = tmp_path / "source" / "journal.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path


def states(path: Path) -> dict[str, tuple]:
    fold, _ = fold_lines(path)
    return {c.key: (c.state, c.has_result, c.failed, c.demoted, c.replaced, c.attempts)
            for c in fold.calls.values()}


# -- relocation mechanics (real journals written by the CLI) ----------------------------------


def test_plain_relocation_copies_byte_for_byte_into_the_run_folder(tmp_path, target_session):
    source = only_journal(copy_tree("killed", tmp_path))
    before = (sha(source), source.stat().st_mtime_ns, source.stat().st_ino)
    run_id = source.parent.name
    done = relocate_journal(source, target_session, run_id, heal=False)
    target = target_session / "subagents" / "workflows" / run_id / "journal.jsonl"
    assert done.target == target
    assert target.read_bytes() == source.read_bytes()
    assert (sha(source), source.stat().st_mtime_ns, source.stat().st_ino) == before
    assert done.sha256 == done.source_sha256 == before[0]
    assert (done.already_present, done.dropped, done.torn_tail) == (False, (), "none")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    for folder in (target_session, target.parent.parent.parent, target.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert sorted(p.name for p in target.parent.iterdir()) == ["journal.jsonl"]


def test_the_source_is_never_opened_for_writing(tmp_path, target_session, monkeypatch):
    source = only_journal(copy_tree("mid-failure", tmp_path))
    real_open = os.open
    seen: list[int] = []

    def spy(path, flags, *args, **kwargs):
        if Path(path) == source:
            seen.append(flags)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy)
    relocate_journal(source, target_session, source.parent.name, heal=True)
    assert seen and all(flags & (os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_TRUNC) == 0
                        for flags in seen)


def test_an_identical_target_is_a_no_op(tmp_path, target_session):
    source = only_journal(copy_tree("mid-failure", tmp_path))
    first = relocate_journal(source, target_session, source.parent.name, heal=True)
    inode = first.target.stat().st_ino
    again = relocate_journal(source, target_session, source.parent.name, heal=True)
    assert again.already_present and again.sha256 == first.sha256
    assert again.dropped == first.dropped  # still reported, for the plan
    assert first.target.stat().st_ino == inode
    assert [p.name for p in first.target.parent.iterdir()] == ["journal.jsonl"]


def test_a_different_target_is_refused_and_left_alone(tmp_path, target_session):
    source = only_journal(copy_tree("mid-failure", tmp_path))
    done = relocate_journal(source, target_session, source.parent.name, heal=False)
    with open(done.target, "ab") as handle:  # the CLI resumed there and appended
        handle.write(started(1, "a1", "x"))
    resumed = sha(done.target)
    with pytest.raises(RelocationConflict, match="different content"):
        relocate_journal(source, target_session, source.parent.name, heal=False)
    with pytest.raises(RelocationConflict):  # healed would differ from the plain copy too
        relocate_journal(source, target_session, source.parent.name, heal=True)
    assert sha(done.target) == resumed
    assert [p.name for p in done.target.parent.iterdir()] == ["journal.jsonl"]


def test_a_crash_mid_write_leaves_no_target_and_no_temp(tmp_path, target_session, monkeypatch):
    source = only_journal(copy_tree("killed", tmp_path))
    calls = {"n": 0}
    real_fsync = os.fsync

    def failing_fsync(fd):
        calls["n"] += 1
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="Input/output"):
        relocate_journal(source, target_session, source.parent.name, heal=False)
    monkeypatch.setattr(os, "fsync", real_fsync)
    run_dir = target_session / "subagents" / "workflows" / source.parent.name
    assert calls["n"] == 1 and list(run_dir.iterdir()) == []
    relocate_journal(source, target_session, source.parent.name, heal=False)  # retry works


def test_the_target_is_only_ever_renamed_into_place(tmp_path, target_session, monkeypatch):
    source = only_journal(copy_tree("killed", tmp_path))
    renames: list[tuple[str, str]] = []
    real_rename = os.rename

    def spy(src, dst):
        assert Path(src).parent == Path(dst).parent  # same folder: atomic
        assert Path(src).read_bytes() == source.read_bytes()  # complete before it is visible
        renames.append((Path(src).name, Path(dst).name))
        real_rename(src, dst)

    monkeypatch.setattr(os, "rename", spy)
    relocate_journal(source, target_session, source.parent.name, heal=False)
    assert len(renames) == 1 and renames[0][1] == "journal.jsonl"
    assert renames[0][0].startswith(".journal.jsonl.")


@pytest.mark.parametrize("run_id", ["wf_../../x", "wf_ABC123", "../etc", "wf_abc"])
def test_bad_run_ids_are_refused(tmp_path, target_session, run_id):
    source = journal_at(tmp_path, started(1, "a1", "x"))
    with pytest.raises(InvalidIdentifier):
        relocate_journal(source, target_session, run_id, heal=False)


def test_the_target_folder_must_be_a_session(tmp_path):
    source = journal_at(tmp_path, started(1, "a1", "x"))
    with pytest.raises(InvalidIdentifier, match="session id"):
        relocate_journal(source, tmp_path / "projects" / "-proj", RUN, heal=False)


def test_a_linked_run_folder_is_refused(tmp_path, target_session):
    source = journal_at(tmp_path, started(1, "a1", "x"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (target_session / "subagents" / "workflows").mkdir(parents=True)
    (target_session / "subagents" / "workflows" / RUN).symlink_to(elsewhere)
    with pytest.raises(RelocationError, match="link"):
        relocate_journal(source, target_session, RUN, heal=False)
    assert list(elsewhere.iterdir()) == []


def test_a_missing_source_is_a_clear_error(tmp_path, target_session):
    with pytest.raises(RelocationError, match="cannot read the source journal"):
        relocate_journal(tmp_path / "nope.jsonl", target_session, RUN, heal=False)


# -- the heal on real journals -----------------------------------------------------------------


def test_heal_drops_only_the_failed_line_of_the_failed_call(tmp_path, target_session):
    source = only_journal(copy_tree("mid-failure", tmp_path))
    raw = source.read_bytes().splitlines(keepends=True)
    done = relocate_journal(source, target_session, source.parent.name, heal=True)
    assert [(d.line, d.label, d.agent_id) for d in done.dropped] == [
        (10, "a3", "ae6bf04ed763901ff")]
    assert done.target.read_bytes() == b"".join(raw[:9] + raw[10:])
    before, after = states(source), states(done.target)
    a3 = done.dropped[0].key
    assert before[a3][0] is CallState.FAILED
    assert after[a3] == (CallState.IN_FLIGHT, False, False, False, False, 1)
    assert {k: v for k, v in after.items() if k != a3} == {
        k: v for k, v in before.items() if k != a3}


def test_heal_of_the_fanout_failure_drops_b2_only(tmp_path, target_session):
    source = only_journal(copy_tree("fanout-failure", tmp_path))
    done = relocate_journal(source, target_session, source.parent.name, heal=True)
    assert [(d.line, d.label) for d in done.dropped] == [(18, "b2")]
    assert done.kept == ()


def test_a_call_that_failed_and_later_returned_keeps_its_failed_line(tmp_path, target_session):
    source = only_journal(copy_tree("mid-failure-resumed", tmp_path))
    done = relocate_journal(source, target_session, source.parent.name, heal=True)
    assert done.dropped == ()
    assert [(k.label, k.reason.split(":")[0]) for k in done.kept] == [
        ("a3", "failed, then returned a result")]
    assert done.target.read_bytes() == source.read_bytes()


def test_a_journal_of_an_older_cli_without_failed_lines_is_copied_as_is(tmp_path, target_session):
    source = only_journal(copy_tree("2.1.207-mid-failure", tmp_path))
    done = relocate_journal(source, target_session, source.parent.name, heal=True)
    assert (done.dropped, done.kept) == ((), ())
    assert done.target.read_bytes() == source.read_bytes()


# -- the heal's edge cases (hand-made journals) -----------------------------------------------

EDGE_CASES = {
    "failed with an empty agentId after a start": (
        [started(1, "a1", "x"), failed(1, "")], [2], None),
    "never started (agentId empty, no started line)": (
        [failed(1, "")], [], "never started"),
    "keyless old lines": (
        [line(type="started", agentId="a1"), line(type="failed", agentId="a1")], [], "keyless"),
    "demoted, then failed": (
        [started(1, "a1", "x"), result(1, "a1"), started(1, "a2", "x"), failed(1, "a2")], [],
        "a newer attempt demoted"),
    "failed, re-run still in flight": (
        [started(1, "a1", "x"), failed(1, "a1"), started(1, "a2", "x")], [2], None),
    "failed twice": (
        [started(1, "a1", "x"), failed(1, "a1"), started(1, "a2", "x"), failed(1, "a2")],
        [2, 4], None),
    "two orchestrators: a result, then a late failure": (
        [started(1, "a1", "x"), started(1, "a2", "x"), result(1, "a2"), failed(1, "a1")], [],
        "an earlier result"),
    "failed, then returned (replaced chain)": (
        [started(1, "a1", "x"), failed(1, "a1"), started(1, "a2", "x"), result(1, "a2")], [],
        "failed, then returned"),
}


@pytest.mark.parametrize("name", list(EDGE_CASES))
def test_heal_edge_cases(tmp_path, target_session, name):
    lines, dropped_lines, kept_reason = EDGE_CASES[name]
    source = journal_at(tmp_path, b'{"type":"launched"}\n' + b"".join(lines))
    done = relocate_journal(source, target_session, RUN, heal=True)
    assert [d.line - 1 for d in done.dropped] == dropped_lines
    expected = b'{"type":"launched"}\n' + b"".join(
        raw for number, raw in enumerate(lines, 1) if number not in dropped_lines)
    assert done.target.read_bytes() == expected
    if kept_reason is None:
        assert done.kept == ()
        assert all(s[0] is CallState.IN_FLIGHT and not s[2] for s in states(done.target).values())
    else:
        assert len(done.kept) == 1 and kept_reason in done.kept[0].reason


def test_heal_leaves_other_calls_and_odd_lines_untouched(tmp_path, target_session):
    content = b"".join([
        b'{"type":"launched"}\n',
        started(1, "a1", "one"), result(1, "a1"),
        b"not json at all\n",
        b"\n",
        started(2, "a2", "two"),
        started(3, "a3", "three"), failed(3, "a3"),
        b'{"type":"failed","key":"' + key(2).encode() + b'","agentId":"a2\xff"}\n',
        b'{"type":"resumed"}\n',
        b'{"type":"future-kind","x":1}\n',
    ])
    source = journal_at(tmp_path, content)
    done = relocate_journal(source, target_session, RUN, heal=True)
    # The failed line with invalid UTF-8 is read the CLI's way (replacement character) and dropped.
    assert sorted((d.line, d.label) for d in done.dropped) == [(8, "three"), (9, "two")]
    kept_lines = content.splitlines(keepends=True)
    assert done.target.read_bytes() == b"".join(kept_lines[:7] + kept_lines[9:])


# -- torn last line -------------------------------------------------------------------------


def test_an_unparseable_torn_tail_is_left_out(tmp_path, target_session):
    body = b'{"type":"launched"}\n' + started(1, "a1", "x")
    fragment = b'{"type":"result","key":"v2:77f6'
    source = journal_at(tmp_path, body + fragment)
    done = relocate_journal(source, target_session, RUN, heal=False)
    assert (done.torn_tail, done.torn_tail_bytes) == ("dropped", len(fragment))
    assert done.target.read_bytes() == body


def test_a_complete_record_without_its_newline_is_kept_and_terminated(tmp_path, target_session):
    body = b'{"type":"launched"}\n' + started(1, "a1", "x")
    tail = result(1, "a1").rstrip(b"\n")
    source = journal_at(tmp_path, body + tail)
    done = relocate_journal(source, target_session, RUN, heal=False)
    assert done.torn_tail == "completed"
    assert done.target.read_bytes() == body + tail + b"\n"
    assert states(done.target)[key(1)][0] is CallState.DONE


def test_a_torn_failed_record_is_healed_like_any_other(tmp_path, target_session):
    body = b'{"type":"launched"}\n' + started(1, "a1", "x")
    source = journal_at(tmp_path, body + failed(1, "a1").rstrip(b"\n"))
    done = relocate_journal(source, target_session, RUN, heal=True)
    assert [d.line for d in done.dropped] == [3]
    assert done.target.read_bytes() == body


def test_a_torn_tail_that_may_be_a_launched_record_is_refused(tmp_path, target_session):
    source = journal_at(tmp_path, b'{"type":"launched","hiddenScriptSha256":"ab')
    with pytest.raises(RelocationError, match="launched"):
        relocate_journal(source, target_session, RUN, heal=False)
    run_dir = target_session / "subagents" / "workflows" / RUN
    assert list(run_dir.iterdir()) == []


@pytest.mark.parametrize(
    ("fragment", "expected"),
    [(b'{"type":"launched"', True), (b'{"type":"laun', True), (b"{", True),
     (b'xx{"type":"launched","h":1', True), (b'{"type":"started","k', False), (b"abc", False)],
)
def test_the_launched_test_mirrors_the_cli(fragment, expected):
    assert may_be_launched(fragment) is expected


def test_heal_plan_is_usable_on_a_fold_alone(tmp_path):
    source = only_journal(copy_tree("mid-failure", tmp_path))
    fold, _ = fold_lines(source)
    plan = heal_plan(fold)
    assert [fold.calls[k].label for k in plan.drop_keys] == ["a3"]


# -- against the real CLI (2.1.332) and the loopback mock Messages API --------------------------

FAILS_FOR_GOOD = {"errors": [429, 429, 429]}
SCENARIOS = {
    # script, agents, env, live when resumed from a plain copy / from a healed copy
    "fanout": ("eight.js", "eight", "b2",
               {"CLAUDE_CODE_WORKFLOW_MAX_CONCURRENT_AGENTS": "8"},
               ["b2", "b3", "b4", "b5", "b6", "b7", "b8", "c1"], ["b2"]),
    "six-mid-failure": ("six.js", "six", "a3",
                        {"CLAUDE_CODE_WORKFLOW_MAX_CONCURRENT_AGENTS": "2"},
                        ["a3", "a4", "a5", "a6"], ["a3", "a5", "a6"]),
}


@pytest.mark.realcli
@pytest.mark.parametrize("heal", [False, True], ids=["relocate", "surgical"])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_the_real_cli_resumes_a_relocated_copy(claude_bin, mock_api, cli_home, tmp_path,
                                               scenario, heal):
    import uuid

    from core.procs import ProcFs
    from core.resume.launcher import SubprocessLauncher, build_argv, build_prompt
    from tests import realcli

    script, agents, failing, env, live_plain, live_healed = SCENARIOS[scenario]
    env = {**env, "CLAUDE_CODE_MAX_RETRIES": "2"}
    make_agents = realcli.eight_agents if agents == "eight" else realcli.six_agents
    run = realcli.run_workflow(claude_bin, mock_api, cli_home, realcli.load_script(script),
                               make_agents(**{failing: FAILS_FOR_GOOD}), env_extra=env)
    assert run.rc == 0 and run.journal_path is not None and run.script_path is not None
    source = run.journal_path
    source_sha = sha(source)
    mock_api.configure(agents=make_agents())  # the failed agent now answers

    new_sid = str(uuid.uuid4())
    done = relocate_journal(source, run.session_dir.parent / new_sid, run.run_id, heal=heal)
    assert [d.label for d in done.dropped] == ([failing] if heal else [])
    strategy = "surgical" if heal else "relocate"
    argv = build_argv(strategy, claude_bin, new_sid, build_prompt(run.run_id, run.script_path))
    since = mock_api.mark()
    launch = SubprocessLauncher(ProcFs()).launch(
        argv, cwd=cli_home.cwd, log_path=tmp_path / "resume.log",
        status_path=tmp_path / "resume.status.json",
        env=realcli.cli_env(cli_home, mock_api.url, env),
    )
    try:
        result = launch.wait(ProcFs(), 180)
    finally:
        launch.stop(ProcFs(), grace=1)
    assert (result.state, result.exit_code) == ("exited", 0), (tmp_path / "resume.log").read_text()
    assert sorted(mock_api.live_agents(since=since)) == (live_healed if heal else live_plain)
    assert sha(source) == source_sha
    resumed = realcli.journal_counts(done.target)
    assert resumed["result"] > realcli.journal_counts(source)["result"]


def test_healed_fold_matches_what_the_copy_reads(tmp_path, target_session):
    from core.jsonl import read_all

    for name in ("mid-failure", "fanout-failure", "mid-failure-resumed"):
        source = only_journal(copy_tree(name, tmp_path / name))
        fold, drop = healed_fold(read_all(source).records)
        done = relocate_journal(source, target_session.parent / name.replace("-", "") /
                                NEW_SID, source.parent.name, heal=True)
        assert drop == {d.line for d in done.dropped}
        copied, _ = fold_lines(done.target)
        assert {k: (c.state, c.failed) for k, c in fold.calls.items()} == {
            k: (c.state, c.failed) for k, c in copied.calls.items()}


def test_malformed_keys_do_not_break_the_heal(tmp_path, target_session):
    content = (b'{"type":"launched"}\n' + started(1, "a1", "x") + failed(1, "a1")
               + b'{"type":"failed","key":["not","a","string"],"agentId":"a9"}\n')
    source = journal_at(tmp_path, content)
    done = relocate_journal(source, target_session, RUN, heal=True)
    assert [d.line for d in done.dropped] == [3]
    assert done.target.read_bytes().endswith(b'"agentId":"a9"}\n')
