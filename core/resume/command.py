"""The resume command: the prompt and the argv of each strategy. Pure; no processes.

Nothing here uses a shell: the command is an argv list, and every value taken from
disk is validated (`wftop.core.resume.ids`) or passed as one inert argv element. The prompt
is put after ``--``, which the CLI (2.1.332, checked) accepts as the end of its
options, so neither a prompt starting with ``-`` nor a variadic extra flag
(``--add-dir a b``, which would otherwise swallow the prompt) can change its meaning.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from enum import StrEnum
from typing import Any, Final

import orjson

from wftop.core.resume.errors import InvalidIdentifier
from wftop.core.resume.ids import validate_run_id, validate_session_id

CONFLICTING_FLAGS: Final = frozenset(
    {
        "-p",
        "--print",
        "-r",
        "--resume",
        "-c",
        "--continue",
        "--session-id",
        "--fork-session",
        "--output-format",
        "--input-format",
        "--",
    }
)
"""Extra flags that would change which session runs or how its output is read."""


class Strategy(StrEnum):
    """How a dead run is continued."""

    RESUME_OWNER = "resume-owner"
    """``--resume`` the session that owns the run folder."""
    RELOCATE = "relocate"
    """Copy the journal into a new session and start it with ``--session-id``."""
    SURGICAL = "surgical"
    """Relocate with the ``failed`` lines of the failed calls dropped from the copy."""
    FRESH = "fresh"
    """Run the script again from the start in a new session, without ``resumeFromRunId``."""


def _has_control(text: str) -> bool:
    return any(ord(char) < 32 or ord(char) == 127 for char in text)


def validate_script_path(path: str | os.PathLike[str]) -> str:
    """Return the script path as a string if it is absolute, normalised and printable.

    Raises:
        InvalidIdentifier: Relative, holding ``.``/``..`` components or control characters.
    """
    text = os.fspath(path)
    if (
        not text
        or not os.path.isabs(text)
        or _has_control(text)
        or os.path.normpath(text) != text
        or text.startswith("//")
    ):
        msg = f"invalid script path: expected a normalised absolute path, got {text!r}"
        raise InvalidIdentifier(msg)
    return text


def workflow_call(script_path: str | os.PathLike[str], args: Any, run_id: str | None = None) -> str:
    """The ``Workflow({...})`` argument text: scriptPath, resumeFromRunId (if any), args (if any).

    Raises:
        InvalidIdentifier: A bad run id or path, or args that are not JSON.
    """
    path = orjson.dumps(validate_script_path(script_path)).decode()
    call = f"scriptPath: {path}"
    if run_id is not None:
        call += f', resumeFromRunId: "{validate_run_id(run_id)}"'
    if args is not None:
        try:
            call += f", args: {orjson.dumps(args).decode()}"
        except TypeError as error:
            msg = f"args cannot be written as JSON: {error}"
            raise InvalidIdentifier(msg) from None
    return call


def build_prompt(run_id: str, script_path: str | os.PathLike[str], args: Any = None) -> str:
    """The restart prompt: a direct user request to make one ``Workflow`` call.

    Args:
        run_id: The run to resume (validated).
        script_path: Absolute path of the run's script (validated, JSON-quoted).
        args: The run's original ``args``; omitted from the call when None.

    Raises:
        InvalidIdentifier: A bad run id or path, or args that are not JSON.
    """
    call = workflow_call(script_path, args, validate_run_id(run_id))
    return (
        f"Resume the workflow run {run_id} by calling Workflow({{{call}}}) exactly once. "
        "Do not edit the script. I am asking you directly to resume this workflow run: make "
        "that one Workflow call with exactly these values, do not start a new run, and do not "
        "call any other tool. When the workflow has finished, report its final status in one line."
    )


def build_fresh_prompt(script_path: str | os.PathLike[str], args: Any = None) -> str:
    """A direct user request to run a workflow script again from the start (no cache).

    Raises:
        InvalidIdentifier: A bad path, or args that are not JSON.
    """
    call = workflow_call(script_path, args)
    return (
        f"Run the workflow by calling Workflow({{{call}}}) exactly once. Do not edit the script. "
        "I am asking you directly to run this workflow: make that one Workflow call with exactly "
        "these values, and do not call any other tool. When the workflow has finished, report its "
        "final status in one line."
    )


def build_argv(
    strategy: Strategy | str,
    claude_bin: str,
    session_id: str,
    prompt: str,
    extra_flags: Sequence[str] = (),
) -> list[str]:
    """The CLI command for a strategy, as an argv list (never a shell string).

    ``resume-owner`` uses ``--resume <session>``; ``relocate`` and ``surgical`` use
    ``--session-id <new session>``. The prompt follows ``--``.

    Raises:
        InvalidIdentifier: Unknown strategy, bad session id, empty or control-character
            binary, a NUL in the prompt, or an extra flag that conflicts with the command.
    """
    try:
        chosen = Strategy(strategy)
    except ValueError:
        names = [item.value for item in Strategy]
        msg = f"invalid strategy: expected one of {names}, got {strategy!r}"
        raise InvalidIdentifier(msg) from None
    if not isinstance(claude_bin, str) or not claude_bin or _has_control(claude_bin):
        msg = f"invalid claude binary: {claude_bin!r}"
        raise InvalidIdentifier(msg)
    session_id = validate_session_id(session_id)
    if not isinstance(prompt, str) or not prompt.strip() or "\0" in prompt:
        msg = "invalid prompt: expected non-empty text without NUL characters"
        raise InvalidIdentifier(msg)
    extras = list(extra_flags)
    for flag in extras:
        if not isinstance(flag, str) or "\0" in flag or "\n" in flag:
            msg = f"invalid extra flag: {flag!r}"
            raise InvalidIdentifier(msg)
        if flag.split("=", 1)[0] in CONFLICTING_FLAGS:
            msg = f"extra flag {flag!r} conflicts with the resume command; remove it"
            raise InvalidIdentifier(msg)
    session = (
        ["--resume", session_id]
        if chosen is Strategy.RESUME_OWNER
        else ["--session-id", session_id]
    )
    return [
        claude_bin,
        "-p",
        *session,
        "--allowedTools",
        "Workflow",
        "--output-format",
        "stream-json",
        "--verbose",
        *extras,
        "--",
        prompt,
    ]
