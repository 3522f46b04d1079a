"""Drive the real Claude Code CLI through Workflow runs against the loopback mock Messages API.

Every CLI process runs in its own process group, with a deadline, and is SIGKILLed (group and
all) when its helper returns, whatever happened.  Nothing leaves 127.0.0.1.

    claude, home = find_claude(), CliHome.create(tmp_path / "cli")
    with MockAPI() as mock:
        run = run_workflow(claude, mock, home, load_script("six.js"), six_agents())
        again = resume_plain(claude, mock, home, run.session_id, run.run_id, run.script_path)
        again.live            # sub-agents the mock answered live during the resume
"""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from wftop.mockapi import cliproc
from wftop.mockapi.cliproc import (  # re-exported: the CLI-starting half of this library
    CliHome,
    CliProcess,
    RealCliError,
    claude_argv,
    cli_env,
    cli_version,
)
from wftop.mockapi.scenario import (  # one implementation of a CLI step, shared with wftop
    RUN_PROMPT,
    SIX_AGENTS,
    CliRun,
    agents_config,
    find_run,
    find_session_dir,
    journal_counts,
    read_journal,
    resume_prompt,
    run_step,
)
from wftop.mockapi.server import MockAPI

PINNED = Path(__file__).resolve().parent / "e2e" / "claude-code"
LOCAL_CLI = PINNED / "node_modules" / ".bin" / "claude"
"""The pinned CLI the suite drives: ``npm ci --prefix tests/e2e/claude-code`` puts it here."""


def find_claude() -> str | None:
    """``$WFTOP_CLAUDE``, then the pinned CLI (`LOCAL_CLI`), then ``claude`` on PATH; None when
    there is none."""
    return cliproc.find_claude(LOCAL_CLI)


__all__ = [
    "CLI_VERSION",
    "EIGHT_AGENTS",
    "LOCAL_CLI",
    "RUN_PROMPT",
    "SIX_AGENTS",
    "CliHome",
    "CliProcess",
    "CliRun",
    "RealCliError",
    "agents_config",
    "claude_argv",
    "cli_env",
    "cli_version",
    "eight_agents",
    "find_claude",
    "find_run",
    "find_session_dir",
    "journal_counts",
    "load_script",
    "read_journal",
    "resume_plain",
    "resume_prompt",
    "run_workflow",
    "six_agents",
]

CLI_VERSION = "2.1.332"
SCRIPTS = Path(__file__).resolve().parent / "scripts"
EIGHT_AGENTS = ("b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "c1")
DEFAULT_TIMEOUT_S = 120.0


def load_script(name: str) -> str:
    return (SCRIPTS / name).read_text()


def six_agents(**overrides: Mapping[str, Any]) -> dict:
    return agents_config(SIX_AGENTS, **overrides)


def eight_agents(**overrides: Mapping[str, Any]) -> dict:
    return agents_config(EIGHT_AGENTS, **overrides)


def run_workflow(
    claude: str,
    mock: MockAPI,
    home: CliHome,
    script_text: str,
    agents: Mapping[str, Any] | None = None,
    *,
    kill_when_agent: tuple[str, int] | None = None,
    env_extra: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    prompt: str = RUN_PROMPT,
    kill_signal: int = signal.SIGKILL,
    extra_args: Sequence[str] = (),
    kill_after_s: float = 0.0,
) -> CliRun:
    """Launch ``script_text`` with ``claude -p`` in a new session and wait for the process to end.

    ``kill_when_agent=(name, attempt)``: once the mock sees that sub-agent request (and its
    ``started`` line is in the journal), send ``kill_signal`` to the CLI's process group."""
    mock.configure(script=script_text, **({"agents": dict(agents)} if agents is not None else {}))
    return run_step(
        claude,
        mock,
        home,
        prompt,
        resume=None,
        env_extra=env_extra,
        timeout=timeout,
        kill_when_agent=kill_when_agent,
        kill_signal=kill_signal,
        extra_args=extra_args,
        kill_after_s=kill_after_s,
    )


def resume_plain(
    claude: str,
    mock: MockAPI,
    home: CliHome,
    session_id: str,
    run_id: str | None = None,
    script_path: str | os.PathLike[str] | None = None,
    *,
    prompt: str | None = None,
    agents: Mapping[str, Any] | None = None,
    env_extra: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    kill_when_agent: tuple[str, int] | None = None,
    extra_args: Sequence[str] = (),
) -> CliRun:
    """``claude -p --resume <session_id> <prompt>``; the default prompt is
    ``RESUME_WORKFLOW runId=<run_id> scriptPath=<script_path>``."""
    if prompt is None:
        if not (run_id and script_path):
            raise ValueError("give a prompt, or run_id and script_path")
        prompt = f"RESUME_WORKFLOW runId={run_id} scriptPath={script_path}"
    if agents is not None:
        mock.configure(agents=dict(agents))
    return run_step(
        claude,
        mock,
        home,
        prompt,
        resume=session_id,
        env_extra=env_extra,
        timeout=timeout,
        kill_when_agent=kill_when_agent,
        kill_signal=signal.SIGKILL,
        extra_args=extra_args,
    )
