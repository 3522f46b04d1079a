"""One CLI step against the mock: launch (or resume) a Workflow, optionally kill it while a
named agent is in flight, and report what it left on disk and what the mock saw.

Shared by ``wftop demo``, ``wftop drill`` and the end-to-end tests (``tests/realcli.py``).
Every wait is bounded; the CLI's whole process group is SIGKILLed when a step returns.
"""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wftop.core.read.jsonl import read_all
from wftop.mockapi.cliproc import CliHome, CliProcess, RealCliError, claude_argv, cli_env
from wftop.mockapi.server import MockAPI

RUN_PROMPT = "RUN_WORKFLOW Please use a workflow to run the mock agents."
SIX_AGENTS = ("a1", "a2", "a3", "a4", "a5", "a6")
DEFAULT_TIMEOUT_S = 120.0


def agents_config(
    names: Iterable[str], delay_s: float = 0.3, **overrides: Mapping[str, Any]
) -> dict[str, Any]:
    """Mock ``agents`` config: each name answers ``{agent, ok, n}`` after ``delay_s``;
    ``overrides`` merge into single agents, e.g. ``a5={"hang_attempts": [1]}``."""
    config: dict[str, Any] = {}
    for n, name in enumerate(names, 1):
        spec: dict[str, Any] = {"delay_s": delay_s, "result": {"agent": name, "ok": True, "n": n}}
        spec.update(overrides.get(name, {}))
        config[name] = spec
    return config


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
    """The journal's records, as `wftop.core.read.jsonl` (the one reader) reads them."""
    return [record for _, record in read_all(path).records]


def journal_counts(path: Path) -> dict[str, int]:
    """Lines per type, e.g. ``{"launched": 1, "started": 6, "result": 6, "failed": 0}``."""
    counts = {"launched": 0, "started": 0, "result": 0, "failed": 0}
    for line in read_journal(path):
        counts[str(line.get("type"))] = counts.get(str(line.get("type")), 0) + 1
    return counts


def started_count(config_dir: Path, label: str) -> int:
    journals = (Path(config_dir) / "projects").glob("*/*/subagents/workflows/wf_*/journal.jsonl")
    return sum(
        1
        for j in journals
        for line in read_journal(j)
        if line.get("type") == "started" and line.get("label") == label
    )


def run_step(
    claude: str,
    mock: MockAPI,
    home: CliHome,
    prompt: str,
    *,
    resume: str | None = None,
    env_extra: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    kill_when_agent: tuple[str, int] | None = None,
    kill_signal: int = signal.SIGKILL,
    extra_args: Sequence[str] = (),
    kill_after_s: float = 0.0,
) -> CliRun:
    """Run ``claude -p [--resume S] <prompt>`` to its end, or kill its process group once the
    mock sees ``kill_when_agent=(name, attempt)`` and that agent's ``started`` line landed
    (and ``kill_after_s`` more seconds passed: the agents beside it in a fan-out return)."""
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
            started_before = started_count(home.config_dir, name)
            while not mock.wait_for_agent(name, attempt, timeout=0.5):
                if proc.poll() is not None or time.monotonic() > deadline:
                    msg = f"never saw {name} attempt {attempt}\n{proc.tail()}"
                    raise RealCliError(msg)
            # The agent's request is in flight; let its `started` journal line land, then kill.
            settle = time.monotonic() + 10
            while (
                started_count(home.config_dir, name) <= started_before and time.monotonic() < settle
            ):
                time.sleep(0.05)
            time.sleep(kill_after_s)
            proc.kill(kill_signal)
            killed = True
        rc = proc.wait(deadline - time.monotonic())
        sid = proc.session_id() or resume
        final = proc.final_result()
    if not sid:
        msg = f"no session id in the CLI's output\n{proc.tail()}"
        raise RealCliError(msg)
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


def resume_prompt(run_id: str, script_path: str | Path, args: Any = None) -> str:
    """A free-text resume request of the shape wftop sends."""
    call: dict[str, Any] = {"scriptPath": str(script_path), "resumeFromRunId": run_id}
    if args is not None:
        call["args"] = args
    inner = ", ".join(f"{k}: {json.dumps(v)}" for k, v in call.items())
    return (
        f"Resume the workflow run {run_id} by calling Workflow({{{inner}}}) "
        "exactly once, then wait for its notification."
    )


def age_tree(root: Path, seconds: float) -> None:
    """Move every file time ``seconds`` into the past (a quiet run, past the guard's window)."""
    import os

    past = time.time() - seconds
    for path in Path(root).rglob("*"):
        if path.is_file():
            os.utime(path, (past, past))
