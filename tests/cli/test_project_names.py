"""Projects are named so a listing tells them apart: the shortest tail of each working
directory that no other project listed ends with, per listing, never kept in the rows cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.corpus import copy_tree, only_journal
from wftop.cli.main import main
from wftop.core.index.projects import project_names, unique_tails

TREES = ("killed", "mid-failure", "api-errors-429")
"""Three real trees whose sessions ran in ``…/kill-resume/proj``, ``…/mid-failure-resume/proj``
and ``…/api-errors-resume/proj``: every one's last folder is ``proj``."""
NAMES = {
    "wf_c4e8dc39-03f": "kill-resume/proj",
    "wf_6838482f-c9a": "mid-failure-resume/proj",
    "wf_44b36b23-fcc": "api-errors-resume/proj",
}


def test_the_shortest_tail_no_other_path_ends_with():
    assert unique_tails(["/w/a/proj", "/w/b/proj", "/x/web", "/a/b", "/x/a/b", "/p/q/r"]) == {
        "/w/a/proj": "a/proj",
        "/w/b/proj": "b/proj",
        "/x/web": "web",
        "/a/b": "/a/b",  # every tail of it is the other's: the whole path
        "/x/a/b": "x/a/b",
        "/p/q/r": "r",
    }
    # a project whose cwd is unknown reads its slug's end, the whole slug when that is taken
    assert project_names([("/w/proj", "-w-proj"), (None, "-v-proj"), (None, "-v-web")]) == {
        "/w/proj": "proj",
        "slug:-v-proj": "-v-proj",
        "slug:-v-web": "web",
    }


@pytest.fixture
def roots(tmp_path: Path) -> list[str]:
    argv = ["--no-default-root"]
    for name in TREES:
        argv += ["--root", str(copy_tree(name, tmp_path))]
    return argv


def run(capfd: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    out, _err = capfd.readouterr()
    return out


def test_ls_and_stats_name_each_project_by_what_tells_it_apart(capfd, roots, tmp_path, monkeypatch):
    monkeypatch.setenv("WFTOP_CACHE_DIR", str(tmp_path / "cache"))
    for cache in (["--no-cache"], [], []):  # without the cache, writing it, reading it
        rows = json.loads(run(capfd, "ls", "--json", *cache, *roots))
        assert {row["run_id"]: row["project_name"] for row in rows} == NAMES, cache
    table = run(capfd, "ls", *roots)
    for run_id, name in NAMES.items():
        (line,) = [line for line in table.splitlines() if run_id in line]
        assert name[:17] in line
    stats = json.loads(run(capfd, "stats", "--json", *roots))["per_run"]
    assert {row["run_id"]: row["project_name"] for row in stats} == NAMES


def test_the_rows_cache_keeps_no_listings_name(capfd, roots, tmp_path, monkeypatch):
    monkeypatch.setenv("WFTOP_CACHE_DIR", str(tmp_path / "cache"))
    run(capfd, "ls", "--json", *roots)  # the three listed together fill the cache
    alone = ["--no-default-root", *roots[1:3]]
    (row,) = json.loads(run(capfd, "ls", "--json", *alone))
    assert row["project_name"] == "proj"  # alone in its listing, its last folder tells it


def test_a_run_launched_with_a_script_path_is_named_by_its_launch_receipt(capfd, tmp_path):
    """``R`` relaunches a script by its path: the CLI keeps no script of the new run and
    writes no snapshot until it ends (none when it dies), so only the session's launch
    receipt names it. The tree: ``killed`` with a second run, launched so, in its session."""
    root = copy_tree("killed", tmp_path)
    journal = only_journal(root)
    session = journal.parents[3]
    fresh = "wf_0f0f0f0f-abc"
    (journal.parent.parent / fresh).mkdir()
    (journal.parent.parent / fresh / "journal.jsonl").write_bytes(journal.read_bytes())
    transcript = session.with_suffix(".jsonl")
    receipt = next(
        line for line in transcript.read_text().splitlines() if '"async_launched"' in line
    )
    transcript.write_text(transcript.read_text() + receipt.replace("wf_c4e8dc39-03f", fresh) + "\n")
    rows = json.loads(run(capfd, "ls", "--json", "--no-cache", "--no-default-root",
                          "--root", str(root)))  # fmt: skip
    assert {row["run_id"]: row["name"] for row in rows} == {
        "wf_c4e8dc39-03f": "mock-six",
        fresh: "mock-six",
    }


def test_the_same_run_under_two_roots_says_which_root(capfd, tmp_path):
    one = copy_tree("killed", tmp_path / "one")
    two = copy_tree("killed", tmp_path / "two")
    both = ["--no-default-root", "--root", str(one), "--root", str(two)]
    header, *lines = run(capfd, "ls", "--no-cache", *both).splitlines()
    assert header.startswith("ROOT ") and len(lines) == 2
    assert sorted(line.split()[0] for line in lines) == sorted([str(one), str(two)])
    header, *lines = run(capfd, "scan", "--list-sessions", *both).splitlines()[:3]
    assert header.startswith("ROOT ")
    assert sorted(line.split()[0] for line in lines) == sorted([str(one), str(two)])
    alone = run(capfd, "ls", "--no-cache", "--no-default-root", "--root", str(one))
    assert alone.startswith("STATUS")  # one copy: no root to tell apart
