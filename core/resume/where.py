"""Where and with what a resume launches the CLI: the claude binary, the config dir it is
given, the project folder the CLI files a working directory under, and where a journal moved
to a new session goes.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping

from wftop.core.model import Run


def project_slug(path: str) -> str:
    """The project folder name Claude Code derives from a cwd (spec A.2)."""
    units = path.encode("utf-16-le")
    codes = [int.from_bytes(units[i : i + 2], "little") for i in range(0, len(units), 2)]
    slug = "".join(chr(c) if chr(c).isascii() and chr(c).isalnum() else "-" for c in codes)
    if len(slug) <= 200:
        return slug
    value = 0
    for code in codes:
        value = (value * 31 + code) & 0xFFFFFFFF
    value = value - (1 << 32) if value >= 1 << 31 else value
    return f"{slug[:200]}-{_base36(abs(value))}"


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = ""
    while True:
        number, rest = divmod(number, 36)
        text = digits[rest] + text
        if not number:
            return text


def find_claude(configured: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The claude binary: the configured one, ``$WFTOP_CLAUDE``, or ``claude`` on PATH."""
    environ = os.environ if environ is None else environ
    for candidate in (configured, environ.get("WFTOP_CLAUDE")):
        if candidate:
            return candidate
    return shutil.which("claude") or "claude"


def launch_env(root: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``CLAUDE_CONFIG_DIR`` for the run's root, unless the user's own setting already names it."""
    environ = os.environ if environ is None else environ
    configured = environ.get("CLAUDE_CONFIG_DIR")
    home_default = os.path.join(os.path.expanduser("~"), ".claude")
    current = os.path.realpath(configured) if configured else os.path.realpath(home_default)
    return {} if current == os.path.realpath(root) else {"CLAUDE_CONFIG_DIR": root}


def relocation_target(run: Run, cwd: str | None, session_id: str) -> str:
    """Where relocate and surgical copy the run's journal: under the new session, in the
    project the CLI files a session of ``cwd`` under."""
    project = project_slug(cwd) if cwd else run.folder.project
    return os.path.join(
        run.folder.root,
        "projects",
        project,
        session_id,
        "subagents",
        "workflows",
        run.run_id,
        "journal.jsonl",
    )
