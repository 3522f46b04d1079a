"""Validation of the identifiers that end up in paths, argv and prompts.

Only values that pass these checks are ever put into a file path or a command
line; everything else is refused with `InvalidIdentifier`.
"""

from __future__ import annotations

import re
from typing import Final

from wftop.core.read import runfolder
from wftop.core.resume.errors import InvalidIdentifier

SESSION_ID: Final = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", re.ASCII
)
"""An RFC-4122 UUID in the canonical lower-case form the CLI writes."""
RUN_ID: Final = runfolder.RUN_ID
"""The CLI's ``WORKFLOW_RUN_ID_PATTERN`` (accepted as ``resumeFromRunId``): the one rule
(`wftop.core.read.runfolder.RUN_ID`)."""
AGENT_ID: Final = re.compile(r"[\w-]{1,128}", re.ASCII)
"""The CLI's journal validation of agent ids (JavaScript ``\\w`` is ASCII)."""


def _check(kind: str, value: object, pattern: re.Pattern[str], expected: str) -> str:
    if not isinstance(value, str) or pattern.fullmatch(value) is None:
        msg = f"invalid {kind}: expected {expected}, got {value!r}"
        raise InvalidIdentifier(msg)
    return value


def validate_session_id(value: object) -> str:
    """Return ``value`` if it is a canonical RFC-4122 UUID.

    Raises:
        InvalidIdentifier: Anything else.
    """
    return _check("session id", value, SESSION_ID, "a lower-case RFC-4122 UUID")


def validate_run_id(value: object) -> str:
    """Return ``value`` if it matches ``^wf_[a-z0-9-]{6,}$``.

    Raises:
        InvalidIdentifier: Anything else.
    """
    return _check("run id", value, RUN_ID, "a value matching ^wf_[a-z0-9-]{6,}$")


def validate_agent_id(value: object) -> str:
    """Return ``value`` if it matches ``^[\\w-]{1,128}$`` (ASCII word characters).

    Raises:
        InvalidIdentifier: Anything else.
    """
    return _check("agent id", value, AGENT_ID, "1-128 characters from [A-Za-z0-9_-]")
