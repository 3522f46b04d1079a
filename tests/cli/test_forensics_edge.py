"""Hand-made edge cases: bad lines, torn tails, empty files, directories and FIFOs
where files are expected, and secrets of every kind in every printed field."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys

import pytest

from tests.core.test_redact import SAMPLES
from tests.forensics_kit import (
    SESSION,
    agent_receipt,
    notice,
    notice_record,
    prompt,
    real_line,
    shell_receipt,
    tool_result,
    tool_use,
    workflow_receipt,
    write_session,
)
from wftop.core.forensics.report import build_report
from wftop.core.forensics.sessionlist import list_sessions
from wftop.core.forensics.workers import Digest, WorkerLiveness
from wftop.core.read.errors import Cause
from wftop.core.read.sessions import Liveness, Owner
from wftop.core.system.procs import FakeProcessTable

DEAD = Owner(Liveness.DEAD)


@contextlib.contextmanager
def within(seconds: int):
    """Fail instead of hanging (a FIFO opened for reading blocks forever)."""

    def expire(*_):
        raise TimeoutError("blocked")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def report(path, **kwargs):
    return build_report(str(path), owner=DEAD, processes=FakeProcessTable(), **kwargs)


def test_non_object_lines_are_problems_with_their_line(tmp_path):
    launch = [
        tool_use("toolu_a", "Agent", {"description": "d", "prompt": "p"}),
        tool_result("toolu_a", agent_receipt("a3333333333333333", "/nonexistent")),
    ]
    path = write_session(tmp_path, [prompt("go"), b"42", b'"text"', b"[1, 2]", b"{oops", *launch])
    found = report(path)
    assert [str(problem).rsplit(":", 2)[1] for problem in found.problems] == ["2", "3", "4", "5"]
    assert "expected a JSON object, got int" in str(found.problems[0])
    assert len(found.dead) == 1


def test_a_torn_last_line_is_not_read(tmp_path):
    torn = json.dumps(notice_record(notice("a4444444444444444", "completed"), "user")).encode()
    path = write_session(
        tmp_path,
        [
            prompt("go"),
            tool_use("toolu_a", "Agent", {"description": "d", "prompt": "p"}),
            tool_result("toolu_a", agent_receipt("a4444444444444444", "/nonexistent")),
        ],
        tail=torn[: len(torn) // 2],
    )
    found = report(path)
    assert len(found.dead) == 1
    assert found.problems == []


def test_a_zero_record_transcript(tmp_path):
    path = write_session(tmp_path, [])
    found = report(path)
    assert (found.workers, found.dead, found.problems) == ([], [], [])
    assert found.verdict.cause is Cause.CLEAN_OR_UNKNOWN


def test_a_directory_where_the_transcript_should_be(tmp_path):
    folder = tmp_path / "projects" / "-p"
    (folder / f"{SESSION}.jsonl").mkdir(parents=True)
    sessions, problems = list_sessions([str(tmp_path)])
    assert sessions == []
    assert "a directory, expected a session transcript" in str(problems[0])
    found = report(folder / f"{SESSION}.jsonl")
    assert "a directory" in str(found.problems[0])


def test_fifos_where_files_are_expected_never_block(tmp_path):
    folder = tmp_path / "projects" / "-p"
    folder.mkdir(parents=True)
    fifo = folder / f"{SESSION}.jsonl"
    os.mkfifo(fifo)
    with within(10):
        sessions, problems = list_sessions([str(tmp_path)])
        assert sessions == [] and "not a regular file" in str(problems[0])
        assert "not a regular file" in str(report(fifo).problems[0])


def test_fifo_outputs_and_transcripts_never_block(tmp_path):
    out = tmp_path / "shell.output"
    os.mkfifo(out)
    run_dir = tmp_path / "wf"
    run_dir.mkdir()
    os.mkfifo(run_dir / "journal.jsonl")
    path = write_session(
        tmp_path,
        [
            prompt("go"),
            tool_use("toolu_s", "Bash", {"command": "sleep 1000", "run_in_background": True}),
            tool_result("toolu_s", shell_receipt("bfifo0001", str(out))),
            tool_use("toolu_a", "Agent", {"description": "d", "prompt": "p"}),
            tool_result("toolu_a", agent_receipt("a5555555555555555", str(out))),
            tool_use("toolu_w", "Workflow", {"script": "x"}),
            tool_result("toolu_w", workflow_receipt("wfifo0001", "wf_fifo0000-001", str(run_dir))),
        ],
    )
    agents = path.with_suffix("") / "subagents"
    agents.mkdir(parents=True)
    os.mkfifo(agents / "agent-a5555555555555555.jsonl")
    with within(10):
        found = {worker.launch.kind.value: worker for worker in report(path).dead}
    assert found["shell"].liveness is WorkerLiveness.UNKNOWN_NO_OUTPUT
    assert found["agent"].digest is Digest.UNKNOWN
    assert not found["agent"].output.durable
    assert found["workflow"].digest is Digest.UNKNOWN


def secret_session(tmp_path):
    secrets = list(SAMPLES.values())
    error = real_line("api-401", '"isApiErrorMessage":true')
    error["message"]["content"][0]["text"] = f"Invalid API key · Fix external API key {secrets[0]}"
    return write_session(
        tmp_path,
        [
            prompt(f"use {secrets[1]}"),
            tool_use(
                "toolu_s",
                "Bash",
                {
                    "command": f"curl -H 'Authorization: {secrets[5]}' x; echo {secrets[2]}",
                    "description": f"call with {secrets[3]}",
                    "run_in_background": True,
                },
            ),
            tool_result("toolu_s", shell_receipt("bsecret01", str(tmp_path / "gone"))),
            tool_use(
                "toolu_a",
                "Agent",
                {"description": f"with {secrets[1]}", "prompt": f"token {secrets[4]}"},
            ),
            tool_result("toolu_a", agent_receipt("a6666666666666666", "/nonexistent")),
            error,
        ],
    )


def wftop(*args):
    return subprocess.run(
        [sys.executable, "-m", "wftop.cli", *args], capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("as_json", [True, False])
def test_every_secret_kind_is_masked_in_scan_output(tmp_path, as_json):
    path = secret_session(tmp_path)
    done = wftop("scan", "--no-default-root", "--session", str(path), *(["--json"] * as_json))
    assert done.returncode == 0, done.stderr
    for secret in SAMPLES.values():
        assert secret not in done.stdout
    if as_json:
        data = json.loads(done.stdout)
        assert set(data["redaction"]["kinds"]) == set(SAMPLES)
        assert "not a guarantee" in data["redaction"]["note"]
        assert "[masked:anthropic_key]" in data["termination"]["evidence"]
    else:
        for kind in SAMPLES:
            assert f"{kind} ×" in done.stdout
        assert "shape matching, not a guarantee" in done.stdout
