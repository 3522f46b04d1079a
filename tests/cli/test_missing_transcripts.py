"""A run whose agent transcripts are gone (deleted, cleaned up) spent what nobody can tell:
its cost is a lower bound, and every surface says so (``≥``, ``missing_transcripts``,
``cost_is_lower_bound``) instead of adding $0 silently. A run copied into another session
(relocated) is not short of the transcripts its earlier attempts left in the first one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_ls_costs import independent_cost
from tests.corpus import copy_tree, only_journal
from wftop.core.cost.tally import SpendTally
from wftop.core.forecast.costs import call_costs
from wftop.core.index.coldpass import scan_roots
from wftop.core.system.procs import FakeProcessTable


def agent_of(journal: Path, label: str) -> str:
    for line in journal.read_text().splitlines():
        record = json.loads(line)
        if record.get("type") == "started" and record.get("label") == label:
            return str(record["agentId"])
    raise LookupError(label)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The ``clean`` tree (six calls, all priced) with a2's transcript deleted."""
    tree = copy_tree("clean", tmp_path)
    journal = only_journal(tree)
    (journal.parent / f"agent-{agent_of(journal, 'a2')}.jsonl").unlink()
    return tree


def wftop(tmp_path: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "wftop.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "WFTOP_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert done.returncode == 0, done.stderr
    return done


def test_ls_says_the_cost_is_a_lower_bound(root: Path, tmp_path: Path) -> None:
    complete = wftop(
        tmp_path,
        "ls",
        "--json",
        "--no-default-root",
        "--root",
        copy_tree("clean", tmp_path / "whole"),
    )
    (whole,) = json.loads(complete.stdout)
    assert (whole["missing_transcripts"], whole["cost_is_lower_bound"]) == (0, False)

    (row,) = json.loads(wftop(tmp_path, "ls", "--json", "--no-default-root", "--root", root).stdout)
    assert (row["missing_transcripts"], row["cost_is_lower_bound"]) == (1, True)
    cost, tokens = independent_cost(only_journal(root).parent)  # what the others spent
    assert cost is not None and row["cost_usd"] == pytest.approx(float(cost), rel=0.005)
    assert row["tokens"] == tokens and row["cost_usd"] < whole["cost_usd"]

    _header, line = wftop(tmp_path, "ls", "--no-default-root", "--root", root).stdout.splitlines()
    assert f"≥${row['cost_usd']:.4f}" in line


def test_stats_and_export_say_it_per_run_per_call_and_in_total(root: Path, tmp_path: Path) -> None:
    common = ("--no-default-root", "--root", root)
    stats = json.loads(wftop(tmp_path, "stats", "--json", *common).stdout)
    (run,) = stats["per_run"]
    for data in (stats, run):
        assert (data["missing_transcripts"], data["cost_is_lower_bound"]) == (1, True)
    text = wftop(tmp_path, "stats", *common).stdout
    assert f"spent: ≥ ${stats['cost_usd']:.4f} by the runs' calls" in text
    assert "1 transcript missing: at least this" in text

    run_id = run["run_id"]
    export = json.loads(wftop(tmp_path, "export", run_id, "--format", "json", *common).stdout)
    assert (export["missing_transcripts"], export["cost_is_lower_bound"]) == (1, True)
    calls = {call["label"]: call for call in export["calls"]}
    assert (calls["a2"]["missing_transcripts"], calls["a2"]["cost_is_lower_bound"]) == (1, True)
    assert (calls["a1"]["missing_transcripts"], calls["a1"]["cost_is_lower_bound"]) == (0, False)
    markdown = wftop(tmp_path, "export", run_id, *common).stdout
    assert "- spent by its calls: ≥ $" in markdown
    assert markdown.count("(1 transcript missing: at least this)") == 2  # the run and a2


def test_a_relocated_copy_is_not_short_of_the_first_sessions_transcripts(tmp_path: Path) -> None:
    tree = copy_tree("clean", tmp_path)
    journal = only_journal(tree)
    session_dir = journal.parents[3]
    copy = session_dir.parent / "0b6f1c7e-0000-4000-8000-000000000000"
    target = copy / "subagents" / "workflows" / journal.parent.name / "journal.jsonl"
    target.parent.mkdir(parents=True)
    shutil.copyfile(journal, target)  # the journal alone, as relocate copies it
    rows = json.loads(wftop(tmp_path, "ls", "--json", "--no-default-root", "--root", tree).stdout)
    assert len(rows) == 2
    assert [(row["missing_transcripts"], row["cost_is_lower_bound"]) for row in rows] == [
        (0, False),
        (0, False),
    ]


def test_a_result_whose_transcript_is_gone_is_forecast_at_the_median(root: Path) -> None:
    (run,) = scan_roots([str(root)], processes=FakeProcessTable()).runs
    costs = call_costs(run)
    a2 = next(call for call in run.fold.ordered_calls() if call.label == "a2")
    assert a2.has_result and not costs.last_of(a2.key)[1]
    assert costs.median is not None and costs.median.cost_usd
    assert costs.of(a2.key).cost_usd == costs.median.cost_usd  # not $0


def test_an_agent_killed_before_its_first_line_had_no_transcript_to_lose(tmp_path: Path) -> None:
    """The killed tree's a5 was in flight: without its transcript (killed before it wrote a
    line) nothing is missing; without a1's (it returned) one is."""
    tree = copy_tree("killed", tmp_path)
    journal = only_journal(tree)
    (journal.parent / f"agent-{agent_of(journal, 'a5')}.jsonl").unlink()
    common = ("ls", "--json", "--no-default-root", "--root", tree)
    (row,) = json.loads(wftop(tmp_path, *common).stdout)
    assert (row["missing_transcripts"], row["cost_is_lower_bound"]) == (0, False)
    (journal.parent / f"agent-{agent_of(journal, 'a1')}.jsonl").unlink()
    (row,) = json.loads(wftop(tmp_path, *common).stdout)
    assert (row["missing_transcripts"], row["cost_is_lower_bound"]) == (1, True)


def test_a_live_tally_says_so_as_results_come_and_transcripts_come_back(tmp_path: Path) -> None:
    """The tally a live list keeps (lines read as they come) counts a returned attempt
    without its transcript as missing, and stops when the transcript is there again."""
    tree = copy_tree("clean", tmp_path)
    journal = only_journal(tree)
    a2 = agent_of(journal, "a2")
    transcript = journal.parent / f"agent-{a2}.jsonl"
    kept = transcript.read_bytes()
    transcript.unlink()
    tally = SpendTally()
    tally.started([("k2", a2)])
    assert tally.total(str(journal.parent)).missing == 0  # in flight: it may not have one yet
    tally.returned([("k2", a2)])
    assert tally.total(str(journal.parent)).lower_bound
    transcript.write_bytes(kept)
    tally.changed([a2])
    spent = tally.total(str(journal.parent))
    assert spent.missing == 0 and spent.tokens.total > 0


def test_an_agent_started_twice_under_its_call_is_missing_twice_as_lines_come(
    tmp_path: Path,
) -> None:
    """A damaged journal starts one agent twice under one key and returns it, its transcript
    gone: the run's spend counts each attempt (two missing), and so does the tally a live
    list keeps, whatever order the lines come in and whether the transcript was read first."""
    tree = copy_tree("clean", tmp_path)
    journal = only_journal(tree)
    a2 = agent_of(journal, "a2")
    (journal.parent / f"agent-{a2}.jsonl").unlink()
    folder = str(journal.parent)
    orders = [
        ["started", "started", "returned"],
        ["started", "returned", "started"],
        ["started", "total", "returned", "total", "started", "returned"],
        ["returned", "started", "total", "started"],
    ]
    for order in orders:
        tally = SpendTally()
        for step in order:
            if step == "started":
                tally.started([("k2", a2)])
            elif step == "returned":
                tally.returned([("k2", a2)])
            else:
                tally.total(folder)
        assert tally.total(folder).missing == 2, order
