"""The mock Messages API on its own (no CLI): request classification, errors, hangs, the log."""

from __future__ import annotations

import http.client
import json
import select
import socket
import subprocess
import sys
from pathlib import Path

from tests.realcli import resume_prompt
from wftop.mockapi.request import parse_resume_request
from wftop.mockapi.server import MockAPI

TOP = Path(__file__).resolve().parent.parent.parent


def post(mock: MockAPI, body: dict) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", mock.port, timeout=10)
    try:
        conn.request(
            "POST", "/v1/messages?beta=true", json.dumps(body), {"content-type": "application/json"}
        )
        reply = conn.getresponse()
        return reply.status, reply.read().decode()
    finally:
        conn.close()


def user(*texts: str) -> dict:
    return {"role": "user", "content": [{"type": "text", "text": t} for t in texts]}


def main_body(*msgs: dict, session: str = "s1") -> dict:
    return {
        "model": "m",
        "stream": True,
        "tools": [{"name": "Workflow"}],
        "messages": list(msgs),
        "metadata": {"user_id": json.dumps({"session_id": session})},
    }


def agent_body(name: str) -> dict:
    return {
        "model": "m",
        "stream": False,
        "tools": [{"name": "StructuredOutput"}],
        "messages": [user(f"[[agent:{name}]] Do it.")],
    }


def test_wftop_resume_prompt_is_parsed_with_args():
    prompt = resume_prompt("wf_1a2b3c4d-5e6", "/some dir/s-wf_1a2b3c4d-5e6.js", {"k": [1, "}"]})
    assert parse_resume_request(prompt) == (
        {
            "resumeFromRunId": "wf_1a2b3c4d-5e6",
            "scriptPath": "/some dir/s-wf_1a2b3c4d-5e6.js",
            "args": {"k": [1, "}"]},
        },
        None,
    )


def test_resume_forms_and_bad_args():
    assert parse_resume_request("RESUME_WORKFLOW runId=wf_abc123 scriptPath=/x/y.js") == (
        {"resumeFromRunId": "wf_abc123", "scriptPath": "/x/y.js"},
        None,
    )
    inp, problem = parse_resume_request("resumeFromRunId: 'wf_abc123' for /x/y.js args: {k: 1}")
    assert inp == {"resumeFromRunId": "wf_abc123", "scriptPath": "/x/y.js"}
    assert problem and problem.startswith("args: not JSON")
    assert parse_resume_request("nothing to resume here") is None


def test_main_session_flow(tmp_path):
    with MockAPI({"script": "SCRIPT"}, log_path=tmp_path / "log.jsonl") as mock:
        notice = (
            "<task-notification><status>stopped</status>"
            " resumeFromRunId wf_old999</task-notification>"
        )
        prompt = resume_prompt("wf_new123", "/p/s.js")
        status, text = post(mock, main_body(user(notice, prompt)))
        assert status == 200 and '"name": "Workflow"' in text
        launched = {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "Workflow", "input": {}}],
        }
        result = {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}],
        }
        post(mock, main_body(user(prompt), launched, result))
        done = user("<task-notification><status>completed</status></task-notification>")
        status, text = post(
            mock,
            main_body(
                user(prompt), launched, result, {"role": "assistant", "content": "waiting"}, done
            ),
        )
        assert "FINAL_OK status=completed" in text
        post(mock, main_body(user("RUN_WORKFLOW go")))
        records = mock.requests
    assert [r["kind"] for r in records] == [
        "main_resume",
        "main_after_tool",
        "main_final",
        "main_run",
    ]
    assert records[0]["workflow_input"] == {"resumeFromRunId": "wf_new123", "scriptPath": "/p/s.js"}
    assert {r["session_id"] for r in records} == {"s1"}
    logged = [json.loads(x) for x in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert [r["kind"] for r in logged] == [r["kind"] for r in records]


def test_agent_errors_per_attempt_then_result():
    config = {"agents": {"a1": {"errors": [429, 529], "result": {"ok": True, "n": 7}}}}
    with MockAPI(config) as mock:
        statuses = [post(mock, agent_body("a1"))[0] for _ in range(3)]
        _, text = post(mock, agent_body("a1"))
    assert statuses == [429, 529, 200]
    assert json.loads(text)["content"][0]["input"] == {"agent": "a1", "ok": True, "n": 7}
    assert [(r["kind"], r["attempt"]) for r in mock.requests] == [
        ("agent_error", 1),
        ("agent_error", 2),
        ("agent", 3),
        ("agent", 4),
    ]
    assert mock.live_agents() == ["a1", "a1"]


def test_hang_ends_when_the_client_hangs_up():
    with MockAPI({"agents": {"h": {"hang_attempts": [1]}}}) as mock:
        raw = json.dumps(agent_body("h")).encode()
        with socket.create_connection(("127.0.0.1", mock.port), timeout=10) as sock:
            sock.sendall(
                b"POST /v1/messages HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
                + f"content-length: {len(raw)}\r\n\r\n".encode()
                + raw
            )
            assert mock.wait_for_agent("h", 1, timeout=10)
        assert mock.wait_for(lambda rs: rs and rs[0].get("outcome") == "client_gone", timeout=10)


def test_runs_as_a_process(tmp_path):
    (tmp_path / "cfg.json").write_text(json.dumps({"script": "S"}))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "wftop.mockapi.server",
            "--config",
            str(tmp_path / "cfg.json"),
            "--log",
            str(tmp_path / "log.jsonl"),
        ],
        cwd=TOP,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert select.select([proc.stdout], [], [], 20)[0], "no LISTENING line within 20 s"
        word, port = proc.stdout.readline().split()
        assert word == "LISTENING"
        conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=10)
        conn.request("GET", "/v1/models")
        assert conn.getresponse().status == 200
        conn.close()
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0
    assert json.loads((tmp_path / "log.jsonl").read_text())["kind"] == "get"
