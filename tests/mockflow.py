"""Re-export of ``wftop.mockapi.flow``: what the mock answers to one request."""

from __future__ import annotations

from wftop.mockapi.flow import *  # noqa: F403
from wftop.mockapi.flow import Plan, decide, parse_resume_request, session_id_of

__all__ = ["Plan", "decide", "parse_resume_request", "session_id_of"]
