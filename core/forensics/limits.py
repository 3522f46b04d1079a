"""Every numeric limit of the forensic scan, in one table.

Tests assert these values, so a change here is a visible, deliberate change.
"""

from __future__ import annotations

from typing import Final

TAIL_RECORDS: Final = 400
"""Records from the end of a transcript searched for the termination cause."""

EVIDENCE_CHARS: Final = 300
"""An evidence line's text is cut to this many characters."""

SUMMARY_CHARS: Final = 120
"""Descriptions and prompts in text tables are cut to this many characters."""

OUTPUT_GROWTH_GRACE_S: Final = 5.0
"""An output file written more than this many seconds after the session's last
write grew after the session died (its worker may still be running)."""

MIN_COMMAND_MATCH_CHARS: Final = 8
"""A background shell's command must be at least this long to be looked for in
the process table (shorter ones match unrelated processes)."""

RECENT_SESSIONS: Final = 20
"""Sessions listed by ``--list-sessions`` and the Sessions screen."""

MAX_LISTED_SESSIONS: Final = 100_000
"""The most ``--list-sessions --limit`` takes."""

MAX_WORKER_TRANSCRIPT_BYTES: Final = 64 * 1024 * 1024
"""A worker transcript larger than this is not read for its digest or last text."""

LAST_TEXT_CHARS: Final = 20_000
"""The salvaged last assistant text of a call that died is cut to this length."""

CWD_CHARS: Final = 60
"""The CWD column of ``--list-sessions`` is cut to this many characters at its start: the
path's end names the project (`wftop.core.text.cuts.cut_start`)."""

LIMITS: Final[dict[str, float]] = {
    "tail_records": TAIL_RECORDS,
    "evidence_chars": EVIDENCE_CHARS,
    "summary_chars": SUMMARY_CHARS,
    "output_growth_grace_s": OUTPUT_GROWTH_GRACE_S,
    "min_command_match_chars": MIN_COMMAND_MATCH_CHARS,
    "recent_sessions": RECENT_SESSIONS,
    "max_worker_transcript_bytes": MAX_WORKER_TRANSCRIPT_BYTES,
    "last_text_chars": LAST_TEXT_CHARS,
    "cwd_chars": CWD_CHARS,
}
"""The same values by name, for ``--json`` output and documentation."""


def cut(text: str, limit: int) -> str:
    """``text`` shortened to ``limit`` characters, marked with an ellipsis when cut."""
    text = " ".join(text.split()) if "\n" in text else text
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"
