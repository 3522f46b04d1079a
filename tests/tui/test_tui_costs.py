"""The TUI's dollars, as pieces: the COST cell of a run or a call, the header's total for the
runs listed, the call rows' spend, and the plan's table fitted to 60, 100 and 200 columns."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import tree
from wftop.core.config import ConfigError, parse_config
from wftop.core.cost.runs import run_spend
from wftop.core.cost.tokens import Spend
from wftop.core.cost.usage import Spends
from wftop.core.index.coldpass import scan_roots
from wftop.core.resume.plan import make_plan
from wftop.core.row import RunRow
from wftop.core.system.procs import FakeProcessTable
from wftop.tui.calls import CallRow, call_rows
from wftop.tui.format import cost_cell, cost_total, row_cost_cell, rows_cost_total, spent_line
from wftop.tui.widgets.plan_table import table_lines

NOW = 1_800_000_000.0


def the_run(root: Path) -> Any:
    (run,) = scan_roots([str(root)], processes=FakeProcessTable(), now=lambda: NOW).runs
    return run


def test_a_cost_cell_says_dollars_at_least_or_unknown() -> None:
    assert cost_cell(0.01814) == "$0.0181"
    assert cost_cell(12.4) == "$12.40"
    assert cost_cell(0.00001) == "<$0.0001"
    assert cost_cell(0.01814, lower_bound=True) == "≥$0.0181"
    assert cost_cell(None) == "$?"
    assert cost_cell(None, lower_bound=True) == "$?"


def test_the_total_of_the_runs_listed() -> None:
    assert cost_total([]) == ""
    assert cost_total([(0.5, False), (0.25, False)]) == "$0.7500 spent"
    assert cost_total([(1.5, False), (0.25, True)]) == "≥ $1.75 spent"
    assert cost_total([(1.5, False), (None, False)]) == "$1.50 + $? spent"


def test_each_call_row_carries_what_its_agent_spent() -> None:
    run = the_run(tree("costs"))
    spends = Spends()
    spent = run_spend(run, spends)
    by_agent = {
        agent: spends.of(f"{run.folder.path}/agent-{agent}.jsonl") or Spend()
        for call in run.fold.ordered_calls()
        for agent in call.agent_ids
    }
    rows = [row for row in call_rows(run, spends=by_agent) if isinstance(row, CallRow)]
    assert [row.spend for row in rows] == [
        spent.of(call) for call in run.fold.ordered_calls()
    ]  # one attempt each: the call's spend is its agent's
    assert all(row.spend is None for row in call_rows(run) if isinstance(row, CallRow))


def plan_of(name: str) -> Any:
    return make_plan(
        the_run(tree(name)),
        processes=FakeProcessTable(),
        now=NOW,
        claude_bin="claude",
        cli_version=(2, 1, 332),
    )


def plain(lines: list[Any]) -> list[str]:
    return [line.plain for line in lines]


def test_the_plan_table_at_100_columns_has_every_column() -> None:
    lines = plain(table_lines(plan_of("killed"), 100))
    assert lines[0].split() == [
        "STRATEGY",
        "CACHE",
        "LIVE",
        "RISK",
        "TOKENS",
        "FORECAST",
        "DOLLARS",
    ]
    assert lines[1].startswith("▶ resume-owner*")
    assert lines[1].endswith("estimate ≥ $0.0004, calls after a5 unknown")
    assert lines[2].startswith("  relocate ") and lines[3].startswith("  surgical ")
    assert lines[4] == (
        "resume-owner resumes the owner session's conversation: a1, a2, a3, a4 from cache; "
        "a5 live; then the calls not reached yet"
    )
    assert lines[5] == "* recommended"
    assert all(len(line) <= 100 for line in lines[:4])


def test_the_plan_table_at_60_columns_gives_up_the_tokens_and_keeps_the_dollars() -> None:
    lines = plain(table_lines(plan_of("killed"), 60))
    assert "TOKENS" not in lines[0] and "DOLLARS" in lines[0]
    assert all(len(line) <= 60 for line in lines[:4])
    assert lines[1].startswith("▶ resume-owner*") and "≥ $0.0004" in lines[1]
    assert "1+" in lines[1]


def test_the_plan_table_shows_a_count_of_six_digits_whole(monkeypatch: Any) -> None:
    from wftop.tui.widgets import plan_table

    plan = plan_of("killed")
    rows = [replace(row, cached="100004") for row in plan_table.strategy_rows(plan)]
    monkeypatch.setattr(plan_table, "strategy_rows", lambda _plan: rows)
    for width in (60, 100, 200):
        lines = plain(table_lines(plan, width))
        assert lines[1].startswith("▶ resume-owner* 100004 ")
        assert all(len(line) <= width for line in lines[:4])


def test_the_plan_table_marks_the_selected_row_bold() -> None:
    lines = table_lines(plan_of("killed"), 200)
    bold = [line.plain for line in lines if any("bold" in str(s.style) for s in line.spans)]
    assert bold == [lines[0].plain, lines[1].plain]


def test_the_run_summary_line_of_what_it_spent() -> None:
    run = the_run(tree("costs"))
    spends = Spends()
    calls = run_spend(run, spends).total
    session = spends.of(run.folder.transcript)
    assert session is not None
    line = spent_line(calls, session)
    assert line.startswith("$? (") and f"by its calls ({calls.tokens.total:,} tokens)" in line
    assert line.endswith(f" · {session.dollars_text()} by the session's own turns")
    gone = Spend(calls.tokens, 0.0181, (), 3, missing=2)
    assert spent_line(gone, None) == (
        f"≥ $0.0181 by its calls ({calls.tokens.total:,} tokens) "
        "(2 transcripts missing: at least this)"
    )


def test_the_config_budget_is_a_number_of_dollars() -> None:
    assert parse_config({}).max_usd is None
    assert parse_config({"max_usd": 2}).max_usd == 2.0
    assert parse_config({"max_usd": 0.5}).max_usd == 0.5
    for bad in (-1, True, "2", float("nan"), float("inf")):
        with pytest.raises(ConfigError, match="max_usd must be"):
            parse_config({"max_usd": bad}, "cfg.toml")


def test_a_run_whose_spend_is_to_come_reads_an_ellipsis_and_holds_the_total_back() -> None:
    priced = RunRow("wf_abcdef", "s", "p", calls=2, cost_usd=0.01814)
    pending = replace(priced, run_id="wf_ghijkl", cost_usd=None, cost_pending=True)
    assert row_cost_cell(priced) == "$0.0181"
    assert row_cost_cell(pending) == "…"
    assert row_cost_cell(replace(pending, calls=0)) == ""
    assert rows_cost_total([priced]) == "$0.0181 spent"
    assert rows_cost_total([priced, pending]) == ""
