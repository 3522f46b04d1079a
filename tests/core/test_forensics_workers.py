"""Workers: launched by receipt, completed by notice, dead otherwise; liveness by kind."""

from __future__ import annotations

import json
import os
import time

import pytest

from tests.forensics_kit import (
    agent_receipt,
    notice,
    notice_record,
    prompt,
    shell_receipt,
    tool_result,
    tool_use,
    transcript_of,
    workflow_receipt,
    write_session,
)
from wftop.core.forensics.receipts import WorkerKind, parse_notifications
from wftop.core.forensics.report import build_report
from wftop.core.forensics.session_transcript import read_transcript
from wftop.core.forensics.workers import Action, Digest, WorkerLiveness
from wftop.core.read.sessions import Liveness, Owner, RegistryEntry
from wftop.core.system.procs import FakeProcess, FakeProcessTable

DEAD_OWNER = Owner(Liveness.DEAD)
NO_PROCESSES = FakeProcessTable()


def alive_owner() -> Owner:
    entry = RegistryEntry("/r/sessions/4242.json", 4242, "s", "1", None, None, "2.1.332")
    return Owner(Liveness.ALIVE, entry)


def facts(name):
    return read_transcript(str(transcript_of(name)), tail_records=400)


def test_all_three_receipts_are_read_from_a_real_session():
    launches = facts("bg-workers-killed").launches
    kinds = [launch.kind for launch in launches]
    assert kinds.count(WorkerKind.AGENT) == 2
    assert kinds.count(WorkerKind.SHELL) == 3
    assert kinds.count(WorkerKind.WORKFLOW) == 1
    workflow = next(launch for launch in launches if launch.kind is WorkerKind.WORKFLOW)
    assert workflow.run_id == "wf_0d7d5918-9b6"
    assert workflow.transcript_dir.endswith("subagents/workflows/wf_0d7d5918-9b6")
    agent = next(launch for launch in launches if launch.description == "Audit the logs")
    assert agent.prompt.startswith("[[agent:bghang]] Audit the logs")
    assert agent.output_file.endswith(f"tasks/{agent.worker_id}.output")


def test_receipts_copied_into_request_blobs_are_not_counted_twice():
    assert len(facts("bg-workers-killed").launches) == 6


def test_completions_arrive_in_every_record_shape_of_real_sessions():
    seen = set()
    lines = transcript_of("bg-clean").read_text().splitlines()
    for line in lines + transcript_of("bg-workers-killed").read_text().splitlines():
        record = json.loads(line)
        kind = record["type"]
        if kind == "queue-operation":
            text = record.get("content") or ""
        elif kind == "attachment" and record["attachment"].get("type") == "queued_command":
            text = record["attachment"]["prompt"]
        elif kind == "user" and isinstance(record["message"]["content"], str):
            text = record["message"]["content"]
        else:
            continue
        if parse_notifications(text, 1, kind):
            seen.add(kind)
    assert seen == {"queue-operation", "attachment", "user"}
    statuses = {done.task_id: done.status for done in facts("bg-clean").completions}
    assert sorted(statuses.values()) == ["completed", "completed", "killed", "stopped"]
    (stopped,) = [done for done in facts("bg-clean").completions if done.source == "TaskStop"]
    assert stopped.summary.startswith(f"Successfully stopped task: {stopped.task_id} ")


def test_a_clean_session_with_killed_and_stopped_workers_has_no_dead_ones():
    report = build_report(str(transcript_of("bg-clean")), processes=NO_PROCESSES)
    assert report.dead == []
    assert sorted(w.status for w in report.workers) == [
        "completed",
        "completed",
        "killed",
        "stopped",
    ]


def test_dead_workers_of_a_killed_session():
    report = build_report(
        str(transcript_of("bg-workers-killed")), owner=DEAD_OWNER, processes=NO_PROCESSES
    )
    dead = {worker.launch.kind: worker for worker in report.dead}
    assert set(dead) == {WorkerKind.AGENT, WorkerKind.SHELL, WorkerKind.WORKFLOW}
    agent = dead[WorkerKind.AGENT]
    assert agent.liveness is WorkerLiveness.DEAD
    assert agent.output.durable and agent.output.path.endswith(
        f"subagents/agent-{agent.launch.worker_id}.jsonl"
    )
    assert (agent.digest, agent.action) == (Digest.NOTHING, Action.RESPAWN_ORIGINAL)
    workflow = dead[WorkerKind.WORKFLOW]
    assert workflow.output.durable and workflow.output.path.endswith("wf_0d7d5918-9b6")
    assert (workflow.digest, workflow.digest_detail) == (Digest.PARTIAL, "4 of 5 calls returned")
    assert workflow.action is Action.RESPAWN_REMAINDER
    failed = [w for w in report.workers if w.status == "failed"]
    assert [w.launch.description for w in failed] == ["Fail on purpose"]


def test_a_resume_reports_every_dead_worker_as_stopped():
    report = build_report(str(transcript_of("bg-workers-resumed")), processes=NO_PROCESSES)
    stopped = sorted(w.launch.kind.value for w in report.workers if w.status == "stopped")
    assert stopped == ["agent", "shell", "workflow"]
    assert report.dead == []
    assert all(
        "didn't finish before the previous session ended" in w.completion.summary
        for w in report.workers
        if w.status == "stopped"
    )


def shell_session(root, output, command="sleep 600; echo finished-late"):
    return write_session(
        root,
        [
            prompt("run it in the background"),
            tool_use("toolu_s", "Bash", {"command": command, "run_in_background": True}),
            tool_result("toolu_s", shell_receipt("bshell001", str(output))),
        ],
    )


def only_dead(path, owner=DEAD_OWNER, processes=NO_PROCESSES):
    (worker,) = build_report(str(path), owner=owner, processes=processes).dead
    return worker


def test_shell_liveness_by_process(tmp_path):
    output = tmp_path / "out.output"
    output.write_text("partial\n")
    path = shell_session(tmp_path, output)
    running = FakeProcessTable(
        {77: FakeProcess("9", ["/bin/bash", "-c", "eval 'sleep 600; echo finished-late'"])}
    )
    worker = only_dead(path, processes=running)
    assert worker.liveness is WorkerLiveness.POSSIBLY_LIVE
    assert "pid 77" in worker.liveness_reason
    assert worker.action is Action.CHECK_LIVE


def test_shell_liveness_by_output_growth_both_ways(tmp_path):
    output = tmp_path / "out.output"
    output.write_text("tick 1\n")
    path = shell_session(tmp_path, output)
    now = time.time()
    os.utime(path, (now - 100, now - 100))
    os.utime(output, (now, now))
    grown = only_dead(path)
    assert grown.liveness is WorkerLiveness.POSSIBLY_LIVE
    assert (grown.output.durable, grown.digest) == (False, Digest.PARTIAL)
    os.utime(output, (now - 101, now - 101))
    quiet = only_dead(path)
    assert quiet.liveness is WorkerLiveness.DEAD
    assert quiet.action is Action.RESPAWN_REMAINDER


def test_shell_without_output_file_cannot_be_told(tmp_path):
    worker = only_dead(shell_session(tmp_path, tmp_path / "gone.output"))
    assert worker.liveness is WorkerLiveness.UNKNOWN_NO_OUTPUT
    assert worker.digest is Digest.UNKNOWN
    assert worker.action is Action.RESPAWN_ORIGINAL


def test_a_short_command_is_not_looked_for_in_the_process_table(tmp_path):
    output = tmp_path / "out.output"
    output.write_text("")
    path = shell_session(tmp_path, output, command="ls")
    os.utime(output, (0, 0))
    everything = FakeProcessTable({1: FakeProcess("1", ["ls", "-la"])})
    assert only_dead(path, processes=everything).liveness is WorkerLiveness.DEAD


@pytest.mark.parametrize("kind", ["agent", "workflow"])
def test_agents_and_workflows_live_exactly_when_their_owner_does(tmp_path, kind):
    text = (
        agent_receipt("a1111111111111111", str(tmp_path / "a.output"))
        if kind == "agent"
        else workflow_receipt("wabc12345", "wf_12345678-abc", str(tmp_path / "wf"))
    )
    path = write_session(
        tmp_path, [prompt("go"), tool_use("toolu_k", "Agent", {}), tool_result("toolu_k", text)]
    )
    assert only_dead(path, owner=alive_owner()).liveness is WorkerLiveness.LIVE
    assert only_dead(path, owner=alive_owner()).action is Action.CHECK_LIVE
    assert only_dead(path, owner=DEAD_OWNER).liveness is WorkerLiveness.DEAD
    assert only_dead(path, owner=Owner(Liveness.UNKNOWN)).liveness is WorkerLiveness.UNKNOWN


@pytest.mark.parametrize("shape", ["queue-operation", "attachment", "user"])
@pytest.mark.parametrize("status", ["completed", "failed", "killed", "stopped"])
def test_a_notice_in_any_shape_and_status_means_not_dead(tmp_path, shape, status):
    path = write_session(
        tmp_path,
        [
            prompt("go"),
            tool_use("toolu_a", "Agent", {"description": "d", "prompt": "p"}),
            tool_result("toolu_a", agent_receipt("a2222222222222222", "/nonexistent/a.output")),
            notice_record(notice("a2222222222222222", status, "toolu_a"), shape),
        ],
    )
    report = build_report(str(path), owner=DEAD_OWNER, processes=NO_PROCESSES)
    assert report.dead == []
    (worker,) = report.workers
    assert worker.status == status
    assert worker.completion.source == shape
    assert worker.completion.succeeded is (status == "completed")


def test_a_missing_tool_result_is_never_a_dead_worker(tmp_path):
    path = write_session(
        tmp_path,
        [prompt("go"), tool_use("toolu_f", "Bash", {"command": "make", "run_in_background": True})],
    )
    assert build_report(str(path), owner=DEAD_OWNER, processes=NO_PROCESSES).dead == []


def test_a_notice_matched_by_tool_use_id_counts(tmp_path):
    path = write_session(
        tmp_path,
        [
            prompt("go"),
            tool_use("toolu_m", "Bash", {"command": "make all", "run_in_background": True}),
            tool_result("toolu_m", shell_receipt("bmatch001", "/nonexistent/out")),
            notice_record(notice("renamed-id", "completed", "toolu_m"), "user"),
        ],
    )
    assert build_report(str(path), owner=DEAD_OWNER, processes=NO_PROCESSES).dead == []
