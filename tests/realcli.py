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

import json
import os
import signal
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.cliproc import (  # re-exported: the CLI-starting half of this library
    LOCAL_CLI,
    CliHome,
    CliProcess,
    RealCliError,
    claude_argv,
    cli_env,
    cli_version,
    find_claude,
)
from tests.mockapi import MockAPI

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
RUN_PROMPT = "RUN_WORKFLOW Please use a workflow to run the mock agents."
SIX_AGENTS = ("a1", "a2", "a3", "a4", "a5", "a6")
EIGHT_AGENTS = ("b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "c1")
DEFAULT_TIMEOUT_S = 120.0


def load_script(name: str) -> str:
    return (SCRIPTS / name).read_text()


def agents_config(
    names: Iterable[str], delay_s: float = 0.3, **overrides: Mapping[str, Any]
) -> dict:
    """Mock ``agents`` config: each name answers ``{agent, ok, n}`` after ``delay_s``;
    ``overrides`` merge into single agents, e.g. ``a5={"hang_attempts": [1]}``."""
    config = {}
    for n, name in enumerate(names, 1):
        spec: dict[str, Any] = {"delay_s": delay_s, "result": {"agent": name, "ok": True, "n": n}}
        spec.update(overrides.get(name, {}))
        config[name] = spec
    return config


def six_agents(**overrides: Mapping[str, Any]) -> dict:
    return agents_config(SIX_AGENTS, **overrides)


def eight_agents(**overrides: Mapping[str, Any]) -> dict:
    return agents_config(EIGHT_AGENTS, **overrides)


@dataclass
class CliRun:
    """What one CLI step left behind, and what the mock saw during it."""

    session_id: str
    config_dir: Path
    session_dir: Path | None
    run_id: str | None
    run_dir: Path | None
    script_path: Path | None
    rc: int
    killed: bool
    final_result: str | None
    stdout_path: Path
    stderr_path: Path
    first_seq: int
    live: list[str] = field(default_factory=list)

    @property
    def journal_path(self) -> Path | None:
        return self.run_dir / "journal.jsonl" if self.run_dir else None

    @property
    def snapshot_path(self) -> Path | None:
        """``<session>/workflows/<runId>.json``: written only when a run completes."""
        if not (self.session_dir and self.run_id):
            return None
        return self.session_dir / "workflows" / f"{self.run_id}.json"


def find_session_dir(config_dir: Path, session_id: str) -> Path | None:
    """``projects/<slug>/<session_id>`` under any project slug."""
    hits = [p for p in (Path(config_dir) / "projects").glob(f"*/{session_id}") if p.is_dir()]
    return hits[0] if hits else None


def find_run(session_dir: Path) -> tuple[str, Path, Path | None] | None:
    """``(run_id, run_dir, script_path)`` of the newest workflow run of a session."""
    runs = sorted(
        (session_dir / "subagents" / "workflows").glob("wf_*"), key=lambda p: p.stat().st_mtime
    )
    if not runs:
        return None
    run_dir = runs[-1]
    scripts = sorted((session_dir / "workflows" / "scripts").glob(f"*{run_dir.name}.js"))
    return run_dir.name, run_dir, scripts[0] if scripts else None


def read_journal(path: Path) -> list[dict[str, Any]]:
    lines = []
    for raw in Path(path).read_text().splitlines():
        try:
            lines.append(json.loads(raw))
        except ValueError:
            continue
    return lines


def journal_counts(path: Path) -> dict[str, int]:
    """Lines per type, e.g. ``{"launched": 1, "started": 6, "result": 6, "failed": 0}``."""
    counts = {"launched": 0, "started": 0, "result": 0, "failed": 0}
    for line in read_journal(path):
        counts[str(line.get("type"))] = counts.get(str(line.get("type")), 0) + 1
    return counts


def _started_count(config_dir: Path, label: str) -> int:
    journals = (Path(config_dir) / "projects").glob("*/*/subagents/workflows/wf_*/journal.jsonl")
    return sum(
        1
        for j in journals
        for line in read_journal(j)
        if line.get("type") == "started" and line.get("label") == label
    )


def _run_step(
    claude: str,
    mock: MockAPI,
    home: CliHome,
    prompt: str,
    *,
    resume: str | None,
    env_extra: Mapping[str, str] | None,
    timeout: float,
    kill_when_agent: tuple[str, int] | None,
    kill_signal: int,
    extra_args: Sequence[str],
) -> CliRun:
    first_seq = mock.mark()
    deadline = time.monotonic() + timeout
    step = len(list(home.root.glob("step-*.stream.jsonl"))) + 1
    argv = claude_argv(claude, prompt, resume, extra_args)
    killed = False
    with CliProcess(
        argv, cli_env(home, mock.url, env_extra), home.cwd, home.root / f"step-{step}"
    ) as proc:
        if kill_when_agent:
            name, attempt = kill_when_agent
            started_before = _started_count(home.config_dir, name)
            while not mock.wait_for_agent(name, attempt, timeout=0.5):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RealCliError(f"never saw {name} attempt {attempt}\n{proc.tail()}")
            # The agent's request is in flight; let its `started` journal line land, then kill.
            settle = time.monotonic() + 10
            while (
                _started_count(home.config_dir, name) <= started_before
                and time.monotonic() < settle
            ):
                time.sleep(0.05)
            proc.kill(kill_signal)
            killed = True
        rc = proc.wait(deadline - time.monotonic())
        sid = proc.session_id() or resume
        final = proc.final_result()
    if not sid:
        raise RealCliError(f"no session id in the CLI's output\n{proc.tail()}")
    session_dir = find_session_dir(home.config_dir, sid)
    run = find_run(session_dir) if session_dir else None
    return CliRun(
        sid,
        home.config_dir,
        session_dir,
        run[0] if run else None,
        run[1] if run else None,
        run[2] if run else None,
        rc,
        killed,
        final,
        proc.stdout_path,
        proc.stderr_path,
        first_seq,
        mock.live_agents(since=first_seq),
    )


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
) -> CliRun:
    """Launch ``script_text`` with ``claude -p`` in a new session and wait for the process to end.

    ``kill_when_agent=(name, attempt)``: once the mock sees that sub-agent request (and its
    ``started`` line is in the journal), send ``kill_signal`` to the CLI's process group."""
    mock.configure(script=script_text, **({"agents": dict(agents)} if agents is not None else {}))
    return _run_step(
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
    )


def resume_prompt(run_id: str, script_path: str | os.PathLike[str], args: Any = None) -> str:
    """A free-text resume request of the shape wftop sends."""
    call = {"scriptPath": str(script_path), "resumeFromRunId": run_id}
    if args is not None:
        call["args"] = args
    inner = ", ".join(f"{k}: {json.dumps(v)}" for k, v in call.items())
    return (
        f"Resume the workflow run {run_id} by calling Workflow({{{inner}}}) "
        "exactly once, then wait for its notification."
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
    return _run_step(
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
