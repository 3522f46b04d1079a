"""The fault table, read side: every bad input ``wftop ls`` may meet on disk, one row a test.

Each static row damages a private copy of the ``killed`` tree, runs ``wftop ls
--json`` on it (a real process, with a timeout: nothing may hang), and checks that
wftop reported and went on, and that it wrote nothing: the tree's paths, sizes,
modes and times are the same afterwards. The size rows scan a very long journal and
very many runs.

Rows that need a read to be refused (mode 000, a read-only root) run wftop without
the capabilities that let root bypass file modes (``setpriv``), so they hold when the
suite runs as root too.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.core.test_index import append
from tests.corpus import copy_tree, only_journal
from tests.faults_kit import RUN, STARTED, run_folder, unprivileged, wftop
from wftop.core.index.coldpass import scan_roots
from wftop.core.system.procs import FakeProcessTable


def manifest(top: Path) -> dict[bytes, tuple[int, int, int, int]]:
    """Every path under ``top`` (not following links): mode, size, mtime, inode."""
    found: dict[bytes, tuple[int, int, int, int]] = {}
    base = os.fsencode(top)
    for folder, dirs, files in os.walk(base):
        for name in [*dirs, *files, b"."]:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            size = 0 if os.path.isdir(path) and not os.path.islink(path) else info.st_size
            found[os.path.relpath(path, base)] = (
                info.st_mode,
                size,
                info.st_mtime_ns,
                info.st_ino,
            )
    return found


# -- static rows ------------------------------------------------------------------------------


def torn_last_line(root: Path) -> None:
    append(only_journal(root), STARTED[:25])


def garbage_lines(root: Path) -> None:
    append(only_journal(root), b"not json at all\n", b"{{{\n", b"\x00\x01\x02\n")


def non_object_line(root: Path) -> None:
    append(only_journal(root), b"42\n", b'["a"]\n', b'"text"\n', b"null\n")


def invalid_utf8(root: Path) -> None:
    append(only_journal(root), b'{"type":"started",\xff"label":"x"}\n')


A5_RESULT = (
    b'{"type":"result","key":"v2:c2f927b8082cd0b98a3372409d3eac0db9659198e55de591e3d8bc7e99fdfffa",'
    b'"agentId":"abb884cc08bd3d085","result":"'
)


def invalid_utf8_in_a_result(root: Path) -> None:
    """The CLI reads the file as UTF-8 text (bad bytes become U+FFFD): the call returned."""
    append(only_journal(root), A5_RESULT + b'\xff\xfe done"}\n')


def empty_journal(root: Path) -> None:
    only_journal(root).write_bytes(b"")


def fifty_mb_line(root: Path) -> None:
    line = b'{"type":"result","key":"v2:big","agentId":"abig","result":"'
    append(only_journal(root), line + b"x" * (50 * 1024 * 1024) + b'"}\n')


def fifo_journal(root: Path) -> None:
    journal = only_journal(root)
    journal.unlink()
    os.mkfifo(journal)


def directory_journal(root: Path) -> None:
    journal = only_journal(root)
    journal.unlink()
    journal.mkdir()


def journal_link_loop(root: Path) -> None:
    journal = only_journal(root)
    journal.unlink()
    journal.symlink_to(journal.name)


def run_folder_link_loop(root: Path) -> None:
    workflows = run_folder(root).parent
    (workflows / "wf_loop0000-001").symlink_to(".", target_is_directory=True)
    (workflows / "wf_loop0000-002").symlink_to("wf_loop0000-003")
    (workflows / "wf_loop0000-003").symlink_to("wf_loop0000-002")


def dangling_snapshot_link(root: Path) -> None:
    snapshots = run_folder(root).parents[2] / "workflows"
    (snapshots / f"{RUN}.json").symlink_to("/nonexistent/snapshot.json")


def snapshot_garbage(root: Path) -> None:
    snapshots = run_folder(root).parents[2] / "workflows"
    (snapshots / f"{RUN}.json").write_bytes(b'{"status": "completed", "workflowProgress": [1, {')


def transcript_garbage(root: Path) -> None:
    transcript = run_folder(root).parents[2].with_suffix(".jsonl")
    transcript.write_bytes(b"\xff\xfe garbage\n[1,2]\n{")


def agent_transcript_fifo(root: Path) -> None:
    os.mkfifo(run_folder(root) / "agent-afifo0000000000.jsonl")


def session_registry_garbage(root: Path) -> None:
    sessions = root / "sessions"
    sessions.mkdir()
    (sessions / "123.json").write_bytes(b"\xff not json")
    (sessions / "456.json").write_text('{"pid": "x", "sessionId": 5}')
    os.mkfifo(sessions / "789.json")
    (sessions / "999.json").mkdir()


def unreadable_journal(root: Path) -> None:
    only_journal(root).chmod(0)


def unreadable_session_folder(root: Path) -> None:
    run_folder(root).parents[2].chmod(0)


def unreadable_projects(root: Path) -> None:
    (root / "projects").chmod(0)


def spaces_and_newlines(root: Path) -> None:
    project = run_folder(root).parents[3]
    project.rename(project.with_name("my project\nwith a newline; $(id)"))


def non_utf8_path(root: Path) -> None:
    project = os.fsencode(run_folder(root).parents[3])
    os.rename(project, project + b"-\xff\xfe-latin1-\xe9")


def expect_run(**fields: Any) -> Callable[[list[dict[str, Any]], str], None]:
    def check(listing: list[dict[str, Any]], stderr: str) -> None:
        assert len(listing) == 1, listing
        for name, value in fields.items():
            assert listing[0][name] == value, (name, listing[0][name])

    return check


def expect_killed_among_others(listing: list[dict[str, Any]], stderr: str) -> None:
    """A link to the workflows folder reads as a run without a journal; loops are skipped."""
    assert sorted(row["run_id"] for row in listing) == [RUN, "wf_loop0000-001"]
    expect_run(**KILLED)([row for row in listing if row["run_id"] == RUN], stderr)


def expect_problem(text: str, **fields: Any) -> Callable[[list[dict[str, Any]], str], None]:
    def check(listing: list[dict[str, Any]], stderr: str) -> None:
        assert text in stderr, stderr
        expect_run(**fields)(listing, stderr)

    return check


def expect_nothing(text: str) -> Callable[[list[dict[str, Any]], str], None]:
    def check(listing: list[dict[str, Any]], stderr: str) -> None:
        assert listing == []
        assert text in stderr, stderr

    return check


KILLED = {"status": "dead", "started": 5, "returned": 4, "failed": 0, "in_flight": ["a5"]}
RETURNED = {**KILLED, "returned": 5, "in_flight": []}

STATIC_ROWS: list[tuple[str, Callable[[Path], None], Callable[..., None], bool]] = [
    ("torn last line", torn_last_line, expect_run(**KILLED), False),
    ("garbage lines", garbage_lines, expect_problem("not valid JSON", **KILLED), False),
    ("non-object JSON lines", non_object_line, expect_problem("got int", **KILLED), False),
    ("invalid UTF-8", invalid_utf8, expect_problem("invalid UTF-8", **KILLED), False),
    ("invalid UTF-8 in a result", invalid_utf8_in_a_result, expect_run(**RETURNED), False),
    ("empty journal", empty_journal, expect_run(started=0, returned=0, in_flight=[]), False),
    ("50 MB line", fifty_mb_line, expect_run(status="dead", started=5, returned=5), False),
    ("FIFO named journal.jsonl", fifo_journal, expect_problem("not a regular file"), False),
    ("directory named journal.jsonl", directory_journal, expect_problem("a directory"), False),
    ("journal symlink loop", journal_link_loop, expect_problem("symbolic link loop"), False),
    ("run folder symlink loop", run_folder_link_loop, expect_killed_among_others, False),
    ("dangling snapshot link", dangling_snapshot_link, expect_run(**KILLED), False),
    ("snapshot not JSON", snapshot_garbage, expect_run(status="dead", in_flight=["a5"]), False),
    ("session transcript garbage", transcript_garbage, expect_run(**KILLED), False),
    ("FIFO agent transcript", agent_transcript_fifo, expect_run(**KILLED), False),
    ("session registry garbage", session_registry_garbage, expect_run(**KILLED), False),
    ("journal mode 000", unreadable_journal, expect_problem("permission denied"), True),
    ("session folder mode 000", unreadable_session_folder, expect_nothing("denied"), True),
    ("spaces and newlines in names", spaces_and_newlines, expect_run(**KILLED), False),
    ("non-UTF-8 path", non_utf8_path, expect_run(**KILLED), False),
]


@pytest.mark.parametrize(
    ("fault", "check", "needs_modes"),
    [pytest.param(*row[1:], id=row[0]) for row in STATIC_ROWS],
)
def test_bad_input_is_reported_and_nothing_is_written(tmp_path, fault, check, needs_modes):
    world = tmp_path / "world"
    world.mkdir()
    world.chmod(0o755)
    root = copy_tree("killed", world)
    fault(root)
    before = manifest(root)
    prefix = unprivileged() if needs_modes else []
    done = wftop(root, "ls", "--json", prefix=prefix)
    assert done.returncode == 0, done.stderr
    listing = json.loads(done.stdout)
    check(listing, done.stderr)
    table = wftop(root, "ls", prefix=prefix)
    assert table.returncode == 0, table.stderr
    assert len(table.stdout.splitlines()) == 1 + len(listing), table.stdout  # one row a run
    assert manifest(root) == before


def test_unreadable_projects_folder_is_one_clear_line(tmp_path):
    root = copy_tree("killed", tmp_path)
    unreadable_projects(root)
    before = manifest(root)
    done = wftop(root, "ls", "--json", prefix=unprivileged())
    assert done.returncode in (0, 2)
    assert "denied" in done.stderr.lower()
    assert "Traceback" not in done.stderr
    assert manifest(root) == before


def test_read_only_root_needs_no_write(tmp_path):
    """A root where nothing can be written (every mode without w, root's override dropped)."""
    world = tmp_path / "world"
    world.mkdir()
    world.chmod(0o755)
    root = copy_tree("killed", world)
    for path in [root, *root.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode & ~0o222)
    before = manifest(root)
    env = {**os.environ, "WFTOP_STATE_DIR": str(world / "state")}
    prefix = unprivileged()
    listing = wftop(root, "ls", "--json", prefix=prefix, env=env)
    assert listing.returncode == 0, listing.stderr
    assert [row["status"] for row in json.loads(listing.stdout)] == ["dead"]
    plan = wftop(root, "resume", RUN, "--dry-run", "--json", prefix=prefix, env=env)
    assert plan.returncode in (0, 3), plan.stderr
    assert json.loads(plan.stdout)["run_id"] == RUN
    assert manifest(root) == before
    state = world / "state"  # nothing there but what the agents' transcripts spent
    assert not state.exists() or [path.name for path in state.iterdir()] == ["spends"]


# -- size -----------------------------------------------------------------------------------


def test_hundred_thousand_line_journal(tmp_path):
    root = copy_tree("killed", tmp_path)
    journal = only_journal(root)
    with open(journal, "ab") as handle:
        for number in range(50_000):
            key = f"v2:{number:08x}"
            handle.write(
                b'{"type":"started","key":"%s","agentId":"b%d","label":"n%d"}\n'
                % (key.encode(), number, number)
            )
            handle.write(
                b'{"type":"result","key":"%s","agentId":"b%d","result":"ok"}\n'
                % (key.encode(), number)
            )
    (run,) = scan_roots([str(root)], processes=FakeProcessTable()).runs
    assert (run.fold.started_lines, run.fold.result_lines) == (50_005, 50_004)
    assert len(run.fold.calls) == 50_005
    assert [call.label for call in run.in_flight_calls] == ["a5"]


def test_ten_thousand_runs_in_one_session(tmp_path):
    root = copy_tree("killed", tmp_path)
    workflows = run_folder(root).parent
    for number in range(10_000):
        folder = workflows / f"wf_gen{number:05d}-x"
        folder.mkdir()
        (folder / "journal.jsonl").write_bytes(
            b'{"type":"started","key":"v2:k","agentId":"a%d","label":"only"}\n' % number
        )
    runs = scan_roots([str(root)], processes=FakeProcessTable()).runs
    assert len(runs) == 10_001
    assert {run.status.value for run in runs} == {"dead"}
    assert sum(run.fold.started_lines for run in runs) == 10_000 + 5
