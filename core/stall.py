"""How long a live run may go without growth before it reads as stalled, apart from the run
model (`wftop.core.model`) that uses it: the settings default to it, and a view reads them
before it starts its engine."""

from __future__ import annotations

DEFAULT_STALL_WINDOW = 10 * 60.0
"""Seconds without journal or transcript growth before a live run reads as stalled."""
