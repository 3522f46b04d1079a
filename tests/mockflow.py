"""Re-export of ``tui.mockapi.flow``: what the mock answers to one request."""

from __future__ import annotations

from tui.mockapi.flow import *  # noqa: F403
from tui.mockapi.flow import Plan, decide, parse_resume_request, session_id_of

__all__ = ["Plan", "decide", "parse_resume_request", "session_id_of"]
