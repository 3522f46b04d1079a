"""Every surface tells the same story about every call of every tree the real CLI wrote.

``ls --json``, ``export --format json``, ``stats --json``, ``scan --json``, ``resume --dry-run
--json`` and the run screen's rows are asked about each tree of the corpus, of the
old-version corpus and of the shapes, as a person would ask them (the command line, in
process); each call's state and failure kind must be the same from all of them.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.corpus import CORPUS, DATA, VERSIONS
from wftop.cli.main import main
from wftop.core.index.coldpass import scan_roots
from wftop.core.read.errors import ORDER
from wftop.core.system.procs import FakeProcessTable
from wftop.tui.calls import CallRow, call_rows

SHAPES = DATA / "shapes"
TREES = sorted(
    [tree for base in (CORPUS, VERSIONS, SHAPES) for tree in base.iterdir() if tree.is_dir()],
    key=lambda path: path.name,
)
OPEN = ("running", "dead")


def ask(capfd: pytest.CaptureFixture[str], *argv: str) -> object:
    """What ``wftop <argv>`` prints, read as JSON."""
    code = main(list(argv))
    out, _err = capfd.readouterr()
    assert code in (0, 3), (argv, code)  # 3: a resume the guard refuses still prints its plan
    return json.loads(out)


def roots(tree: Path) -> list[str]:
    return ["--no-default-root", "--root", str(tree)]


def surfaces(tree: Path, capfd: pytest.CaptureFixture[str]) -> dict[str, dict[str, object]]:
    """Per surface, what it says of the tree's one run: its calls' states and kinds (where it
    lists them), its failures and its cause."""
    (row,) = ask(capfd, "ls", "--json", "--no-cache", *roots(tree))
    run_id = row["run_id"]
    exported = ask(capfd, "export", run_id, "--format", "json", *roots(tree))
    (stats,) = ask(capfd, "stats", "--json", *roots(tree))["per_run"]
    (transcript,) = tree.glob("projects/*/*.jsonl")
    scanned = ask(capfd, "scan", "--session", str(transcript), "--json")
    plan = ask(capfd, "resume", run_id, "--dry-run", "--json", *roots(tree))
    (run,) = scan_roots([str(tree)], processes=FakeProcessTable()).runs
    screen = [item for item in call_rows(run) if isinstance(item, CallRow) and not item.attempt]
    workers = [
        w for w in scanned["workers"] if w.get("run_id") == run_id and w["calls"] is not None
    ]
    return {
        "ls": {"failures": row["failures"], "failed": row["failed"], "open": row["in_flight"]},
        "export": {
            "calls": [
                (c["label"], c["state"], c["error"]["kind"] if c["error"] else None)
                for c in exported["calls"]
            ]
        },
        "stats": {
            "failures": stats["failures"],
            "failed": stats["failed"],
            "cause": stats["cause"],
        },
        "scan": {
            "calls": [(c["label"], c["state"], c["kind"]) for c in workers[-1]["calls"]],
            "failures": [{"label": f["label"], "kind": f["kind"]} for f in workers[-1]["failures"]],
        },
        "plan": {"failures": plan["failures"], "stop_cause": plan["stop_cause"]},
        "screen": {"states": [(item.label, item.state) for item in screen]},
        "status": {"value": row["status"]},
    }


@pytest.mark.parametrize("tree", TREES, ids=lambda path: path.name)
def test_every_surface_tells_the_same_story_of_every_call(tree, capfd):
    said = surfaces(tree, capfd)
    calls = said["export"]["calls"]
    assert said["scan"]["calls"] == calls
    assert said["screen"]["states"] == [(label, state) for label, state, _ in calls]
    failures = [{"label": label, "kind": kind} for label, state, kind in calls if state == "failed"]
    assert all(kind is None for _, state, kind in calls if state != "failed")
    for surface in ("ls", "stats", "scan", "plan"):
        assert said[surface]["failures"] == failures, surface
    assert said["ls"]["failed"] == said["stats"]["failed"] == len(failures)
    open_calls = [label for label, state, _ in calls if state in OPEN]
    if said["status"]["value"] in ("dead", "running", "stalled"):
        assert said["ls"]["open"] == open_calls
    kinds = Counter(f["kind"] for f in failures)
    if kinds:
        top = max(kinds.values())
        cause = next(kind.value for kind in ORDER if kinds[kind.value] == top)
        assert said["stats"]["cause"] == cause
        assert said["plan"]["stop_cause"]["cause"] == cause


@pytest.mark.parametrize(
    ("name", "failed"),
    [("api-errors-429", "a6"), ("mid-failure", "a3")],
)
def test_a_call_that_failed_on_429_is_failed_and_rate_limited_everywhere(name, failed, capfd):
    said = surfaces(CORPUS / name, capfd)
    expected = [{"label": failed, "kind": "rate_limited"}]
    assert said["ls"]["failures"] == said["stats"]["failures"] == expected
    assert said["scan"]["failures"] == said["plan"]["failures"] == expected
    assert said["ls"]["failed"] == 1
    assert (failed, "failed", "rate_limited") in said["export"]["calls"]
    assert (failed, "failed") in said["screen"]["states"]
    assert said["stats"]["cause"] == said["plan"]["stop_cause"]["cause"] == "rate_limited"


def test_the_table_names_the_failed_call_and_its_kind(capfd):
    assert main(["ls", "--no-cache", *roots(CORPUS / "api-errors-429")]) == 0
    header, line = capfd.readouterr()[0].splitlines()
    assert line.split()[-4:-2] == ["6/5/1", "$0.0022"] and line.split()[-2:] == ["a6", "✗429"]
    assert header.endswith("OPEN/FAIL") and len(header) <= 100


def test_export_shows_the_error_where_it_was_read_and_the_last_words(capfd):
    tree = CORPUS / "api-errors-429"
    exported = ask(capfd, "export", "wf_44b36b23-fcc", "--format", "json", *roots(tree))
    a6 = next(call for call in exported["calls"] if call["label"] == "a6")
    assert a6["state"] == "failed"
    assert a6["error"]["kind"] == "rate_limited"
    assert a6["error"]["source"] == "transcript"
    assert a6["error"]["evidence"].endswith(
        "agent-ac21a94c7efc8ce9e.jsonl:16: API Error: Request rejected (429) · mock 429"
    )
    assert a6["transcript"].endswith("agent-ac21a94c7efc8ce9e.jsonl")
    assert "in_flight" not in {call["state"] for call in exported["calls"]}
    assert main(["export", "wf_44b36b23-fcc", *roots(tree)]) == 0
    markdown = capfd.readouterr()[0]
    assert "## 6. a6 · Finish — failed" in markdown
    assert "Error: rate limited (transcript)" in markdown
    assert "API Error: Request rejected (429)" in markdown
    assert "in flight" not in markdown


def test_scan_reports_a_workflow_that_completed_with_failures_as_not_succeeded(capfd):
    (transcript,) = (CORPUS / "api-errors-429").glob("projects/*/*.jsonl")
    scanned = ask(capfd, "scan", "--session", str(transcript), "--json")
    (worker,) = scanned["workers"]
    assert (worker["status"], worker["succeeded"]) == ("completed", False)
    assert [(f["label"], f["kind"]) for f in worker["failures"]] == [("a6", "rate_limited")]
    assert main(["scan", "--session", str(transcript)]) == 0
    text = capfd.readouterr()[0]
    assert "REPORTED, NOT SUCCEEDED" in text
    assert "failed:   a6 ✗429 (rate limited)" in text


def test_a_dead_runs_open_call_is_dead_and_a_killed_one_never_failed(capfd):
    said = surfaces(CORPUS / "killed", capfd)
    assert said["export"]["calls"][-1] == ("a5", "dead", None)
    assert said["ls"]["failures"] == []
    assert said["plan"]["stop_cause"]["cause"] == "clean_or_unknown"
