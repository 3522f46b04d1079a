"""``wftop resume --dry-run --exact``: the rehearsed forecast, marked, and its failures.

A fake rehearsal stands in for the installed CLI here (the real one:
``tests/e2e/test_resume_exact_cli.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import copy_tree, only_journal, own_session_ids
from wftop.cli import exact as exact_module
from wftop.cli.commands import resume as resume_command
from wftop.cli.main import main
from wftop.core.config import Config
from wftop.core.forecast.exact import RehearsalFailed, Seen, exact_forecast
from wftop.core.forecast.fates import Forecast
from wftop.core.resume.plan import Plan
from wftop.core.resume.rehearse import Rehearse
from wftop.core.system.procs import FakeProcessTable

RUN = "wf_c4e8dc39-03f"
"""The ``killed`` tree's run: a1–a4 returned, a5 in flight."""


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    tree = copy_tree("killed", tmp_path)
    own_session_ids(tree)  # a rehearsal resumes this copy: under an id no other copy has
    cwd = tmp_path / "proj"  # the session's cwd, here: a gone cwd is refused even with --force
    cwd.mkdir()
    for path in tree.rglob("*.jsonl"):
        data = path.read_bytes()
        path.write_bytes(data.replace(b"/home/dev/work/kill-resume/proj", str(cwd).encode()))
    past = time.time() - 600
    for path in tree.rglob("*"):
        os.utime(path, (past, past))
    monkeypatch.setenv("WFTOP_STATE_DIR", str(tmp_path / "state"))
    # The machine's processes stay out of the guard: another test resuming this corpus
    # session (the same session id) would read as a live resume of it.
    monkeypatch.setattr(resume_command, "default_table", FakeProcessTable)
    return tree


def argv(root: Path, *extra: str) -> list[str]:
    return [
        "resume",
        RUN,
        "--dry-run",
        "--no-default-root",
        "--root",
        str(root),
        "--claude",
        "/nonexistent/claude",
        *extra,
    ]


def served_a1_only(plan: Plan, /) -> Forecast:
    fold = plan.run.fold
    agent = next(c.result_agent_id for c in fold.ordered_calls() if c.label == "a1")
    seen = Seen(frozenset({agent}), 6, True, "2.1.332")
    return exact_forecast(fold, plan.strategy.value, seen)


def with_rehearsal(monkeypatch: pytest.MonkeyPatch, fake: Rehearse) -> list[tuple[Any, ...]]:
    asked: list[tuple[Any, ...]] = []

    def rehearser(claude: str | None, timeout: float) -> Rehearse:
        asked.append((claude, timeout))
        return fake

    monkeypatch.setattr(resume_command, "rehearser", rehearser)
    return asked


def test_exact_prints_the_rehearsed_forecast_and_marks_it(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    asked = with_rehearsal(monkeypatch, served_a1_only)
    assert main(argv(root, "--exact", "--json", "--exact-timeout", "30")) == 0
    plan = json.loads(capsys.readouterr().out)
    assert asked == [("/nonexistent/claude", 30.0)]
    forecast = plan["forecast"]
    assert (forecast["exact"], forecast["cli_version"]) == (True, "2.1.332")
    assert forecast["cached"] == ["a1"] and forecast["order"] == "rehearsal"
    calls = forecast.pop("calls")
    assert [call["label"] for call in calls] == ["a1", "a2", "a3", "a4", "a5"]
    assert plan["forecasts"]["resume-owner"] == forecast
    assert plan["forecasts"]["surgical"]["exact"] is False
    assert plan["rehearsal"]["exact"] is True and plan["rehearsal"]["error"] is None

    assert main(argv(root, "--exact")) == 0
    text = capsys.readouterr().out
    rows = {
        line[11:25].strip(): line[57:66].strip()
        for line in text.splitlines()
        if line[9:10] in "→ " and line[11:25].strip() in {"resume-owner*", "relocate", "surgical"}
    }
    assert rows == {"resume-owner*": "exact", "relocate": "estimate", "surgical": "estimate"}
    assert "(exact, rehearsed with claude 2.1.332)" in text


def test_without_exact_nothing_is_rehearsed_and_the_forecast_says_estimate(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    asked = with_rehearsal(monkeypatch, served_a1_only)
    assert main(argv(root, "--json")) == 0
    plan = json.loads(capsys.readouterr().out)
    assert asked == [] and "rehearsal" not in plan
    assert (plan["forecast"]["exact"], plan["forecast"]["cli_version"]) == (False, None)


def test_a_rehearsal_out_of_time_says_so_in_one_line_and_exits_6(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class TimedOut(RehearsalFailed):
        timed_out = True

    def slow(plan: Plan, /) -> Forecast:
        raise TimedOut("the rehearsal did not finish within 2 s (claude 2.1.332)")

    with_rehearsal(monkeypatch, slow)
    assert main(argv(root, "--exact", "--json")) == exact_module.EXIT_NO_EXACT == 6
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        "wftop: no exact forecast: the rehearsal did not finish within 2 s (claude 2.1.332)"
        " (--exact-timeout SECONDS allows longer); the plan shows the estimate"
    ]
    plan = json.loads(out)
    assert plan["forecast"]["exact"] is False
    assert plan["rehearsal"]["exact"] is False and "within 2 s" in plan["rehearsal"]["error"]


def test_a_refusal_outranks_a_failed_rehearsal(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def failing(plan: Plan, /) -> Forecast:
        raise RehearsalFailed("claude 2.1.332 exited with 1 while rehearsing: boom")

    with_rehearsal(monkeypatch, failing)
    os.utime(only_journal(root))  # it grew just now: the guard refuses
    assert main(argv(root, "--exact")) == 3
    assert "no exact forecast: claude 2.1.332 exited with 1" in capsys.readouterr().err


def test_a_timeout_that_is_no_positive_number_is_a_usage_error(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv(root, "--exact", "--exact-timeout", "0"))
    assert stopped.value.code == 2
    assert "expected a number of seconds above 0 and at most 31622400 (a year), got '0'" in (
        capsys.readouterr().err
    )


def test_without_a_claude_the_process_says_so_in_one_line(root: Path) -> None:
    """As a process, with the real rehearsal module: no binary at the configured path."""
    done = subprocess.run(
        [sys.executable, "-m", "wftop.cli", *argv(root, "--exact", "--json")],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": "/nonexistent"},
        timeout=60,
    )
    assert done.returncode == 6, done.stderr
    assert done.stderr.splitlines() == [
        "wftop: no exact forecast: no claude CLI to rehearse with (--claude, the config's "
        "claude, $WFTOP_CLAUDE, then claude on PATH); the plan shows the estimate"
    ]
    assert json.loads(done.stdout)["forecast"]["exact"] is False


def test_the_tui_gets_a_rehearsal_unless_resuming_is_off_or_the_config_says_no() -> None:
    assert exact_module.tui_rehearser(Config(), read_only=False) is not None
    assert exact_module.tui_rehearser(Config(), read_only=True) is None
    assert exact_module.tui_rehearser(Config(exact_forecast=False), read_only=False) is None
