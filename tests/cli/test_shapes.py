"""Every shape a run leaves on disk is a run, read the same by every command.

The trees are ``tests/data/shapes`` (see its README: one made by the real CLI, the others real
trees with files taken away, laid out as claude-code-log's and a Workflow dashboard's tests lay
theirs out), and copies of the corpus changed where a test says.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.corpus import DATA, copy_tree, only_journal
from wftop.cli.main import main

SHAPES = DATA / "shapes"
THREW = "wf_6b641cd5-a2b"
NO_JOURNAL = "wf_44b36b23-fcc"
KILLED = "wf_c4e8dc39-03f"


def wftop(capfd: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capfd.readouterr()
    return code, out, err


def roots(tree: Path) -> list[str]:
    return ["--no-default-root", "--root", str(tree)]


def ls(capfd: pytest.CaptureFixture[str], tree: Path) -> list[dict[str, object]]:
    code, out, err = wftop(capfd, "ls", "--json", "--no-cache", *roots(tree))
    assert code == 0 and err == "", err
    rows: list[dict[str, object]] = json.loads(out)
    return rows


def test_a_snapshot_alone_is_a_failed_run_that_says_what_its_script_threw(capfd):
    tree = SHAPES / "snapshot-only"
    assert not list(tree.glob("projects/*/*/subagents"))
    (row,) = ls(capfd, tree)
    assert (row["run_id"], row["status"], row["name"], row["calls"]) == (
        THREW,
        "failed",
        "ds-pipeline",
        0,
    )
    assert row["journal"] is None and row["unreadable_lines"] == 0
    (stats,) = json.loads(wftop(capfd, "stats", "--json", *roots(tree))[1])["per_run"]
    assert stats["cause"] == "script_error"
    code, out, _err = wftop(capfd, "export", THREW, "--format", "json", *roots(tree))
    assert code == 0 and json.loads(out)["journal"] is None
    code, out, _err = wftop(capfd, "resume", THREW, "--dry-run", "--json", *roots(tree))
    plan = json.loads(out)
    assert code == 3 and plan["refusal"]["forceable"] is False
    assert plan["refusal"]["reason"].startswith("the journal is not on disk")
    assert "permission" not in json.dumps(plan["refusal"])
    assert plan["stop_cause"]["cause"] == "script_error"
    assert "evaluating 'args.batches'" in plan["stop_cause"]["evidence"]
    assert wftop(capfd, "resume", THREW, "--dry-run", "--force", *roots(tree))[0] == 3


def test_a_snapshot_alone_with_no_notice_is_no_dead_worker(tmp_path, capfd):
    """claude-code-log's session names the run but holds no completion notice: the snapshot
    says how the run ended, so scan reads it instead of advising to re-spawn it."""
    tree = tmp_path / "tree"
    shutil.copytree(SHAPES / "snapshot-only", tree)
    (transcript,) = tree.glob("projects/*/*.jsonl")
    kept = [line for line in transcript.read_text().splitlines() if "task-notification" not in line]
    transcript.write_text("\n".join(kept) + "\n")
    code, out, _err = wftop(capfd, "scan", "--session", str(transcript), "--json")
    report = json.loads(out)
    assert code == 0 and report["dead_workers"] == []
    (worker,) = report["workers"]
    assert (worker["status"], worker["reported_by"], worker["succeeded"]) == (
        "failed",
        "snapshot",
        False,
    )
    assert worker["threw"]["kind"] == "script_error"
    text = wftop(capfd, "scan", "--session", str(transcript))[1]
    assert "threw:    TypeError: undefined is not an object (evaluating 'args.batches')" in text


def test_a_script_that_threw_leaves_a_launched_only_journal_and_is_the_same_run(capfd):
    tree = SHAPES / "script-threw"
    (row,) = ls(capfd, tree)
    assert (row["status"], row["name"], row["calls"]) == ("failed", "ds-pipeline", 0)
    assert str(row["journal"]).endswith(f"{THREW}/journal.jsonl")
    (stats,) = json.loads(wftop(capfd, "stats", "--json", *roots(tree))[1])["per_run"]
    assert stats["cause"] == "script_error"


def test_a_folder_without_its_journal_reads_its_calls_from_the_snapshot(capfd):
    tree = SHAPES / "no-journal"
    (row,) = ls(capfd, tree)
    assert row["journal"] is None and row["unreadable_lines"] == 0
    assert row["status"] == "completed" and row["calls"] == 6
    assert row["failures"] == [{"label": "a6", "kind": "rate_limited"}]
    code, out, err = wftop(capfd, "export", NO_JOURNAL, "--format", "json", *roots(tree))
    assert code == 0 and "vanished" not in err
    calls = json.loads(out)["calls"]
    assert [(c["label"], c["phase"], c["state"]) for c in calls] == [
        ("a1", "Plan", "done"),
        ("a2", "Fan", "done"),
        ("a3", "Fan", "done"),
        ("a4", "Fan", "done"),
        ("a5", "Finish", "done"),
        ("a6", "Finish", "failed"),
    ]
    assert calls[0]["result"] == '{"agent":"a1","ok":true,"n":1}'  # the snapshot's preview
    plan = json.loads(wftop(capfd, "resume", NO_JOURNAL, "--dry-run", "--json", *roots(tree))[1])
    assert plan["refusal"]["reason"].startswith("the journal is not on disk")
    assert plan["forecast"]["cached"] == []  # no cache keys to forecast from


def test_a_folder_of_agent_files_alone_reads_one_call_per_agent_sidecar(capfd):
    (row,) = ls(capfd, SHAPES / "no-journal-dead")
    assert (row["status"], row["calls"], row["journal"]) == ("dead", 5, None)
    assert row["in_flight"] == ["a1", "a2", "a3", "a4", "a5"]  # as spawned, by sidecar labels
    assert row["last_activity"] is not None


def test_a_missing_snapshot_and_script_meta_still_name_the_run_by_its_script_file(tmp_path, capfd):
    root = copy_tree("killed", tmp_path)
    (script,) = root.glob("projects/*/*/workflows/scripts/*.js")
    script.write_text(script.read_text().replace("name: 'mock-six'", "title: 'x'"))
    (row,) = ls(capfd, root)
    assert row["name"] == "mock-six"
    renamed = script.with_name(f"ds-pipeline-{KILLED}.js")
    script.rename(renamed)
    (row,) = ls(capfd, root)
    assert row["name"] == "ds-pipeline"
    export = json.loads(wftop(capfd, "export", KILLED, "--format", "json", *roots(root))[1])
    assert export["name"] == "ds-pipeline"


def test_a_line_of_a_type_the_cli_does_not_write_is_counted_and_named(tmp_path, capfd):
    root = copy_tree("killed", tmp_path)
    journal = only_journal(root)
    lines = journal.read_bytes().count(b"\n")
    with open(journal, "ab") as handle:
        handle.write(b'{"type":"checkpoint","key":"v2:x"}\n')
    code, out, err = wftop(capfd, "ls", "--json", "--no-cache", *roots(root))
    assert code == 0 and json.loads(out)[0]["unreadable_lines"] == 1
    assert err.strip() == (
        f"wftop: {journal}:{lines + 1}: a line of type 'checkpoint', which wftop does not know "
        "(the CLI skips it too)"
    )


def test_a_run_id_the_cli_does_not_write_is_no_run_in_any_command(tmp_path, capfd):
    """claude-code-log's fixture names its run folder ``wf_sp01``: the CLI would neither
    write nor resume that id, so it is said once and read by no command."""
    root = copy_tree("killed", tmp_path)
    folder = only_journal(root).parent
    odd = folder.with_name("wf_sp01")
    shutil.copytree(folder, odd)
    code, out, err = wftop(capfd, "ls", "--json", "--no-cache", *roots(root))
    assert [row["run_id"] for row in json.loads(out)] == [KILLED]
    assert (
        err.strip()
        == f"wftop: {odd}:0: not a run id the CLI writes (wf_ and 6 or more of a-z, 0-9, -)"
    )
    code, _out, err = wftop(capfd, "export", "wf_sp01", *roots(root))
    assert code == 2 and "no run wf_sp01" in err
