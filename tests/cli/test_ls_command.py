"""``wftop ls`` as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.corpus import copy_tree, only_journal, tree


def wftop(*args, env=None):
    merged = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "wftop.cli", *args],
        capture_output=True,
        text=True,
        env=merged,
        timeout=60,
    )


def test_json_lists_every_run_of_every_root():
    done = wftop(
        "ls",
        "--no-default-root",
        "--root",
        str(tree("clean")),
        "--root",
        str(tree("killed")),
        "--json",
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert sorted(row["status"] for row in rows) == ["completed", "dead"]
    dead = next(row for row in rows if row["status"] == "dead")
    assert dead["in_flight"] == ["a5"]
    assert dead["journal"].endswith("journal.jsonl") and os.path.isabs(dead["journal"])
    assert dead["cwd"] == "/home/dev/work/kill-resume/proj"
    assert dead["name"] == "mock-six"
    assert dead["last_activity"].endswith("Z")


def test_default_root_comes_from_claude_config_dir():
    done = wftop("ls", "--json", env={"CLAUDE_CONFIG_DIR": str(tree("killed-in-parallel"))})
    assert [row["in_flight"] for row in json.loads(done.stdout)] == [["a3"]]


def test_table_fits_one_hundred_columns():
    done = wftop(
        "ls", "--no-default-root", "--root", str(tree("killed")), "--root", str(tree("mid-failure"))
    )
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert len(lines) == 3
    assert max(len(line) for line in lines) <= 100
    assert "dead" in done.stdout and "a5" in done.stdout


def test_unreadable_lines_go_to_stderr_and_the_scan_still_succeeds(tmp_path):
    root = copy_tree("killed", tmp_path)
    journal = only_journal(root)
    lines = journal.read_bytes().count(b"\n")
    with open(journal, "ab") as handle:
        handle.write(b"{broken\n")
    done = wftop("ls", "--no-default-root", "--root", str(root), "--json")
    assert done.returncode == 0
    assert done.stderr.strip() == f"wftop: {journal}:{lines + 1}: not valid JSON"
    assert json.loads(done.stdout)[0]["unreadable_lines"] == 1


def test_missing_root_is_one_line_and_exit_two(tmp_path):
    done = wftop("ls", "--no-default-root", "--root", str(tmp_path / "nope"))
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert "nope: no such directory" in done.stderr


def test_missing_default_root_alone_is_an_error(tmp_path):
    done = wftop("ls", env={"CLAUDE_CONFIG_DIR": str(tmp_path / "absent")})
    assert done.returncode == 2
    assert "absent: no such directory" in done.stderr


def test_ages_are_read_against_the_clock_wftop_now_fixes(tmp_path):
    from datetime import datetime

    root = copy_tree("killed", tmp_path)
    long_ago = 1_700_000_000
    for path in root.rglob("*"):
        os.utime(path, (long_ago, long_ago), follow_symlinks=False)
    args = ("ls", "--no-default-root", "--root", str(root), "--no-cache")
    (row,) = json.loads(wftop(*args, "--json").stdout)
    last = datetime.fromisoformat(row["last_activity"].replace("Z", "+00:00")).timestamp()
    three_days_on = str(last + 3 * 86400 + 120)
    done = wftop(*args, env={"WFTOP_NOW": three_days_on})
    assert done.returncode == 0, done.stderr
    header, line = done.stdout.splitlines()
    end = header.index("AGE") + len("AGE")  # the column is right-aligned under its name
    assert line[end - 4 : end].strip() == "3d"
    assert wftop(*args, env={"WFTOP_NOW": three_days_on}).stdout == done.stdout


def test_project_is_the_slug_in_ls_and_stats_and_project_name_the_short_name():
    roots = ["--no-default-root", "--root", str(tree("killed")), "--root", str(tree("clean"))]
    listed = json.loads(wftop("ls", "--json", *roots).stdout)
    done = wftop("stats", "--json", *roots)
    assert done.returncode == 0, done.stderr
    stats = {run["run_id"]: run for run in json.loads(done.stdout)["per_run"]}
    assert len(listed) == len(stats) == 2
    for row in listed:
        slug = row["journal"].split(os.sep)[-6]
        assert row["project"] == stats[row["run_id"]]["project"] == slug
        assert row["project_name"] == stats[row["run_id"]]["project_name"]
        # both ran in a folder named proj: each reads the tail of its cwd that tells it apart
        assert row["cwd"].endswith("/" + row["project_name"])
        assert row["project_name"] != os.path.basename(row["cwd"])
        assert row["root"] == stats[row["run_id"]]["root"]
