"""Re-export of ``wftop.mockapi.wire``: the mock's error bodies, messages and SSE events."""

from __future__ import annotations

from wftop.mockapi.wire import ERROR_TYPES, error_reply, message_json, sse_events

__all__ = ["ERROR_TYPES", "error_reply", "message_json", "sse_events"]
