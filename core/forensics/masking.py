"""Redaction of everything a forensic command prints: every string, at any depth."""

from __future__ import annotations

from typing import Any

from wftop.core.text.redact import Redactor

NOTE = "secrets are masked by shape; this is shape matching, not a guarantee"


def redaction_json(redactor: Redactor) -> dict[str, Any]:
    """What was masked, by kind, for ``--json`` output."""
    return {"masked": redactor.total, "kinds": dict(sorted(redactor.masked.items())), "note": NOTE}


def redaction_line(redactor: Redactor) -> str:
    """One line for text output: the kinds masked, or that nothing was."""
    summary = redactor.summary()
    return f"redaction: {summary or 'nothing masked'} ({NOTE})"
