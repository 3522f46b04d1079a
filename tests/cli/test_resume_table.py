"""``wftop resume --dry-run`` (text): one plan, the table. One row per strategy with its cells,
the selected and recommended rows marked, and one plain line under it; no other line per
strategy."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.cli.test_resume_exact import argv, root, served_a1_only, with_rehearsal
from tests.core.test_plan_cost import grow
from wftop.cli.main import main

__all__ = ["root"]  # the killed tree, aged and with its cwd present (a fixture)

STRATEGIES = ("resume-owner", "relocate", "surgical")


def table(text: str) -> tuple[list[list[str]], list[str]]:
    """The table's rows as their cells (the marker first), and the lines under it."""
    lines = text.splitlines()
    (head,) = [n for n, line in enumerate(lines) if line.startswith("forecast ")]
    assert lines[head].split() == [
        "forecast",
        "strategy",
        "cache",
        "live",
        "risk",
        "tokens",
        "forecast",
        "dollars",
    ]
    edges = (11, 26, 32, 38, 43, 57, 66, None)  # the columns' widths: 14 5 5 4 13 8, then dollars
    rows = [
        [line[9], *(line[a:b].strip() for a, b in zip(edges, edges[1:], strict=False))]
        for line in lines[head + 1 : head + 1 + len(STRATEGIES)]
    ]
    return rows, lines[head + 1 + len(STRATEGIES) :]


def test_the_text_plan_is_the_table_one_row_per_strategy(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv(root)) == 0
    text = capsys.readouterr().out
    rows, under = table(text)
    cells = ["4", "1+", "0", "≥ 30", "estimate", "≥ $0.0004, calls after a5 unknown"]
    assert rows == [
        ["→", "resume-owner*", *cells],
        [" ", "relocate", *cells],
        [" ", "surgical", *cells],
    ]
    assert under[0].strip() == (
        "resume-owner resumes the owner session's conversation: a1, a2, a3, a4 from cache; "
        "a5 live; then the calls not reached yet"
    )
    assert under[1].strip() == "(* recommended)"
    lines = text.splitlines()  # no line per strategy besides its row
    assert [line for line in lines if "relocate" in line or "surgical" in line] == [
        line for line in lines if line[11:].startswith(("relocate", "surgical"))
    ]
    assert sum(line.startswith("forecast") for line in lines) == 1
    assert "live: " not in text and "cached: " not in text


def test_an_exact_forecast_turns_its_row_exact_and_says_what_rehearsed_it(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with_rehearsal(monkeypatch, served_a1_only)
    assert main(argv(root, "--exact")) == 0
    rows, under = table(capsys.readouterr().out)
    owner, relocate, surgical = rows
    assert owner[:5] == ["→", "resume-owner*", "1", "5", "0"] and owner[6] == "exact"
    assert relocate[6] == surgical[6] == "estimate"
    assert under[0].strip() == (
        "resume-owner resumes the owner session's conversation: a1 from cache; "
        "a2, a3, a4, a5 live; a2, a3, a4 re-run finished work; then 1 call not reached yet "
        "(exact, rehearsed with claude 2.1.332)"
    )


def test_a_long_list_of_calls_is_counted_and_named_by_its_ranges(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The plan of a run of many calls says how many come from cache and their ranges, not
    every label (100,000 labels made a line of 870 KB); ``--json`` keeps every call."""
    grow(root, 30)
    past = time.time() - 600  # aged again, as the fixture's tree
    for path in root.rglob("*"):
        os.utime(path, (past, past))
    assert main(argv(root)) == 0
    rows, under = table(capsys.readouterr().out)
    assert rows[0][2:4] == ["34", "1+"]
    assert under[0].strip() == (
        "resume-owner resumes the owner session's conversation: 34 calls (g0–g29, a1–a4) "
        "from cache; a5 live; then the calls not reached yet"
    )
    assert main(argv(root, "--json")) == 0
    forecast = json.loads(capsys.readouterr().out)["forecast"]
    assert forecast["cached"] == [*(f"g{n}" for n in range(30)), "a1", "a2", "a3", "a4"]
    assert [call["label"] for call in forecast["calls"]] == [*forecast["cached"], "a5"]
