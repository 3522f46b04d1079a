"""The name a run was launched under, from its session's launch receipt.

A run launched with ``scriptPath`` (wftop's fresh relaunch, ``R``, is one) leaves no script
of its own under ``workflows/scripts/`` and no snapshot until it ends, and none at all when
its process dies: nothing in its folder names it. The session transcript does: the
``Workflow`` tool's result holds ``toolUseResult: {"status": "async_launched",
"workflowName", "runId", …}`` (spec E.3). This reads the transcript's bytes for the run's
id, never parsing the whole file, and takes the ``workflowName`` of the result that holds it.
"""

from __future__ import annotations

import re
from typing import Final

import orjson

CHUNK_BYTES: Final = 4 * 1024 * 1024
MAX_BYTES: Final = 256 * 1024 * 1024
"""A session transcript longer than this is read no further for a name."""
WINDOW: Final = 4096
"""Bytes before and after the run id searched for the receipt's ``workflowName``."""

_NAME: Final = re.compile(rb'"workflowName":("(?:[^"\\]|\\.){1,400}")')
_RESULT: Final = b'"toolUseResult":{'


def launched_name(transcript: str, run_id: str) -> str | None:
    """The ``workflowName`` of the launch receipt of ``run_id`` in ``transcript``; None when
    none is found (or the file cannot be read)."""
    needle = b'"runId":"' + run_id.encode("ascii", "replace") + b'"'
    kept = b""
    read = 0
    try:
        with open(transcript, "rb") as handle:
            while read < MAX_BYTES:
                chunk = handle.read(CHUNK_BYTES)
                if not chunk:
                    return None
                read += len(chunk)
                data = kept + chunk
                at = data.find(needle)
                while at >= 0:
                    found = _name_near(data, at)
                    if found is not None:
                        return found
                    at = data.find(needle, at + 1)
                kept = data[-(WINDOW + len(needle)) :]
    except (OSError, ValueError):
        return None
    return None


def _name_near(data: bytes, at: int) -> str | None:
    """The ``workflowName`` of the ``toolUseResult`` object the run id at ``at`` is in."""
    start = data.rfind(_RESULT, max(0, at - WINDOW), at)
    if start < 0:
        return None
    end = data.find(b"\n", at)
    window = data[start : at + WINDOW if end < 0 else min(end, at + WINDOW)]
    match = _NAME.search(window)
    if match is None:
        return None
    try:
        name = orjson.loads(match.group(1))
    except orjson.JSONDecodeError:
        return None
    return name if isinstance(name, str) and name else None
