"""A loopback mock of the Anthropic Messages API, scripted to drive the real Claude Code CLI
through ``Workflow`` runs.  Standard library only.

In-process::

    with MockAPI({"script": text, "agents": {...}}, log_path=p) as mock:
        env["ANTHROPIC_BASE_URL"] = mock.url
        ...
        mock.live_agents()          # sub-agents answered live, in arrival order

As a process: ``python -m wftop.mockapi.server --config cfg.json [--port 0] [--log requests.jsonl]``
prints ``LISTENING <port>`` and serves until SIGTERM/SIGINT.

How a ``POST /v1/messages`` is answered (first match wins; see ``wftop.mockapi.flow``):

* compaction request -> kind ``compact``: an <analysis>/<summary> text.
* ``[[agent:NAME]]`` in the first user message or the system prompt -> a sub-agent.  Attempts
  are counted per NAME over the server's life (so "hang on try 1, answer on try 2" spans a kill
  and a resume).  ``agents[NAME]``: ``result`` (StructuredOutput input), ``delay_s`` (number or
  per-attempt list), ``hang_attempts`` (attempts held until the client goes away or the mock
  stops), ``errors`` (per-attempt HTTP status, 0 = answer), ``errors_forever`` (status for every
  attempt past ``errors``), ``error_delay_s``, ``usage`` (the Messages API ``usage`` its answer
  reports, e.g. with a ``cache_creation`` split; or a list per attempt), ``model`` (the model
  its answer names), ``text`` (a text block before its ``StructuredOutput``: one message the
  CLI writes over two lines).  Kinds: ``agent`` (answered live),
  ``agent_error``, ``agent_done`` (the turn after StructuredOutput), ``agent_text``.
* main session: a user message with ``RUN_WORKFLOW`` -> ``main_run``, ``Workflow({script})``; a
  user message containing ``resumeFromRunId`` (free text) or ``RESUME_WORKFLOW runId=..
  scriptPath=..`` -> ``main_resume``, ``Workflow({scriptPath, resumeFromRunId, args?})``; then a
  tool_result -> ``main_after_tool``; a ``<task-notification>`` -> ``main_final``
  (``FINAL_OK status=<status>``); else ``main_text``.
* anything else -> ``other``.

Other config keys: ``script``, ``default_result``, ``default_delay_s``, ``run_extra_input``,
``resume_extra_input``, ``final_text``, ``after_launch_text``, ``plain_text``,
``compact_summary_text``, ``main_delay_s`` ({kind: seconds}), ``usage_input_tokens`` ({kind: n}
or an int for every ``main_*`` reply) with ``usage_input_tokens_times`` ({kind: max replies}),
``hang_max_s`` (cap of a hang, default 600).

Every request is logged on arrival (in memory, and as JSON lines in ``log_path`` when given)
with ``seq``, ``t``, ``path``, ``kind``, ``agent``, ``attempt``, ``status``, ``session_id`` (from
the CLI's ``metadata.user_id``) and, for ``main_run``/``main_resume``, the ``workflow_input``
answered.  In memory only, ``outcome`` is added when the request ends: ``answered``,
``client_gone`` (the CLI hung up or was killed first) or ``stopped`` (the mock stopped first).
A sub-agent counts as "live" (``live_agents``) when its request arrived with kind ``agent``,
whether or not it was answered: the CLI ran it rather than replaying it from the journal.
"""

from __future__ import annotations

import argparse
import json
import select
import signal
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from wftop.mockapi.flow import Plan, decide
from wftop.mockapi.request import session_id_of
from wftop.mockapi.wire import error_reply, message_json, sse_events

Record = dict[str, Any]


class MockAPI:
    """The mock server.  ``config`` may be changed while it runs with :meth:`configure`."""

    def __init__(
        self,
        config: Mapping[str, Any] | None = None,
        *,
        log_path: str | Path | None = None,
        body_dir: str | Path | None = None,
        port: int = 0,
    ) -> None:
        self._config: dict[str, Any] = dict(config or {})
        self.log_path = Path(log_path) if log_path else None
        self.body_dir = Path(body_dir) if body_dir else None
        self._want_port = port
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._records: list[Record] = []
        self._attempts: dict[str, int] = {}
        self._usage_sent: dict[str, int] = {}
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> MockAPI:
        handler = type("BoundHandler", (_Handler,), {"mock": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", self._want_port), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="mockapi", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # releases hung and delayed requests
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server = self._thread = None

    def __enter__(self) -> MockAPI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("mock API not started")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # ------------------------------------------------------------------ config
    @property
    def config(self) -> dict[str, Any]:
        with self._lock:
            copy: dict[str, Any] = json.loads(json.dumps(self._config))
        return copy

    def configure(self, **changes: Any) -> None:
        """Replace top-level config keys (e.g. ``agents=...``, ``script=...``)."""
        with self._lock:
            self._config.update(changes)

    # ------------------------------------------------------------------ request log
    @property
    def requests(self) -> list[Record]:
        with self._lock:
            return [dict(r) for r in self._records]

    def mark(self) -> int:
        """The seq of the latest request; pass it as ``since`` to look at later requests only."""
        with self._lock:
            return self._records[-1]["seq"] if self._records else 0

    def find(
        self,
        *,
        kind: str | None = None,
        agent: str | None = None,
        since: int = 0,
        session_id: str | None = None,
    ) -> list[Record]:
        return [
            r
            for r in self.requests
            if r["seq"] > since
            and (kind is None or r["kind"] == kind)
            and (agent is None or r.get("agent") == agent)
            and (session_id is None or r.get("session_id") == session_id)
        ]

    def live_agents(self, *, since: int = 0, session_id: str | None = None) -> list[str]:
        """Names of the sub-agent requests answered with a result, in arrival order."""
        return [r["agent"] for r in self.find(kind="agent", since=since, session_id=session_id)]

    def attempts(self, agent: str) -> int:
        with self._lock:
            return self._attempts.get(agent, 0)

    def wait_for(self, predicate: Callable[[list[Record]], bool], timeout: float) -> bool:
        """Block until ``predicate(requests)`` is true or ``timeout`` seconds pass."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not predicate(self._records):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(min(left, 0.5))
            return True

    def wait_for_agent(self, agent: str, attempt: int = 1, timeout: float = 60.0) -> bool:
        return self.wait_for(
            lambda rs: any(
                r.get("agent") == agent and (r.get("attempt") or 0) >= attempt for r in rs
            ),
            timeout,
        )

    # ------------------------------------------------------------------ internals
    def _next_attempt(self, agent: str) -> int:
        with self._lock:
            self._attempts[agent] = self._attempts.get(agent, 0) + 1
            return self._attempts[agent]

    def _log(self, rec: Record, body: Any) -> Record:
        with self._changed:
            rec["seq"] = len(self._records) + 1
            rec["t"] = round(time.time(), 3)
            self._records.append(rec)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(rec) + "\n")
            self._changed.notify_all()
        if self.body_dir is not None and body is not None:
            self.body_dir.mkdir(parents=True, exist_ok=True)
            (self.body_dir / f"{rec['seq']:04d}.json").write_text(json.dumps(body, indent=1))
        return rec

    def _usage(self, kind: str) -> dict[str, int]:
        tokens = 10
        with self._lock:
            wanted = self._config.get("usage_input_tokens")
            if isinstance(wanted, int) and kind.startswith("main"):
                tokens = wanted
            elif isinstance(wanted, dict) and kind in wanted:
                cap = self._config.get("usage_input_tokens_times", {}).get(kind)
                sent = self._usage_sent
                if cap is None or sent.get(kind, 0) < cap:
                    sent[kind] = sent.get(kind, 0) + 1
                    tokens = int(wanted[kind])
        return {
            "input_tokens": tokens,
            "output_tokens": 1,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }

    def _hold(self, conn: socket.socket, seconds: float) -> str | None:
        """Wait ``seconds``; ``"stopped"`` / ``"client_gone"`` if that ended the wait early."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if self._stopping.wait(min(left, 0.25)):
                return "stopped"
            try:
                readable, _, _ = select.select([conn], [], [], 0)
                if readable and conn.recv(1, socket.MSG_PEEK) == b"":
                    return "client_gone"
            except OSError:
                return "client_gone"
        return None

    def _set_outcome(self, rec: Record, outcome: str) -> None:
        with self._changed:
            rec["outcome"] = outcome
            self._changed.notify_all()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mock: MockAPI

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send_json(self, code: int, obj: Any, headers: Mapping[str, str] | None = None) -> None:
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", "req_mock_" + uuid.uuid4().hex[:12])
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        self.mock._log({"method": "GET", "path": path, "kind": "get", "agent": None}, None)
        if path.startswith("/v1/models"):
            model = {
                "type": "model",
                "id": "claude-sonnet-4-5",
                "display_name": "Mock",
                "created_at": "2025-01-01T00:00:00Z",
            }
            self._send_json(200, {"data": [model], "has_more": False})
            return
        self._send_json(200, {})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        size = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(size) if size else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        path = self.path.split("?")[0]
        if path == "/v1/messages/count_tokens":
            self.mock._log(
                {"method": "POST", "path": path, "kind": "count_tokens", "agent": None}, body
            )
            self._send_json(200, {"input_tokens": 100})
            return
        if path != "/v1/messages" or not isinstance(body, dict):
            self.mock._log(
                {"method": "POST", "path": path, "kind": "unknown_post", "agent": None}, body
            )
            self._send_json(200, {})
            return
        self._answer_messages(path, body)

    def _answer_messages(self, path: str, body: dict[str, Any]) -> None:
        mock = self.mock
        plan: Plan = decide(body, mock.config, mock._next_attempt)
        rec: Record = {
            "method": "POST",
            "path": path,
            "kind": plan.kind,
            "agent": plan.agent,
            "attempt": plan.attempt,
            "status": plan.status,
            "session_id": session_id_of(body),
            "stream": bool(body.get("stream")),
            "model": body.get("model"),
            "n_messages": len(body.get("messages") or []),
        }
        if plan.workflow_input is not None:
            rec["workflow_input"] = plan.workflow_input
        if plan.note:
            rec["note"] = plan.note
        mock._log(rec, body)
        hold = float(mock.config.get("hang_max_s", 600)) if plan.hang else plan.delay
        gone = mock._hold(self.connection, hold) if hold > 0 else None
        if gone:
            mock._set_outcome(rec, gone)
            self.close_connection = True
            return
        try:
            if plan.status != 200:
                self._send_error(plan.status)
            else:
                self._send_reply(body, plan, plan.usage or mock._usage(plan.kind))
            mock._set_outcome(rec, "answered")
        except (BrokenPipeError, ConnectionResetError):
            mock._set_outcome(rec, "client_gone")
            self.close_connection = True

    def _send_error(self, status: int) -> None:
        headers, payload = error_reply(status)
        self._send_json(status, payload, headers)

    def _send_reply(self, body: dict[str, Any], plan: Plan, usage: dict[str, Any]) -> None:
        model = plan.model or body.get("model") or "claude-sonnet-4-5"
        msg_id = "msg_" + uuid.uuid4().hex[:24]
        if not body.get("stream"):
            self._send_json(200, message_json(msg_id, model, plan, usage))
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        for chunk in sse_events(msg_id, model, plan, usage):
            self.wfile.write(chunk)
        self.wfile.flush()
        self.close_connection = True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m wftop.mockapi.server",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--config", help="JSON file with the mock's configuration")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--log", help="append every request as a JSON line to this file")
    ap.add_argument("--bodies", help="write every request body to DIR/NNNN.json")
    a = ap.parse_args(argv)
    config = json.loads(Path(a.config).read_text()) if a.config else {}
    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    with MockAPI(config, log_path=a.log, body_dir=a.bodies, port=a.port) as mock:
        print(f"LISTENING {mock.port}", flush=True)
        while not done.wait(1.0):
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
