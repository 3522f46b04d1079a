"""Copy-only relocation: atomic, private, idempotent, source untouched; and the torn last line."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.corpus import copy_tree, only_journal
from tests.relocate_kit import NEW_SID, RUN, failed, journal_at, key, result, sha, started, states
from wftop.core.read.journal import CallState
from wftop.core.resume.errors import InvalidIdentifier, RelocationConflict, RelocationError
from wftop.core.resume.relocate import may_be_launched, relocate_journal


@pytest.fixture
def target_session(tmp_path: Path) -> Path:
    return tmp_path / "projects" / "-proj" / NEW_SID


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
    assert seen and all(
        flags & (os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_TRUNC) == 0 for flags in seen
    )


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
    [
        (b'{"type":"launched"', True),
        (b'{"type":"laun', True),
        (b"{", True),
        (b'xx{"type":"launched","h":1', True),
        (b'{"type":"started","k', False),
        (b"abc", False),
    ],
)
def test_the_launched_test_mirrors_the_cli(fragment, expected):
    assert may_be_launched(fragment) is expected
