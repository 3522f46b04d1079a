"""Wire formats of the mock Messages API: error bodies, plain messages, server-sent events."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from wftop.mockapi.flow import Plan

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def error_reply(status: int) -> tuple[dict[str, str], dict[str, Any]]:
    """(headers, body) of an API error.  ``retry-after: 0`` makes the CLI retry at once."""
    headers = {"retry-after": "0"} if status in (429, 500, 529) else {}
    if status == 429:
        headers["anthropic-ratelimit-requests-reset"] = "1970-01-01T00:00:00Z"
    error = {"type": ERROR_TYPES.get(status, "api_error"), "message": f"mock {status}"}
    return headers, {"type": "error", "error": error}


def message_json(msg_id: str, model: str, plan: Plan, usage: Mapping[str, Any]) -> dict[str, Any]:
    """A complete (non-streamed) Messages API reply."""
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": plan.content,
        "stop_reason": plan.stop_reason,
        "stop_sequence": None,
        "usage": dict(usage),
    }


def _event(name: str, data: Mapping[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def sse_events(msg_id: str, model: str, plan: Plan, usage: Mapping[str, Any]) -> Iterator[bytes]:
    """The streamed form of the same reply, as the CLI's SDK reads it: ``message_delta``
    reports the output tokens (20, unless the plan names its own usage)."""
    start = {**message_json(msg_id, model, plan, usage), "content": [], "stop_reason": None}
    yield _event("message_start", {"type": "message_start", "message": start})
    for i, block in enumerate(plan.content):
        if block["type"] == "text":
            first: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": block["text"]}]
        else:
            first = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            js = json.dumps(block["input"])
            deltas = [
                {"type": "input_json_delta", "partial_json": js[k : k + 400]}
                for k in range(0, len(js), 400)
            ]
        yield _event(
            "content_block_start",
            {"type": "content_block_start", "index": i, "content_block": first},
        )
        for delta in deltas:
            yield _event(
                "content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}
            )
        yield _event("content_block_stop", {"type": "content_block_stop", "index": i})
    stop = {"stop_reason": plan.stop_reason, "stop_sequence": None}
    output = usage.get("output_tokens", 20) if plan.usage else 20
    yield _event(
        "message_delta",
        {"type": "message_delta", "delta": stop, "usage": {"output_tokens": output}},
    )
    yield _event("message_stop", {"type": "message_stop"})
