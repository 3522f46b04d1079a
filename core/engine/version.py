"""The version of the engine's stream (`wftop.core.engine.protocol`), apart from the stream
itself: where a shared engine lives is named by it too (`wftop.core.engine.place`), and
that is known before a view imports the stream and its rows (`wftop.core.engine.early`)."""

from __future__ import annotations

PROTOCOL = 3
"""Bumped whenever a message changes shape or meaning: an engine of another protocol (or
another wftop version) is never used (3: each row an array of its fields' values)."""
