"""The end-to-end infrastructure works: the real CLI runs, dies and resumes against the mock."""

from __future__ import annotations

import json

import pytest

from tests.realcli import (
    SIX_AGENTS,
    journal_counts,
    load_script,
    resume_plain,
    resume_prompt,
    run_workflow,
    six_agents,
)

pytestmark = pytest.mark.realcli


def test_clean_six_run_completes(claude_bin, mock_api, cli_home):
    run = run_workflow(claude_bin, mock_api, cli_home, load_script("six.js"), six_agents())

    assert run.rc == 0, run.final_result
    assert "FINAL_OK status=completed" in (run.final_result or "")
    assert run.journal_path is not None
    counts = journal_counts(run.journal_path)
    assert (counts["launched"], counts["started"], counts["result"]) == (1, 6, 6)
    assert run.snapshot_path is not None and run.snapshot_path.is_file()
    assert json.loads(run.snapshot_path.read_text())["status"] == "completed"
    assert sorted(run.live) == list(SIX_AGENTS)
    assert {r["session_id"] for r in mock_api.find(kind="agent")} == {run.session_id}


def test_killed_run_resumes_only_a5_a6(claude_bin, mock_api, cli_home):
    agents = six_agents(a5={"hang_attempts": [1]})
    killed = run_workflow(
        claude_bin, mock_api, cli_home, load_script("six.js"), agents, kill_when_agent=("a5", 1)
    )

    assert killed.killed
    assert killed.run_id and killed.script_path and killed.journal_path
    counts = journal_counts(killed.journal_path)
    assert (counts["launched"], counts["started"], counts["result"]) == (1, 5, 4)
    assert killed.snapshot_path is not None and not killed.snapshot_path.exists()
    assert sorted(killed.live) == ["a1", "a2", "a3", "a4", "a5"]  # a5 arrived, then hung
    (hung,) = mock_api.find(kind="agent", agent="a5")
    assert hung["attempt"] == 1
    assert mock_api.wait_for(lambda rs: "outcome" in rs[hung["seq"] - 1], timeout=10)
    assert mock_api.find(kind="agent", agent="a5")[0]["outcome"] == "client_gone"

    prompt = resume_prompt(killed.run_id, killed.script_path)
    resumed = resume_plain(claude_bin, mock_api, cli_home, killed.session_id, prompt=prompt)

    assert resumed.rc == 0, resumed.final_result
    assert resumed.session_id == killed.session_id
    assert resumed.live == ["a5", "a6"]
    (launch,) = mock_api.find(kind="main_resume", since=resumed.first_seq)
    assert launch["workflow_input"] == {
        "scriptPath": str(killed.script_path),
        "resumeFromRunId": killed.run_id,
    }
    assert "FINAL_OK status=completed" in (resumed.final_result or "")
    assert resumed.run_id == killed.run_id
    assert resumed.snapshot_path is not None and resumed.snapshot_path.is_file()
