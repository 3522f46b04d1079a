"""Which calls failed and why, from each place the CLI writes a failure.

Every tree is a copy of one the real CLI wrote (``tests/data``), changed only where a test
needs the CLI to have written one thing and not another.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.corpus import copy_tree, only_journal, tree
from tests.forensics_kit import fixture
from wftop.core.calls import State, call_states, run_cause
from wftop.core.index.coldpass import scan_roots
from wftop.core.read.failures import TAIL_BYTES, last_api_error, last_api_error_of
from wftop.core.read.sessions import Liveness
from wftop.core.row import RunRow
from wftop.core.system.procs import FakeProcess, FakeProcessTable


def the_run(root: Path, processes: FakeProcessTable | None = None):  # type: ignore[no-untyped-def]
    (run,) = scan_roots([str(root)], processes=processes or FakeProcessTable()).runs
    return run


def snapshot_of(root: Path) -> Path:
    (path,) = root.glob("projects/*/*/workflows/wf_*.json")
    return path


def edit_snapshot(root: Path, change) -> None:  # type: ignore[no-untyped-def]
    path = snapshot_of(root)
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def agent_file(root: Path, label: str) -> Path:
    journal = only_journal(root)
    for line in journal.read_text().splitlines():
        record = json.loads(line)
        if record.get("type") == "started" and record.get("label", record["agentId"]) == label:
            agent = record["agentId"]
    return journal.parent / f"agent-{agent}.jsonl"


def drop_api_error(path: Path) -> None:
    """The agent's transcript without the API error it ended on."""
    kept = [
        line for line in path.read_text().splitlines() if '"isApiErrorMessage":true' not in line
    ]
    path.write_text("\n".join(kept) + "\n")


def failure(run, label):  # type: ignore[no-untyped-def]
    (found,) = [f for f in run.failures if f.label == label]
    return found


def test_an_api_error_with_no_failed_line_is_read_from_the_agents_transcript():
    run = the_run(tree("api-errors-429"))
    a6 = failure(run, "a6")
    assert (a6.kind, a6.source) == ("rate_limited", "transcript")
    assert a6.evidence.endswith(":16: API Error: Request rejected (429) · mock 429")


def test_without_the_transcripts_record_the_snapshots_row_says_why(tmp_path):
    root = copy_tree("api-errors-429", tmp_path)
    drop_api_error(agent_file(root, "a6"))
    a6 = failure(the_run(root), "a6")
    assert (a6.kind, a6.source) == ("rate_limited", "snapshot")
    assert a6.evidence == f"{snapshot_of(root)}:1: API Error: Request rejected (429) · mock 429"


def test_a_snapshots_log_is_not_read_where_its_rows_and_transcripts_say_why(tmp_path, monkeypatch):
    # A run list reads every ended run's failures: the snapshot's log (its object parsed
    # again) is read only for a failed call no transcript nor row explains.
    from wftop.core.read import failures

    def no_log(snapshot):  # type: ignore[no-untyped-def]
        raise AssertionError("the snapshot's log was read")

    monkeypatch.setattr(failures, "_log_lines", no_log)
    root = copy_tree("api-errors-429", tmp_path)
    assert failure(the_run(root), "a6").source == "transcript"
    drop_api_error(agent_file(root, "a6"))
    assert failure(the_run(root), "a6").source == "snapshot"


def test_without_a_row_error_the_runs_log_line_for_the_label_says_why(tmp_path):
    root = copy_tree("api-errors-429", tmp_path)
    drop_api_error(agent_file(root, "a6"))

    def no_row_error(data):  # type: ignore[no-untyped-def]
        for row in data["workflowProgress"]:
            row.pop("error", None)
        data["logs"] = ["[a6] failed: API Error: 529 Overloaded"]

    edit_snapshot(root, no_row_error)
    a6 = failure(the_run(root), "a6")
    assert (a6.kind, a6.source) == ("api_overload", "snapshot")


def test_an_old_clis_schema_line_names_no_label_and_is_given_to_the_unexplained_call(tmp_path):
    """2.1.146 logged a 429 as ``parallel[1] failed: … without calling StructuredOutput``:
    with the agent's own record gone, that line is all there is, and it says schema."""
    root = copy_tree("2.1.146-mid-failure", tmp_path)
    run = the_run(root)
    (only,) = run.failures
    assert (only.kind, only.source) == ("rate_limited", "transcript")
    assert only.label == "a3"  # a label the journal lacks, from the snapshot's row
    agent = run.fold.calls[only.key].agent_ids[-1]
    drop_api_error(only_journal(root).parent / f"agent-{agent}.jsonl")
    (only,) = the_run(root).failures
    assert (only.kind, only.source) == ("schema", "snapshot")
    assert (
        "parallel[1]" not in only.evidence and "without calling StructuredOutput" in only.evidence
    )


def test_a_script_that_threw_fails_the_calls_it_left_open(tmp_path):
    root = copy_tree("api-errors-429", tmp_path)
    drop_api_error(agent_file(root, "a6"))

    def threw(data):  # type: ignore[no-untyped-def]
        data["status"] = "failed"
        data["error"] = "TypeError: fan.map is not a function\n    at script:12"
        data["logs"] = []
        for row in data["workflowProgress"]:
            row.pop("error", None)
            if row.get("state") == "error":
                row["state"] = "progress"

    edit_snapshot(root, threw)
    run = the_run(root)
    a6 = failure(run, "a6")
    assert (a6.kind, a6.source) == ("script_error", "snapshot")
    assert a6.evidence.endswith(":1: TypeError: fan.map is not a function")
    assert run.status.value == "failed"


def test_a_skipped_agent_was_stopped_by_the_user(tmp_path):
    root = copy_tree("api-errors-429", tmp_path)
    drop_api_error(agent_file(root, "a6"))

    def skipped(data):  # type: ignore[no-untyped-def]
        data["logs"] = []
        for row in data["workflowProgress"]:
            if row.get("state") == "error":
                row.pop("error")
                row["skipped"] = True

    edit_snapshot(root, skipped)
    assert failure(the_run(root), "a6").kind == "user_interrupt"


def test_a_failed_line_alone_says_nothing_recorded_why(tmp_path):
    root = copy_tree("mid-failure", tmp_path)
    drop_api_error(agent_file(root, "a3"))
    snapshot_of(root).unlink()
    (transcript,) = root.glob("projects/*/*.jsonl")
    kept = [line for line in transcript.read_text().splitlines() if "<failures>" not in line]
    transcript.write_text("\n".join(kept) + "\n")
    run = the_run(root)
    a3 = failure(run, "a3")
    assert (a3.kind, a3.source) == ("clean_or_unknown", "journal")
    assert "a failed line; nothing recorded why" in a3.evidence
    assert a3.evidence.startswith(f"{only_journal(root)}:")


def test_the_notice_in_the_session_speaks_when_the_snapshot_is_gone(tmp_path):
    root = copy_tree("mid-failure", tmp_path)
    drop_api_error(agent_file(root, "a3"))
    snapshot_of(root).unlink()
    (transcript,) = root.glob("projects/*/*.jsonl")
    a3 = failure(the_run(root), "a3")
    assert a3.source == "session" and a3.kind == "rate_limited"
    assert a3.evidence.startswith(f"{transcript}:")


def test_a_dead_runs_open_call_whose_agent_gave_up_failed(tmp_path):
    """The run died before it wrote a ``failed`` line (or a snapshot): the agent's own record
    says the call failed, so it is not dead."""
    root = copy_tree("api-errors-429", tmp_path)
    snapshot_of(root).unlink()
    run = the_run(root)
    assert run.status.value == "dead"
    assert [(f.label, f.kind) for f in run.failures] == [("a6", "rate_limited")]
    assert [view.state for view in call_states(run)][-1] is State.FAILED
    assert run.dead_workers == [] and RunRow.of(run).in_flight == ()


def test_while_the_owner_lives_an_open_call_is_running_whatever_its_transcript(tmp_path):
    root = copy_tree("api-errors-429", tmp_path)
    snapshot_of(root).unlink()
    registry = root / "sessions"
    registry.mkdir()
    session = only_journal(root).parents[3].name
    (registry / "4242.json").write_text(
        json.dumps({"pid": 4242, "sessionId": session, "procStart": "77", "cwd": "/"})
    )
    processes = FakeProcessTable({4242: FakeProcess("77")})
    run = the_run(root, processes)
    assert run.owner.liveness is Liveness.ALIVE
    assert run.failures == ()
    assert [view.state for view in call_states(run)][-1] is State.RUNNING


def test_a_usage_limit_keeps_its_reset_time(tmp_path):
    root = copy_tree("api-errors-429", tmp_path)
    (session,) = fixture("usage-limit").glob("projects/*/*.jsonl")
    limit = next(
        line for line in session.read_text().splitlines() if '"isApiErrorMessage":true' in line
    )
    path = agent_file(root, "a6")
    path.write_text(path.read_text() + limit + "\n")
    a6 = failure(the_run(root), "a6")
    record = json.loads(limit)
    assert a6.kind == "usage_limit"
    assert a6.resets_at == record["apiErrorParams"]["rate_limit_info"]["resetsAt"]
    assert run_cause(the_run(root)) == "usage_limit"


def test_the_evidence_names_the_line_of_a_record_past_the_tail(tmp_path):
    root = copy_tree("api-errors-429", tmp_path)
    path = agent_file(root, "a6")
    lines = path.read_text().splitlines()
    filler = json.dumps({"type": "attachment", "pad": "x" * 1000})
    body = lines[:-1] + [filler] * (2 * TAIL_BYTES // 1000) + lines[-1:]
    path.write_text("\n".join(body) + "\n")
    event = last_api_error(str(path))
    assert event is not None and event.line == len(body)
    assert event.text == "API Error: Request rejected (429) · mock 429"
    assert last_api_error_of(str(path), path.read_bytes()) == event  # read whole for its spend
