"""Tokens spent twice: the re-runs of calls that had returned, and what their agents used."""

from __future__ import annotations

from pathlib import Path

from tests.corpus import copy_tree, tree
from wftop.core.index.coldpass import scan_roots
from wftop.core.read.agent_transcript import agent_usage
from wftop.core.row import RunRow
from wftop.core.system.procs import FakeProcessTable

RERUN_A4 = "ac8f4debebe67992d"
"""mid-failure-resumed: a3 failed, the resume ran a3 again and a4 (same key, had returned);
a5 and a6 ran under new keys (their prompts hold a3's new result): not re-runs."""


def only_run(root: Path):  # type: ignore[no-untyped-def]
    (run,) = scan_roots([str(root)], processes=FakeProcessTable()).runs
    return run


def test_a_resume_that_re_ran_a_returned_call_spent_its_tokens_twice():
    run = only_run(tree("mid-failure-resumed"))
    assert run.fold.rerun_agent_ids == [RERUN_A4]
    usage = agent_usage(str(Path(run.folder.path) / f"agent-{RERUN_A4}.jsonl"))
    assert usage is not None and usage.tokens == 30  # 10 in + 20 out, from the mock
    assert run.rerun_tokens == 30
    assert RunRow.of(run).to_json()["rerun_tokens"] == 30


def test_runs_without_re_runs_spent_nothing_twice():
    for name in ("clean", "killed", "resumed", "killed-in-parallel-resumed", "mid-failure"):
        run = only_run(tree(name))
        assert (run.fold.rerun_agent_ids, run.rerun_tokens) == ([], 0), name


def test_re_runs_without_a_transcript_are_unknown_not_zero(tmp_path):
    root = copy_tree("mid-failure-resumed", tmp_path)
    (transcript,) = root.glob(f"projects/*/*/subagents/workflows/*/agent-{RERUN_A4}.jsonl")
    transcript.unlink()
    assert only_run(root).rerun_tokens is None


def test_usage_of_an_agent_counts_each_message_and_tool_call_once(tmp_path):
    path = tmp_path / "agent-a1.jsonl"
    usage = '{"input_tokens":5,"output_tokens":%d}'
    lines = [
        '{"type":"user","timestamp":"2026-12-02T10:00:00.000Z","message":{"content":"hi"}}',
        # streaming: the same message twice, the second with the final count
        '{"type":"assistant","timestamp":"2026-12-02T10:00:01.000Z","message":{"id":"m1",'
        '"content":[{"type":"tool_use","id":"t1"}],"usage":' + usage % 2 + "}}",
        '{"type":"assistant","timestamp":"2026-12-02T10:00:02.500Z","message":{"id":"m1",'
        '"content":[{"type":"tool_use","id":"t1"}],"usage":' + usage % 7 + "}}",
    ]
    path.write_text("\n".join(lines) + "\n")
    found = agent_usage(str(path))
    assert found is not None
    assert (found.tokens, found.tool_calls, found.duration_ms) == (12, 1, 2500)
    assert agent_usage(str(tmp_path / "agent-gone.jsonl")) is None
